import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { Agent } from '../src/agent/agent.js';
import type { AgentOptions } from '../src/agent/options.js';
import type { AgentState } from '../src/state/index.js';
import { parseAgentState } from '../src/state/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import type { ScriptedStep } from '../src/testing/index.js';
import { AskUser, Toolkit, tool } from '../src/tool/index.js';

/** An SDK tracer whose finished spans stay in memory, for tests. */
export function memoryTracing(): {
  exporter: InMemorySpanExporter;
  tracer: ReturnType<BasicTracerProvider['getTracer']>;
} {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('test') };
}

/**
 * The finished spans as an indented tree, one line per span (name, then its
 * children in start order); what a tracing tool would draw.
 */
export function renderTree(spans: readonly ReadableSpan[]): string[] {
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  const byStart = [...spans].sort((a, b) => compareTime(a.startTime, b.startTime));
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number): void => {
    for (const span of byStart) {
      const parentId = span.parentSpanContext?.spanId;
      const isChild =
        parent === undefined ? parentId === undefined || !ids.has(parentId) : parentId === parent;
      if (!isChild) continue;
      lines.push(`${'  '.repeat(depth)}${span.name}`);
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines;
}

function compareTime(a: readonly [number, number], b: readonly [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}

/** The one span with this name (fails loudly otherwise). */
export function only(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  if (found.length !== 1) throw new Error(`${found.length} spans named '${name}'`);
  const [span] = found;
  if (span === undefined) throw new Error(`no span named '${name}'`);
  return span;
}

/** A tool that asks before it runs (not read-only; calls in one turn ask together), recording what ran. */
export function writeTool(ran: string[], name = 'write_file') {
  return tool({
    name,
    description: 'Write a file.',
    input: z.object({ path: z.string() }),
    concurrencySafe: true,
    execute: ({ path }) => {
      ran.push(path);
      return `wrote ${path}`;
    },
  });
}

/** A tool run outside the agent: the reply parks until its result is sent in. */
export const deployTool = tool({
  name: 'deploy',
  description: 'Deploy a service (run by the caller).',
  input: z.object({ service: z.string() }),
  external: true,
});

/** Agents over one scripted model and a hand-moved clock, each from a JSON round trip of a state. */
export function scenario(
  steps: ScriptedStep[],
  extra: Partial<AgentOptions> = {},
): {
  make: (state?: AgentState) => Agent;
  advance: (ms: number) => void;
  exporter: InMemorySpanExporter;
  ran: string[];
} {
  let at = Date.parse('2030-01-01T00:00:00.000Z');
  const ran: string[] = [];
  const { exporter, tracer } = memoryTracing();
  const model = new ScriptedModel(steps);
  const make = (state?: AgentState): Agent =>
    new Agent({
      model,
      toolkit: new Toolkit([writeTool(ran), writeTool(ran, 'move_file'), AskUser, deployTool]),
      clock: () => new Date(at),
      telemetry: { tracer },
      ...extra,
      ...(state === undefined ? {} : { state: roundTrip(state) }),
    });
  return { make, advance: (ms) => (at += ms), exporter, ran };
}

/** A state after a JSON round trip, as another process would read it from a store. */
export function roundTrip(state: AgentState): AgentState {
  const text = JSON.stringify(state);
  return parseAgentState(JSON.parse(text));
}
