import { afterEach, describe, expect, it } from 'vitest';
import { metrics } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { DataPoint, Histogram } from '@opentelemetry/sdk-metrics';
import type { ToolCallBlock } from '../message/index.js';
import type { AgentState } from '../state/index.js';
import type { PermissionDecision } from '../permission/index.js';
import {
  externalExecutionResultEvent,
  askUserResult,
  userConfirmResultEvent,
  userInterruptEvent,
} from '../index.js';
import { metricNames, reasonKind, traceAttributes as attr } from './index.js';
import { scenario } from '../../test/trace-fixtures.js';

/** A reader the test pulls from (no export, no timer). */
class PullReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

function memoryMeter() {
  const reader = new PullReader();
  const provider = new MeterProvider({ readers: [reader] });
  return { reader, provider, meter: provider.getMeter('test') };
}

/** The data points of one metric, as `{ attributes, value }`. */
async function points(reader: MetricReader, name: string): Promise<DataPoint<unknown>[]> {
  const { resourceMetrics } = await reader.collect();
  const metric = resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .find((found) => found.descriptor.name === name);
  return metric?.dataPoints ?? [];
}

/** Counter totals keyed by the values of `keys`, joined by `/`. */
async function counts(reader: MetricReader, name: string, keys: string[]) {
  const totals: Record<string, number> = {};
  for (const point of await points(reader, name)) {
    const key = keys.map((k) => String(point.attributes[k])).join('/');
    totals[key] = (totals[key] ?? 0) + Number(point.value);
  }
  return totals;
}

const write = (id: string, path: string, name = 'write_file') => ({ id, name, input: { path } });

function asking(state: AgentState): ToolCallBlock[] {
  const content = state.context.at(-1)?.content;
  if (content === undefined || typeof content === 'string') return [];
  return content.filter(
    (block): block is ToolCallBlock => block.type === 'tool_call' && block.state === 'asking',
  );
}

function calls(state: AgentState): ToolCallBlock[] {
  const content = state.context.at(-1)?.content;
  if (content === undefined || typeof content === 'string') return [];
  return content.filter((block): block is ToolCallBlock => block.type === 'tool_call');
}

afterEach(() => {
  metrics.disable();
});

describe('reply metrics', () => {
  it('confirm, edit and deny: one answer per call by outcome, one parked time per resume, decisions by reason kind', async () => {
    const { reader, meter } = memoryMeter();
    const { make } = scenario(
      [{ toolCalls: [write('tc1', 'a.txt'), write('tc2', 'b.txt', 'move_file')] }, { text: 'ok' }],
      { telemetry: { meter } },
    );
    const agent = make();
    await agent.reply('write both');
    const [first, second] = asking(agent.state);
    if (first === undefined || second === undefined) throw new Error('two calls should ask');
    await make(agent.state).reply(
      userConfirmResultEvent({
        replyId: agent.state.reply?.replyId ?? '',
        confirmResults: [
          { confirmed: true, toolCall: { ...first, input: JSON.stringify({ path: 'c.txt' }) } },
          { confirmed: false, toolCall: second },
        ],
      }),
    );
    expect(await counts(reader, metricNames.answers, [metricNames.outcome])).toStrictEqual({
      edited: 1,
      denied: 1,
    });
    const parked = await points(reader, metricNames.parkedDuration);
    expect(parked).toHaveLength(1);
    expect(parked[0]?.attributes).toStrictEqual({
      [attr.agentName]: 'assistant',
      [attr.resumeKind]: 'confirm',
    });
    const histogram = parked[0]?.value as Histogram;
    expect(histogram.count).toBe(1);
    expect(histogram.sum).toBeGreaterThanOrEqual(0);
    expect(
      await counts(reader, metricNames.permissionDecisions, [
        attr.toolName,
        attr.permissionBehavior,
        metricNames.reasonKind,
      ]),
    ).toStrictEqual({
      'write_file/ask/other': 1,
      'move_file/ask/other': 1,
      'write_file/allow/user': 1,
    });
  });

  it('external, interrupt and expiry count as such; a new reply records no answer', async () => {
    const { reader, meter } = memoryMeter();
    const question = {
      question: 'Which?',
      header: 'Pick',
      options: [
        { label: 'A', description: 'a' },
        { label: 'B', description: 'b' },
      ],
    };
    const external = scenario(
      [{ toolCalls: [{ id: 'q1', name: 'AskUser', input: { questions: [question] } }] }, {}],
      { telemetry: { meter } },
    );
    const asker = external.make();
    await asker.reply('ask me');
    expect(await points(reader, metricNames.answers)).toStrictEqual([]);
    const [call] = calls(asker.state);
    if (call === undefined) throw new Error('AskUser should be called');
    await external.make(asker.state).reply(
      externalExecutionResultEvent({
        replyId: asker.state.reply?.replyId ?? '',
        executionResults: [
          askUserResult(call, [{ question: 'Which?', selected: ['A'], other: null }]),
        ],
      }),
    );

    const interrupted = scenario([{ toolCalls: [write('tc1', 'a.txt')] }], {
      telemetry: { meter },
    });
    const one = interrupted.make();
    await one.reply('write a.txt');
    await interrupted
      .make(one.state)
      .reply(userInterruptEvent({ replyId: one.state.reply?.replyId ?? '' }));

    const expiring = scenario([{ toolCalls: [write('tc1', 'a.txt')] }, { text: 'no' }], {
      telemetry: { meter },
      parkTimeout: 1_000,
    });
    const two = expiring.make();
    await two.reply('write a.txt');
    expiring.advance(1_000);
    await expiring.make(two.state).reply();

    expect(await counts(reader, metricNames.answers, [metricNames.outcome])).toStrictEqual({
      external: 1,
      interrupted: 1,
      expired: 1,
    });
    const kinds = (await points(reader, metricNames.parkedDuration)).map(
      (point) => point.attributes[attr.resumeKind],
    );
    expect(kinds.sort()).toStrictEqual(['expire', 'external', 'interrupt']);
  });

  it('without a meter, records through the global provider, even one installed after the agent was built', async () => {
    const { make } = scenario([{ toolCalls: [write('tc1', 'a.txt')] }]);
    const agent = make();
    await agent.reply('write a.txt'); // the no-op provider: nothing to see, nothing thrown
    const { reader, provider } = memoryMeter();
    metrics.setGlobalMeterProvider(provider);
    await make(agent.state).reply(
      userInterruptEvent({ replyId: agent.state.reply?.replyId ?? '' }),
    );
    expect(await counts(reader, metricNames.answers, [metricNames.outcome])).toStrictEqual({
      interrupted: 1,
    });
  });

  it('reason kinds: rule, user, read-only, mode, error, other', () => {
    const decision = (fields: Partial<PermissionDecision>): PermissionDecision => ({
      behavior: 'allow',
      message: '',
      ...fields,
    });
    const rule = {
      toolName: 'write_file',
      ruleContent: null,
      behavior: 'deny' as const,
      source: 'user' as const,
    };
    expect(reasonKind(decision({ matchedRule: rule }), true)).toBe('rule');
    expect(reasonKind(decision({}), true)).toBe('user');
    expect(reasonKind(decision({ decisionReason: 'read-only' }), false)).toBe('read_only');
    expect(reasonKind(decision({ decisionReason: 'mode: bypass' }), false)).toBe('mode');
    expect(reasonKind(new Error('boom'), false)).toBe('error');
    expect(reasonKind(decision({ decisionReason: 'the tool said so' }), false)).toBe('other');
  });
});
