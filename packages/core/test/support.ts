import { z } from 'zod';
import { Agent, Toolkit, tool } from '../src/index.js';
import type { AgentEvent, AgentOptions, AgentState, AnyTool, Tool } from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import type { ScriptedStep } from '../src/testing/index.js';

/** Drains a stream into an array. */
export async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The event types, in order. */
export const types = (events: AgentEvent[]): string[] => events.map((event) => event.type);

/** The events of one type, narrowed. */
export function ofType<T extends AgentEvent['type']>(
  events: AgentEvent[],
  type: T,
): Extract<AgentEvent, { type: T }>[] {
  return events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type);
}

/** A JSON round trip of a state, as a store would give it back. */
export const roundTrip = (state: AgentState): AgentState =>
  JSON.parse(JSON.stringify(state)) as AgentState;

/** A recording write_note tool (asks by default, like every custom tool). */
export function makeWriteNote(log: string[] = []): Tool<{ path: string; content: string }> {
  return tool({
    name: 'write_note',
    description: 'Write a note to the notebook.',
    input: z.object({ path: z.string(), content: z.string() }),
    execute: async ({ path, content }) => {
      log.push(`${path}=${content}`);
      return `Wrote ${content.length} characters to ${path}`;
    },
  });
}

/** A read-only, concurrency-safe lookup tool (always allowed). */
export function makeLookup(log: string[] = []): Tool<{ key: string }> {
  return tool({
    name: 'lookup',
    description: 'Look a key up.',
    input: z.object({ key: z.string() }),
    readOnly: true,
    concurrencySafe: true,
    execute: async ({ key }) => {
      log.push(key);
      return `value of ${key}`;
    },
  });
}

/** An external tool: results come from outside. */
export const deploy = tool({
  name: 'deploy',
  description: 'Deploy the site (done by an operator).',
  input: z.object({ env: z.string() }),
  external: true,
  outputMetadata: z.object({ url: z.string() }).strict(),
});

/** Builds an agent and a factory that rebuilds it from a JSON round trip of its state. */
export function setup(
  steps: ScriptedStep[],
  tools: AnyTool[],
  options: Partial<AgentOptions> = {},
): { agent: Agent; model: ScriptedModel; revive: (agent: Agent) => Agent } {
  const model = new ScriptedModel(steps);
  const toolkit = new Toolkit(tools);
  const agent = new Agent({
    name: 'assistant',
    systemPrompt: 'You are helpful.',
    model,
    toolkit,
    ...options,
  });
  const revive = (from: Agent): Agent =>
    new Agent({
      name: 'assistant',
      systemPrompt: 'You are helpful.',
      model,
      toolkit,
      ...options,
      state: roundTrip(from.state),
    });
  return { agent, model, revive };
}
