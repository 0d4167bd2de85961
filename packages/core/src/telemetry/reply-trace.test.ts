import { describe, expect, it } from 'vitest';
import type { ToolCallBlock } from '../message/index.js';
import {
  askUserResult,
  externalExecutionResultEvent,
  userConfirmResultEvent,
  userInterruptEvent,
} from '../index.js';
import { PARKED_EVENT, traceAttributes as attr } from './index.js';
import { only, renderTree, scenario } from '../../test/trace-fixtures.js';

const write = (id: string, path: string) => ({ id, name: 'write_file', input: { path } });

function asking(calls: readonly ToolCallBlock[] | undefined, index = 0): ToolCallBlock {
  const call = calls?.[index];
  if (call === undefined) throw new Error('no call asked');
  return call;
}

function parkedCalls(state: { context: { content: unknown }[] }): ToolCallBlock[] {
  const last = state.context.at(-1)?.content;
  if (!Array.isArray(last)) return [];
  return last.filter(
    (block): block is ToolCallBlock =>
      typeof block === 'object' && block !== null && 'type' in block && block.type === 'tool_call',
  );
}

describe('reply spans', () => {
  it('a reply that ends: invoke_agent over chat, with GenAI attributes', async () => {
    const { make, exporter } = scenario([{ text: 'hello' }]);
    const agent = make();
    await agent.reply('hi');
    const spans = exporter.getFinishedSpans();
    expect(renderTree(spans)).toStrictEqual(['invoke_agent assistant', '  chat scripted']);
    const reply = only(spans, 'invoke_agent assistant');
    expect(reply.attributes).toMatchObject({
      [attr.operation]: 'invoke_agent',
      [attr.agentName]: 'assistant',
      [attr.conversationId]: agent.state.sessionId,
      [attr.finishedReason]: 'completed',
    });
    const chat = only(spans, 'chat scripted');
    expect(chat.attributes).toMatchObject({
      [attr.operation]: 'chat',
      [attr.requestModel]: 'scripted',
      [attr.inputTokens]: expect.any(Number),
      [attr.outputTokens]: expect.any(Number),
    });
    expect(chat.attributes[attr.outputMessages]).toBeUndefined();
  });

  it('confirm: the parked span ends with parley.reply.parked; the resume links to it across a JSON round trip', async () => {
    const { make, exporter, ran } = scenario([
      { toolCalls: [write('tc1', 'a.txt')] },
      { text: 'done' },
    ]);
    const first = make();
    await first.reply('write a.txt');
    const parkedSpans = exporter.getFinishedSpans();
    expect(renderTree(parkedSpans)).toStrictEqual([
      'invoke_agent assistant',
      '  chat scripted',
      '  check_permission write_file',
    ]);
    const parked = only(parkedSpans, 'invoke_agent assistant');
    expect(parked.events.map((event) => event.name)).toStrictEqual([PARKED_EVENT]);
    expect(parked.attributes[attr.replyStatus]).toBe('parked');
    expect(only(parkedSpans, 'check_permission write_file').attributes).toMatchObject({
      [attr.permissionBehavior]: 'ask',
      [attr.permissionMode]: 'default',
      [attr.confirmedByUser]: false,
      [attr.toolCallId]: 'tc1',
    });
    const { traceId, spanId } = parked.spanContext();
    expect(first.state.reply?.traceParent).toBe(`00-${traceId}-${spanId}-01`);

    exporter.reset();
    const second = make(first.state);
    const call = asking(parkedCalls(first.state));
    await second.reply(
      userConfirmResultEvent({
        replyId: first.state.reply?.replyId ?? '',
        confirmResults: [{ confirmed: true, toolCall: call }],
      }),
      { approver: 'ada' },
    );
    expect(ran).toStrictEqual(['a.txt']);
    const spans = exporter.getFinishedSpans();
    expect(renderTree(spans)).toStrictEqual([
      'invoke_agent assistant',
      '  check_permission write_file',
      '  execute_tool write_file',
      '  chat scripted',
    ]);
    const resumed = only(spans, 'invoke_agent assistant');
    expect(resumed.parentSpanContext).toBeUndefined();
    expect(resumed.links).toHaveLength(1);
    expect(resumed.links[0]?.context).toMatchObject({ traceId, spanId });
    expect(resumed.links[0]?.attributes).toMatchObject({
      [attr.approver]: 'ada',
      [attr.answer]: 'confirm',
      [attr.resumeKind]: 'confirm',
      [attr.waitSeconds]: expect.any(Number),
    });
    expect(resumed.attributes[attr.finishedReason]).toBe('completed');
    expect(only(spans, 'check_permission write_file').attributes).toMatchObject({
      [attr.permissionBehavior]: 'allow',
      [attr.confirmedByUser]: true,
    });
    expect(only(spans, 'execute_tool write_file').attributes).toMatchObject({
      [attr.operation]: 'execute_tool',
      [attr.toolName]: 'write_file',
      [attr.toolCallId]: 'tc1',
      [attr.toolState]: 'success',
    });
    expect(second.state.reply).toBeNull();
  });

  it.each([
    ['deny', false, undefined, 'denied'],
    ['edit', true, 'b.txt', 'success'],
  ] as const)('%s: the answer and the tool span say so', async (answer, confirmed, path, state) => {
    const { make, exporter, ran } = scenario([
      { toolCalls: [write('tc1', 'a.txt')] },
      { text: 'ok' },
    ]);
    const first = make();
    await first.reply('write a.txt');
    const call = asking(parkedCalls(first.state));
    const toolCall = path === undefined ? call : { ...call, input: JSON.stringify({ path }) };
    exporter.reset();
    await make(first.state).reply(
      userConfirmResultEvent({
        replyId: first.state.reply?.replyId ?? '',
        confirmResults: [{ confirmed, toolCall }],
      }),
    );
    const spans = exporter.getFinishedSpans();
    const resumed = only(spans, 'invoke_agent assistant');
    expect(resumed.links[0]?.attributes?.[attr.answer]).toBe(answer);
    expect(resumed.links[0]?.attributes?.[attr.approver]).toBeUndefined();
    expect(only(spans, 'execute_tool write_file').attributes[attr.toolState]).toBe(state);
    expect(ran).toStrictEqual(path === undefined ? [] : [path]);
  });

  it('partial answers: the answer names what was answered and that some were not', async () => {
    const { make, exporter } = scenario([
      { toolCalls: [write('tc1', 'a.txt'), { ...write('tc2', 'b.txt'), name: 'move_file' }] },
      { text: 'ok' },
    ]);
    const first = make();
    await first.reply('write both');
    const call = asking(parkedCalls(first.state));
    exporter.reset();
    await make(first.state).reply(
      userConfirmResultEvent({
        replyId: first.state.reply?.replyId ?? '',
        confirmResults: [{ confirmed: true, toolCall: call }],
      }),
    );
    const resumed = exporter
      .getFinishedSpans()
      .filter((span) => span.name === 'invoke_agent assistant');
    expect(resumed[0]?.links[0]?.attributes?.[attr.answer]).toBe('confirm,partial');
  });

  it('external (AskUser): the call waits outside; the answer resumes with a link', async () => {
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
      { text: 'thanks' },
    ]);
    const first = make();
    await first.reply('ask me');
    expect(first.state.reply?.traceParent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const call = asking(parkedCalls(first.state));
    exporter.reset();
    await make(first.state).reply(
      externalExecutionResultEvent({
        replyId: first.state.reply?.replyId ?? '',
        executionResults: [
          askUserResult(call, [{ question: 'Which?', selected: ['A'], other: null }]),
        ],
      }),
    );
    const resumed = only(exporter.getFinishedSpans(), 'invoke_agent assistant');
    expect(resumed.links[0]?.attributes).toMatchObject({
      [attr.answer]: 'external',
      [attr.resumeKind]: 'external',
    });
    expect(resumed.attributes[attr.finishedReason]).toBe('completed');
  });

  it('interrupt: the resumed span links to the parked one and ends interrupted', async () => {
    const { make, exporter } = scenario([{ toolCalls: [write('tc1', 'a.txt')] }]);
    const first = make();
    await first.reply('write a.txt');
    exporter.reset();
    await make(first.state).reply(
      userInterruptEvent({ replyId: first.state.reply?.replyId ?? '' }),
    );
    const spans = exporter.getFinishedSpans();
    expect(renderTree(spans)).toStrictEqual([
      'invoke_agent assistant',
      '  execute_tool write_file',
    ]);
    const resumed = only(spans, 'invoke_agent assistant');
    expect(resumed.links[0]?.attributes?.[attr.answer]).toBe('interrupt');
    expect(resumed.attributes[attr.finishedReason]).toBe('interrupted');
    expect(only(spans, 'execute_tool write_file').attributes[attr.toolState]).toBe('interrupted');
  });

  it('expiry: the run that settles an expired park links to it', async () => {
    const { make, exporter, advance } = scenario(
      [{ toolCalls: [write('tc1', 'a.txt')] }, { text: 'not written' }],
      { parkTimeout: 1_000 },
    );
    const first = make();
    await first.reply('write a.txt');
    advance(1_000);
    exporter.reset();
    await make(first.state).reply();
    const resumed = only(exporter.getFinishedSpans(), 'invoke_agent assistant');
    expect(resumed.links[0]?.attributes).toMatchObject({
      [attr.resumeKind]: 'expire',
      [attr.answer]: 'expire:deny',
    });
  });
});
