// The whole span tree of each seed scenario, parked run and resumed run
// each, as a tracing tool would draw it; and the link from a resume to its
// park kept across two `Sessions` over one store, each with its own SDK
// (two processes, as far as tracing can tell).
import { describe, expect, it } from 'vitest';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { ToolCallBlock } from '../message/index.js';
import type { AgentState } from '../state/index.js';
import {
  Toolkit,
  askUserResult,
  externalExecutionResultEvent,
  userConfirmResultEvent,
  userInterruptEvent,
} from '../index.js';
import { ScriptedModel } from '../testing/index.js';
import { InMemorySessionStore } from '../session/in-memory-session-store.js';
import { Sessions } from '../session/runner/sessions.js';
import { PARKED_EVENT, traceAttributes as attr } from './index.js';
import { memoryTracing, only, renderTree, scenario, writeTool } from '../../test/trace-fixtures.js';

const write = (id: string, path: string) => ({ id, name: 'write_file', input: { path } });

function lastCalls(state: AgentState, asking = true): ToolCallBlock[] {
  const content = state.context.at(-1)?.content;
  if (content === undefined || typeof content === 'string') return [];
  return content.filter(
    (block): block is ToolCallBlock =>
      block.type === 'tool_call' && (!asking || block.state === 'asking'),
  );
}

function first<T>(items: readonly T[]): T {
  const [item] = items;
  if (item === undefined) throw new Error('nothing there');
  return item;
}

/** The parked run's root span: it carries the parked event and its context is in the state. */
function expectParked(spans: readonly ReadableSpan[], state: AgentState): ReadableSpan {
  const parked = only(spans, 'invoke_agent assistant');
  expect(parked.events.map((event) => event.name)).toStrictEqual([PARKED_EVENT]);
  expect(parked.attributes[attr.replyStatus]).toBe('parked');
  const { traceId, spanId } = parked.spanContext();
  expect(state.reply?.traceParent).toBe(`00-${traceId}-${spanId}-01`);
  return parked;
}

/** The resumed run's root span: a new trace root, linked (not parented) to the parked one. */
function expectLinked(spans: readonly ReadableSpan[], parked: ReadableSpan): ReadableSpan {
  const resumed = only(spans, 'invoke_agent assistant');
  expect(resumed.parentSpanContext).toBeUndefined();
  expect(resumed.spanContext().traceId).not.toBe(parked.spanContext().traceId);
  expect(resumed.links.map((link) => link.context.spanId)).toStrictEqual([
    parked.spanContext().spanId,
  ]);
  return resumed;
}

