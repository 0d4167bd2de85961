import { expect } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  ParleyError,
  Toolkit,
  externalExecutionResultEvent,
  tool,
  userConfirmResultEvent,
} from '../src/index.js';
import type {
  AgentEvent,
  AgentOptions,
  AgentState,
  AnyTool,
  ContentBlock,
  ExternalExecutionResultEvent,
  Msg,
  ReplyInput,
  Tool,
  ToolCallBlock,
  ToolResultBlock,
  UserConfirmResultEvent,
} from '../src/index.js';
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

/** The events about one tool call (TOOL_CALL_* and TOOL_RESULT_*), in order. */
export function eventsOfCall(events: AgentEvent[], toolCallId: string): AgentEvent[] {
  return events.filter((event) => 'toolCallId' in event && event.toolCallId === toolCallId);
}

/** A JSON round trip of a state, as a store would give it back. */
export const roundTrip = (state: AgentState): AgentState =>
  JSON.parse(JSON.stringify(state)) as AgentState;

/** The state as JSON text: what "unchanged" is measured against. */
export const snapshot = (agent: Agent): string => JSON.stringify(agent.state);

/** The blocks of the last message of the context (the reply message during a reply). */
export function lastBlocks(agent: Agent): ContentBlock[] {
  const last = agent.state.context.at(-1);
  if (last === undefined || typeof last.content === 'string') return [];
  return last.content;
}

/** The stored tool call of that id in the last message. */
export function storedCall(agent: Agent, id: string): ToolCallBlock | undefined {
  return lastBlocks(agent).find(
    (block): block is ToolCallBlock => block.type === 'tool_call' && block.id === id,
  );
}

/** The stored results of the last message. */
export function storedResults(agent: Agent): ToolResultBlock[] {
  return lastBlocks(agent).filter(
    (block): block is ToolResultBlock => block.type === 'tool_result',
  );
}

/** The tool results of the reply message the model saw in a request. */
export function resultsSeen(messages: Msg[]): ToolResultBlock[] {
  return messages.flatMap((message) =>
    typeof message.content === 'string'
      ? []
      : message.content.filter((block): block is ToolResultBlock => block.type === 'tool_result'),
  );
}

/** The tool calls asked about in REQUIRE_USER_CONFIRM events, in order. */
export const asked = (events: AgentEvent[]): ToolCallBlock[] =>
  ofType(events, 'REQUIRE_USER_CONFIRM').flatMap((event) => event.toolCalls);

/** The tool calls submitted in REQUIRE_EXTERNAL_EXECUTION events, in order. */
export const submitted = (events: AgentEvent[]): ToolCallBlock[] =>
  ofType(events, 'REQUIRE_EXTERNAL_EXECUTION').flatMap((event) => event.toolCalls);

/** The reply id the events belong to. */
export function replyIdOf(events: AgentEvent[]): string {
  const first = events[0];
  if (first === undefined) throw new Error('no events');
  return first.replyId;
}

/** A confirmation of calls: confirmed or not, with their suggested rules or none. */
export function confirm(
  replyId: string,
  calls: ToolCallBlock[],
  options: { confirmed?: boolean; withRules?: boolean; reason?: string } = {},
): UserConfirmResultEvent {
  return userConfirmResultEvent({
    replyId,
    confirmResults: calls.map((toolCall) => ({
      confirmed: options.confirmed ?? true,
      toolCall,
      ...(options.withRules === true ? { rules: toolCall.suggestedRules } : {}),
      ...(options.reason === undefined ? {} : { reason: options.reason }),
    })),
  });
}

/** A successful text result for an external call. */
export function resultFor(
  call: Pick<ToolCallBlock, 'id' | 'name'>,
  output: string,
  metadata?: Record<string, unknown>,
): ToolResultBlock {
  return {
    type: 'tool_result',
    id: call.id,
    name: call.name,
    output,
    state: 'success',
    ...(metadata === undefined ? {} : { metadata }),
  };
}

/** External results for calls. */
export function external(
  replyId: string,
  results: ToolResultBlock[],
): ExternalExecutionResultEvent {
  return externalExecutionResultEvent({ replyId, executionResults: results });
}

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

/**
 * A concurrency-safe tool that asks (passthrough), with host rules: a rule's
 * content is a host, the suggestion is the call's host. A URL containing
 * `danger` gets a safety ask (`bypassImmune`).
 */
