import { describe, expect, it } from 'vitest';
import { Agent } from '../agent/agent.js';
import { userConfirmResultEvent } from '../index.js';
import type { ToolCallBlock } from '../message/index.js';
import { ScriptedModel } from '../testing/index.js';
import { Toolkit } from '../tool/index.js';
import { traceAttributes as attr, fromTraceParent, toTraceParent } from './index.js';
import { memoryTracing, only, roundTrip, scenario, writeTool } from '../../test/trace-fixtures.js';

const steps = () => [
  { toolCalls: [{ id: 'tc1', name: 'write_file', input: { path: 'secret.txt' } }] },
  { text: 'written' },
];

function firstCall(content: unknown): ToolCallBlock {
  const found = Array.isArray(content)
    ? content.find(
        (block): block is ToolCallBlock =>
          typeof block === 'object' &&
          block !== null &&
          'type' in block &&
          block.type === 'tool_call',
      )
    : undefined;
  if (found === undefined) throw new Error('no tool call');
  return found;
}

async function confirmRun() {
  const { make, exporter } = scenario(steps());
  const first = make();
  await first.reply('write it');
  const call = firstCall(first.state.context.at(-1)?.content);
  const resumedAgent = make(first.state);
  return { exporter, first, call, resumedAgent };
}

describe('content on spans', () => {
  it('is left off by default: no tool input, result or model output', async () => {
    const { exporter, first, call, resumedAgent } = await confirmRun();
    await resumedAgent.reply(
      userConfirmResultEvent({
        replyId: first.state.reply?.replyId ?? '',
        confirmResults: [{ confirmed: true, toolCall: call }],
      }),
    );
    const spans = exporter.getFinishedSpans();
    const tool = only(spans, 'execute_tool write_file');
    expect(tool.attributes[attr.toolArguments]).toBeUndefined();
    expect(tool.attributes[attr.toolResult]).toBeUndefined();
    for (const span of spans) expect(JSON.stringify(span.attributes)).not.toContain('secret.txt');
  });

  it('is put on spans with captureContent: true', async () => {
    const { exporter, tracer } = memoryTracing();
    const ran: string[] = [];
    const options = {
      model: new ScriptedModel(steps()),
      toolkit: new Toolkit([writeTool(ran)]),
      telemetry: { tracer, captureContent: true },
    };
    const first = new Agent(options);
    await first.reply('write it');
    const call = firstCall(first.state.context.at(-1)?.content);
    const second = new Agent({ ...options, state: roundTrip(first.state) });
    await second.reply(
      userConfirmResultEvent({
        replyId: first.state.reply?.replyId ?? '',
        confirmResults: [{ confirmed: true, toolCall: call }],
      }),
    );
    const spans = exporter.getFinishedSpans();
    const tool = only(spans, 'execute_tool write_file');
    expect(tool.attributes[attr.toolArguments]).toBe('{"path":"secret.txt"}');
    expect(tool.attributes[attr.toolResult]).toBe('wrote secret.txt');
    const chats = spans.filter((span) => span.name === 'chat scripted');
    expect(chats.map((span) => span.attributes[attr.outputMessages])).toContain(
      JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'written' }] }]),
    );
  });
});

describe('the parked span context in the state', () => {
  it('is not written when no SDK records spans, and the reply runs the same', async () => {
    const ran: string[] = [];
    const agent = new Agent({
      model: new ScriptedModel(steps()),
      toolkit: new Toolkit([writeTool(ran)]),
    });
    await agent.reply('write it');
    expect(agent.state.reply?.status).toBe('parked');
    expect(agent.state.reply?.traceParent).toBeUndefined();
  });

  it('a state written before it (no traceParent) resumes without a link', async () => {
    const { make, exporter } = scenario(steps());
    const first = make();
    await first.reply('write it');
    const { reply } = first.state;
    if (reply === null) throw new Error('not parked');
    delete reply.traceParent;
    exporter.reset();
    const call = firstCall(first.state.context.at(-1)?.content);
    await make(first.state).reply(
      userConfirmResultEvent({
        replyId: reply.replyId,
        confirmResults: [{ confirmed: true, toolCall: call }],
      }),
    );
    const resumed = only(exporter.getFinishedSpans(), 'invoke_agent assistant');
    expect(resumed.links).toStrictEqual([]);
    expect(resumed.attributes[attr.answer]).toBe('confirm');
  });

  it('a traceParent that is not one loses the link, never the resume', () => {
    expect(fromTraceParent('garbage')).toBeUndefined();
    expect(fromTraceParent(`00-${'0'.repeat(32)}-${'1'.repeat(16)}-01`)).toBeUndefined();
    const context = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 };
    expect(fromTraceParent(toTraceParent(context))).toStrictEqual({ ...context, isRemote: true });
  });
});