describe('span trees of the seed scenarios', () => {
  it('deny: the denied call still gets its execute_tool span, in state denied, then the model is told', async () => {
    const { make, exporter, ran } = scenario([
      { toolCalls: [write('tc1', 'a.txt')] },
      { text: 'left alone' },
    ]);
    const agent = make();
    await agent.reply('write a.txt');
    const parked = expectParked(exporter.getFinishedSpans(), agent.state);
    exporter.reset();
    await make(agent.state).reply(
      userConfirmResultEvent({
        replyId: agent.state.reply?.replyId ?? '',
        confirmResults: [{ confirmed: false, toolCall: first(lastCalls(agent.state)) }],
      }),
    );
    const spans = exporter.getFinishedSpans();
    expect(renderTree(spans)).toStrictEqual([
      'invoke_agent assistant',
      '  execute_tool write_file',
      '  chat scripted',
    ]);
    const resumed = expectLinked(spans, parked);
    expect(resumed.attributes).toMatchObject({
      [attr.answer]: 'deny',
      [attr.finishedReason]: 'completed',
    });
    expect(only(spans, 'execute_tool write_file').attributes[attr.toolState]).toBe('denied');
    expect(ran).toStrictEqual([]);
  });

  it('edit: the edited call is checked again, then runs with the new input', async () => {
    const { make, exporter, ran } = scenario([
      { toolCalls: [write('tc1', 'a.txt')] },
      { text: 'written' },
    ]);
    const agent = make();
    await agent.reply('write a.txt');
    const parked = expectParked(exporter.getFinishedSpans(), agent.state);
    exporter.reset();
    const call = first(lastCalls(agent.state));
    await make(agent.state).reply(
      userConfirmResultEvent({
        replyId: agent.state.reply?.replyId ?? '',
        confirmResults: [
          { confirmed: true, toolCall: { ...call, input: JSON.stringify({ path: 'b.txt' }) } },
        ],
      }),
    );
    const spans = exporter.getFinishedSpans();
    expect(renderTree(spans)).toStrictEqual([
      'invoke_agent assistant',
      '  check_permission write_file',
      '  execute_tool write_file',
      '  chat scripted',
    ]);
    expect(expectLinked(spans, parked).attributes[attr.answer]).toBe('edit');
    expect(ran).toStrictEqual(['b.txt']);
  });

  it('external: confirmed, the call parks again to run outside; its result resumes with a link to that park', async () => {
    const { make, exporter } = scenario([
      { toolCalls: [{ id: 'd1', name: 'deploy', input: { service: 'api' } }] },
      { text: 'deployed' },
    ]);
    const agent = make();
    await agent.reply('deploy the api');
    const asked = expectParked(exporter.getFinishedSpans(), agent.state);
    expect(
      only(exporter.getFinishedSpans(), 'check_permission deploy').attributes[
        attr.permissionBehavior
      ],
    ).toBe('ask');
    exporter.reset();
    const confirming = make(agent.state);
    await confirming.reply(
      userConfirmResultEvent({
        replyId: agent.state.reply?.replyId ?? '',
        confirmResults: [{ confirmed: true, toolCall: first(lastCalls(agent.state)) }],
      }),
      { approver: 'ada' },
    );
    const waitingSpans = exporter.getFinishedSpans();
    // The call's span opens as it is handed out and ends with the park,
    // with no result state: the result comes from outside.
    expect(renderTree(waitingSpans)).toStrictEqual([
      'invoke_agent assistant',
      '  check_permission deploy',
      '  execute_tool deploy',
    ]);
    expect(only(waitingSpans, 'execute_tool deploy').attributes[attr.toolState]).toBeUndefined();
    expect(only(waitingSpans, 'check_permission deploy').attributes).toMatchObject({
      [attr.permissionBehavior]: 'allow',
      [attr.confirmedByUser]: true,
    });
    const waiting = expectLinked(waitingSpans, asked);
    expectParked(waitingSpans, confirming.state);

    const call = first(lastCalls(confirming.state, false));
    exporter.reset();
    await make(confirming.state).reply(
      externalExecutionResultEvent({
        replyId: confirming.state.reply?.replyId ?? '',
        executionResults: [
          {
            type: 'tool_result',
            id: call.id,
            name: call.name,
            output: [{ type: 'text', text: 'deployed v2' }],
            state: 'success',
          },
        ],
      }),
      { approver: 'ops-bot' },
    );
    const spans = exporter.getFinishedSpans();
    expect(renderTree(spans)).toStrictEqual(['invoke_agent assistant', '  chat scripted']);
    const resumed = expectLinked(spans, waiting);
    expect(resumed.links[0]?.attributes).toMatchObject({
      [attr.resumeKind]: 'external',
      [attr.answer]: 'external',
      [attr.approver]: 'ops-bot',
    });
    expect(resumed.attributes[attr.finishedReason]).toBe('completed');
  });

  it('AskUser: asked through an external call; the answer resumes the reply', async () => {
    const question = {
      question: 'Which?',
      header: 'Pick',
      options: [
        { label: 'A', description: 'a' },
        { label: 'B', description: 'b' },
      ],
    };
    const { make, exporter } = scenario([
      { toolCalls: [{ id: 'q1', name: 'AskUser', input: { questions: [question] } }] },
      { text: 'A it is' },
    ]);
    const agent = make();
    await agent.reply('ask me');
    const parkedSpans = exporter.getFinishedSpans();
    expect(renderTree(parkedSpans)).toStrictEqual([
      'invoke_agent assistant',
      '  chat scripted',
      '  check_permission AskUser',
      '  execute_tool AskUser',
    ]);
    const parked = expectParked(parkedSpans, agent.state);
    const call = first(lastCalls(agent.state, false));
    exporter.reset();
    await make(agent.state).reply(
      externalExecutionResultEvent({
        replyId: agent.state.reply?.replyId ?? '',
        executionResults: [
          askUserResult(call, [{ question: 'Which?', selected: ['A'], other: null }]),
        ],
      }),
    );
    const spans = exporter.getFinishedSpans();
    expect(renderTree(spans)).toStrictEqual(['invoke_agent assistant', '  chat scripted']);
    expect(expectLinked(spans, parked).attributes[attr.answer]).toBe('external');
  });

  it('partial answers: the answered call runs, the run parks again for the other, and each park links on', async () => {
    const { make, exporter, ran } = scenario([
      { toolCalls: [write('tc1', 'a.txt'), { ...write('tc2', 'b.txt'), name: 'move_file' }] },
      { text: 'both done' },
    ]);
    const agent = make();
    await agent.reply('write both');
    const parked = expectParked(exporter.getFinishedSpans(), agent.state);
    expect(renderTree(exporter.getFinishedSpans())).toStrictEqual([
      'invoke_agent assistant',
      '  chat scripted',
      '  check_permission write_file',
      '  check_permission move_file',
    ]);
    exporter.reset();
    const second = make(agent.state);
    const [writeCall] = lastCalls(agent.state);
    await second.reply(
      userConfirmResultEvent({
        replyId: agent.state.reply?.replyId ?? '',
        confirmResults: [{ confirmed: true, toolCall: writeCall ?? first([]) }],
      }),
    );
    const again = exporter.getFinishedSpans();
    const middle = expectLinked(again, parked);
    expect(middle.attributes[attr.answer]).toBe('confirm,partial');
    expect(second.state.reply?.status).toBe('parked');
    expect(renderTree(again)[0]).toBe('invoke_agent assistant');
    expectParked(again, second.state);
    expect(ran).toStrictEqual(['a.txt']);

    exporter.reset();
    const moveCall = first(lastCalls(second.state));
    expect(moveCall.name).toBe('move_file');
    await make(second.state).reply(
      userConfirmResultEvent({
        replyId: second.state.reply?.replyId ?? '',
        confirmResults: [{ confirmed: true, toolCall: moveCall }],
      }),
    );
    const last = exporter.getFinishedSpans();
    const end = expectLinked(last, middle);
    expect(end.attributes).toMatchObject({
      [attr.answer]: 'confirm',
      [attr.finishedReason]: 'completed',
    });
    expect(ran).toStrictEqual(['a.txt', 'b.txt']);
  });

  it('interrupt: the resumed run closes the asking call and ends interrupted, with no model call', async () => {
    const { make, exporter } = scenario([{ toolCalls: [write('tc1', 'a.txt')] }]);
    const agent = make();
    await agent.reply('write a.txt');
    const parked = expectParked(exporter.getFinishedSpans(), agent.state);
    exporter.reset();
    await make(agent.state).reply(
      userInterruptEvent({ replyId: agent.state.reply?.replyId ?? '' }),
      { approver: 'ada' },
    );
    const spans = exporter.getFinishedSpans();
    expect(renderTree(spans)).toStrictEqual([
      'invoke_agent assistant',
      '  execute_tool write_file',
    ]);
    const resumed = expectLinked(spans, parked);
    expect(resumed.links[0]?.attributes).toMatchObject({
      [attr.resumeKind]: 'interrupt',
      [attr.approver]: 'ada',
    });
  });

  it('expiry: the settling run links with the wait, denies the call and tells the model', async () => {
    const { make, exporter, advance, ran } = scenario(
      [{ toolCalls: [write('tc1', 'a.txt')] }, { text: 'not written' }],
      { parkTimeout: 1_000 },
    );
    const agent = make();
    await agent.reply('write a.txt');
    const parked = expectParked(exporter.getFinishedSpans(), agent.state);
    advance(1_000);
    exporter.reset();
    await make(agent.state).reply();
    const spans = exporter.getFinishedSpans();
    expect(renderTree(spans)).toStrictEqual([
      'invoke_agent assistant',
      '  execute_tool write_file',
      '  chat scripted',
    ]);
    const resumed = expectLinked(spans, parked);
    expect(resumed.links[0]?.attributes).toMatchObject({
      [attr.resumeKind]: 'expire',
      [attr.answer]: 'expire:deny',
    });
    expect(only(spans, 'execute_tool write_file').attributes[attr.toolState]).toBe('denied');
    expect(ran).toStrictEqual([]);
  });
});