export function makeFetch(log: string[] = []): Tool<{ url: string }> {
  return tool({
    name: 'fetch',
    description: 'Fetch a URL.',
    input: z.object({ url: z.string() }),
    concurrencySafe: true,
    checkPermissions: ({ url }) =>
      url.includes('danger')
        ? { behavior: 'ask', message: `Dangerous URL ${url}`, bypassImmune: true }
        : { behavior: 'passthrough', message: '' },
    matchRule: (content, { url }) => new URL(url).host === content,
    suggestRules: ({ url }) => [
      { toolName: 'fetch', ruleContent: new URL(url).host, behavior: 'allow', source: 'suggested' },
    ],
    execute: async ({ url }) => {
      log.push(url);
      return `fetched ${url}`;
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

/** The rule that lets `deploy` go to external execution without asking first. */
export const allowDeploy = {
  toolName: 'deploy',
  ruleContent: null,
  behavior: 'allow',
  source: 'test',
} as const;

/** Whether a parked step goes on with the same agent or with one revived from JSON. */
export type Mode = 'same agent' | 'revived from JSON';
export const modes: Mode[] = ['same agent', 'revived from JSON'];

/** Builds an agent and a factory that rebuilds it from a JSON round trip of its state. */
export function setup(
  steps: ScriptedStep[],
  tools: AnyTool[],
  options: Partial<AgentOptions> = {},
  mode: Mode = 'same agent',
): {
  agent: Agent;
  model: ScriptedModel;
  revive: (agent: Agent) => Agent;
  /** The agent a parked step goes on with: the same, or a revived one (by `mode`). */
  resume: (agent: Agent) => Agent;
} {
  const model = options.model instanceof ScriptedModel ? options.model : new ScriptedModel(steps);
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
  const resume = (from: Agent): Agent => (mode === 'revived from JSON' ? revive(from) : from);
  return { agent, model, revive, resume };
}

type ErrorClass = abstract new (...args: never[]) => ParleyError;

/**
 * Sends `input` through both `reply` and `replyStream` and expects it to be
 * refused: a `ParleyError` of that class and code, a message saying what was
 * wrong, no event at all, and the state deep-equal to what it was.
 */
export async function expectRefused(
  agent: Agent,
  input: unknown,
  expected: { type: ErrorClass; code: string; message?: string | RegExp },
): Promise<ParleyError> {
  const before = structuredClone(agent.state);
  const beforeJson = snapshot(agent);
  const check = (error: unknown): ParleyError => {
    expect(error).toBeInstanceOf(ParleyError);
    expect(error).toBeInstanceOf(expected.type);
    const refused = error as ParleyError;
    expect(refused.code).toBe(expected.code);
    expect(refused.name).toBe(expected.type.name);
    if (typeof expected.message === 'string') expect(refused.message).toBe(expected.message);
    else if (expected.message !== undefined) expect(refused.message).toMatch(expected.message);
    expect(refused.message.length).toBeGreaterThan(0);
    expect(snapshot(agent)).toBe(beforeJson);
    expect(agent.state).toEqual(before);
    return refused;
  };
  const viaReply = await agent.reply(input as ReplyInput).then(
    (message) => ({ accepted: message }),
    (error: unknown) => error,
  );
  const first = check(viaReply);
  const seen: AgentEvent[] = [];
  const viaStream = await (async () => {
    for await (const event of agent.replyStream(input as ReplyInput)) seen.push(event);
    return { accepted: seen };
  })().catch((error: unknown) => error);
  check(viaStream);
  expect(seen).toEqual([]);
  return first;
}

/** A promise with its resolver, to let a test step in while a tool or a model runs. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/**
 * Replaces what differs between two runs of the same conversation (random ids,
 * clock times) by stable placeholders: each distinct id becomes `#n` in order
 * of first appearance, every time becomes `<time>`. Keys whose value is
 * `undefined` are dropped, as JSON would.
 */
export function normalize<T>(value: T): T {
  const ids = new Map<string, string>();
  const idKeys = new Set(['id', 'replyId', 'blockId', 'sessionId']);
  const walk = (item: unknown, key: string | undefined): unknown => {
    if (Array.isArray(item)) return item.map((entry) => walk(entry, undefined));
    if (typeof item === 'object' && item !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(item)) {
        if (v !== undefined) out[k] = walk(v, k);
      }
      return out;
    }
    if (typeof item === 'string' && key !== undefined) {
      if (key === 'createdAt' || key === 'parkedAt') return '<time>';
      if (idKeys.has(key)) {
        if (!ids.has(item)) ids.set(item, `#${ids.size}`);
        return ids.get(item);
      }
    }
    return item;
  };
  return walk(value, undefined) as T;
}
