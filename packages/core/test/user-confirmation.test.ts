import { describe, expect, it } from 'vitest';
import { textOf, userConfirmResultEvent } from '../src/index.js';
import type { ToolResultBlock } from '../src/index.js';
import { collect, makeWriteNote, ofType, setup, types } from './support.js';

const writeCall = {
  id: 'tc1',
  name: 'write_note',
  input: { path: 'notes/a.txt', content: 'hello' },
};

describe('user confirmation (SPEC 1, 3, 5)', () => {
  it('parks with REQUIRE_USER_CONFIRM carrying a suggested rule, and no REPLY_END', async () => {
    const { agent } = setup([{ toolCalls: [writeCall] }, { text: 'done' }], [makeWriteNote()]);
    const events = await collect(agent.replyStream('Write a note'));
    expect(types(events)).toEqual([
      'REPLY_START',
      'MODEL_CALL_START',
      'TOOL_CALL_START',
      'TOOL_CALL_DELTA',
      'TOOL_CALL_END',
      'MODEL_CALL_END',
      'REQUIRE_USER_CONFIRM',
    ]);
    const [ask] = ofType(events, 'REQUIRE_USER_CONFIRM');
    const replyId = ofType(events, 'REPLY_START')[0]?.replyId;
    expect(ask?.replyId).toBe(replyId);
    expect(ask?.toolCalls).toHaveLength(1);
    expect(ask?.toolCalls[0]).toMatchObject({ id: 'tc1', name: 'write_note', state: 'asking' });
    expect(ask?.toolCalls[0]?.suggestedRules).toEqual([
      { toolName: 'write_note', ruleContent: null, behavior: 'allow', source: 'suggested' },
    ]);
    expect(agent.state.reply?.status).toBe('parked');
  });

  it('reply() resolves to the waiting notice with finishedReason null and id = replyId', async () => {
    const { agent } = setup([{ toolCalls: [writeCall] }], [makeWriteNote()]);
    const notice = await agent.reply('Write a note');
    expect(textOf(notice)).toBe(
      "I'm waiting for your permission or the external execution to finish.",
    );
    expect(notice.finishedReason).toBeNull();
    expect(notice.id).toBe(agent.state.reply?.replyId);
    const stored = agent.state.context.map((message) => textOf(message));
    expect(stored).not.toContain(textOf(notice));
  });

  it('a confirmed call runs, accepted rules auto-allow later calls, one REPLY_END at the end', async () => {
    const log: string[] = [];
    const { agent, revive } = setup(
      [
        { toolCalls: [writeCall] },
        { text: 'first done' },
        { toolCalls: [{ id: 'tc2', name: 'write_note', input: { path: 'b', content: 'x' } }] },
        { text: 'second done' },
      ],
      [makeWriteNote(log)],
    );
    const first = await collect(agent.replyStream('Write a note'));
    const ask = ofType(first, 'REQUIRE_USER_CONFIRM')[0]!;
    const resumed = revive(agent);
    const events = await collect(
      resumed.replyStream(
        userConfirmResultEvent({
          replyId: ask.replyId,
          confirmResults: ask.toolCalls.map((toolCall) => ({
            confirmed: true,
            toolCall,
            rules: toolCall.suggestedRules,
          })),
        }),
      ),
    );
    expect(types(events)).toEqual([
      'TOOL_RESULT_START',
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_END',
      'MODEL_CALL_START',
      'TEXT_BLOCK_START',
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_END',
      'MODEL_CALL_END',
      'REPLY_END',
    ]);
    expect(events.every((event) => event.replyId === ask.replyId)).toBe(true);
    expect(ofType(events, 'REPLY_END')[0]?.finishedReason).toBe('completed');
    expect(log).toEqual(['notes/a.txt=hello']);
    expect(resumed.state.permission.allowRules).toEqual([
      { toolName: 'write_note', ruleContent: null, behavior: 'allow', source: 'suggested' },
    ]);

    const second = await collect(resumed.replyStream('Another'));
    expect(types(second)).not.toContain('REQUIRE_USER_CONFIRM');
    expect(log).toEqual(['notes/a.txt=hello', 'b=x']);
  });

  it('a denial reaches the model as the reminder, with the reason appended', async () => {
    const log: string[] = [];
    const { agent, model } = setup(
      [{ toolCalls: [writeCall] }, { text: 'ok, I will not' }],
      [makeWriteNote(log)],
    );
    const first = await collect(agent.replyStream('Write a note'));
    const ask = ofType(first, 'REQUIRE_USER_CONFIRM')[0]!;
    const events = await collect(
      agent.replyStream(
        userConfirmResultEvent({
          replyId: ask.replyId,
          confirmResults: [
            {
              confirmed: false,
              toolCall: ask.toolCalls[0]!,
              reason: 'not today',
              rules: ask.toolCalls[0]!.suggestedRules,
            },
          ],
        }),
      ),
    );
    const text =
      '<system-reminder>The execution of tool "write_note" is denied by user! Reason: not today</system-reminder>';
    expect(types(events).slice(0, 3)).toEqual([
      'TOOL_RESULT_START',
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_END',
    ]);
    expect(ofType(events, 'TOOL_RESULT_TEXT_DELTA')[0]?.delta).toBe(text);
    expect(ofType(events, 'TOOL_RESULT_END')[0]?.state).toBe('denied');
    expect(log).toEqual([]);
    expect(agent.state.permission.allowRules).toEqual([]);
    const request = model.requests[1]!;
    const reply = request.messages.at(-1)!;
    const result = (reply.content as ToolResultBlock[]).find(
      (block) => block.type === 'tool_result',
    );
    expect(result).toMatchObject({ id: 'tc1', state: 'denied', output: text });
  });

  it('a denial without a reason uses the bare reminder', async () => {
    const { agent } = setup([{ toolCalls: [writeCall] }, { text: 'ok' }], [makeWriteNote()]);
    const ask = ofType(await collect(agent.replyStream('go')), 'REQUIRE_USER_CONFIRM')[0]!;
    const events = await collect(
      agent.replyStream(
        userConfirmResultEvent({
          replyId: ask.replyId,
          confirmResults: [{ confirmed: false, toolCall: ask.toolCalls[0]! }],
        }),
      ),
    );
    expect(ofType(events, 'TOOL_RESULT_TEXT_DELTA')[0]?.delta).toBe(
      '<system-reminder>The execution of tool "write_note" is denied by user!</system-reminder>',
    );
  });

  it('an edited input replaces the call input; an invalid edit gives an error result', async () => {
    const log: string[] = [];
    const { agent } = setup(
      [
        { toolCalls: [writeCall] },
        { text: 'ok' },
        { toolCalls: [{ id: 'tc9', name: 'write_note', input: { path: 'p', content: 'c' } }] },
        { text: 'ok' },
      ],
      [makeWriteNote(log)],
    );
    const ask = ofType(await collect(agent.replyStream('go')), 'REQUIRE_USER_CONFIRM')[0]!;
    const edited = {
      ...ask.toolCalls[0]!,
      input: JSON.stringify({ path: 'notes/edited.txt', content: 'bye' }),
    };
    await collect(
      agent.replyStream(
        userConfirmResultEvent({
          replyId: ask.replyId,
          confirmResults: [{ confirmed: true, toolCall: edited }],
        }),
      ),
    );
    expect(log).toEqual(['notes/edited.txt=bye']);

    const ask2 = ofType(await collect(agent.replyStream('again')), 'REQUIRE_USER_CONFIRM')[0]!;
    const bad = { ...ask2.toolCalls[0]!, input: JSON.stringify({ path: 3 }) };
    const events = await collect(
      agent.replyStream(
        userConfirmResultEvent({
          replyId: ask2.replyId,
          confirmResults: [{ confirmed: true, toolCall: bad }],
        }),
      ),
    );
    const end = ofType(events, 'TOOL_RESULT_END')[0];
    expect(end?.state).toBe('error');
    expect(ofType(events, 'TOOL_RESULT_TEXT_DELTA')[0]?.delta).toMatch(
      /^Input validation failed for tool 'write_note': /,
    );
    expect(log).toHaveLength(1);
  });
});