describe('the link across two Sessions over one store', () => {
  it('a resume on another runner, with its own SDK, links to the span the first one parked', async () => {
    const store = new InMemorySessionStore();
    const ran: string[] = [];
    const model = new ScriptedModel([{ toolCalls: [write('tc1', 'a.txt')] }, { text: 'done' }]);
    const toolkit = new Toolkit([writeTool(ran)]);
    const one = memoryTracing();
    const two = memoryTracing();
    const agent = (tracer: typeof one.tracer) => ({
      name: 'assistant',
      model,
      toolkit,
      telemetry: { tracer },
    });
    await new Sessions({ store, agent: agent(one.tracer) }).reply('s1', 'write a.txt');
    const stored = (await store.load('s1'))?.state;
    if (stored === undefined) throw new Error('not stored');
    const parked = expectParked(one.exporter.getFinishedSpans(), stored);

    const other = new Sessions({ store, agent: agent(two.tracer) });
    await other.reply(
      's1',
      userConfirmResultEvent({
        replyId: stored.reply?.replyId ?? '',
        confirmResults: [{ confirmed: true, toolCall: first(lastCalls(stored)) }],
      }),
      { approver: 'ada' },
    );
    const spans = two.exporter.getFinishedSpans();
    const resumed = expectLinked(spans, parked);
    expect(resumed.links[0]?.attributes).toMatchObject({
      [attr.approver]: 'ada',
      [attr.answer]: 'confirm',
      [attr.waitSeconds]: expect.any(Number),
    });
    expect(resumed.attributes[attr.conversationId]).toBe('s1');
    expect(renderTree(spans)).toStrictEqual([
      'invoke_agent assistant',
      '  check_permission write_file',
      '  execute_tool write_file',
      '  chat scripted',
    ]);
    expect(one.exporter.getFinishedSpans().map((span) => span.name)).not.toContain(
      'execute_tool write_file',
    );
    expect(ran).toStrictEqual(['a.txt']);
  });
});
