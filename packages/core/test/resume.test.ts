import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AskUser,
  InvalidEventError,
  InvalidToolResultError,
  askUserResult,
  textOf,
  tool,
  userConfirmResultEvent,
  userInterruptEvent,
} from '../src/index.js';
import type { ChatChunk, ChatModel, ChatRequest, ToolResultBlock } from '../src/index.js';
import {
  allowDeploy,
  asked,
  collect,
  confirm,
  deferred,
  deploy,
  eventsOfCall,
  expectRefused,
  external,
  makeFetch,
  makeLookup,
  makeWriteNote,
  modes,
  ofType,
  replyIdOf,
  resultFor,
  resultsSeen,
  setup,
  storedCall,
  storedResults,
  submitted,
  types,
} from './support.js';

const interruptedText =
  '<system-reminder>The tool call has been interrupted by the user.</system-reminder>';
const interruptedNotice = 'I notice the interruption. How can I help you?';
const fetchCall = (id: string, url: string) => ({ id, name: 'fetch', input: { url } });
const colour = (question: string) => ({
  question,
  header: 'Colour',
  options: [
    { label: 'Red', description: 'warm' },
    { label: 'Blue', description: 'cool' },
  ],
});

describe.each(modes)('USER_CONFIRM_RESULT (SPEC 5), %s', (mode) => {
  it('results are applied in the order of the calls in the reply message, not of the event', async () => {
    const { agent, resume } = setup(
      [
        {
          toolCalls: [
            fetchCall('f1', 'https://a.example/1'),
            fetchCall('f2', 'https://b.example/1'),
          ],
        },
        { text: 'ok' },
      ],
      [makeFetch()],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    const [f1, f2] = asked(first);
    const events = await collect(
      resume(agent).replyStream(
        userConfirmResultEvent({
          replyId: replyIdOf(first),
          confirmResults: [
            { confirmed: false, toolCall: f2! },
            { confirmed: false, toolCall: f1! },
          ],
        }),
      ),
    );
    expect(ofType(events, 'TOOL_RESULT_START').map((event) => event.toolCallId)).toEqual([
      'f1',
      'f2',
    ]);
  });

  it('a confirmed call takes the input given back; a changed tool name is refused, nothing applied', async () => {
    const log: string[] = [];
    const { agent, resume } = setup(
      [
        { toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'a', content: 'x' } }] },
        { text: 'ok' },
      ],
      [makeWriteNote(log), makeLookup(log)],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    const renamed = { ...asked(first)[0]!, name: 'lookup', input: '{"key":"instead"}' };
    const next = resume(agent);
    const refused = await expectRefused(
      next,
      userConfirmResultEvent({
        replyId: replyIdOf(first),
        confirmResults: [{ confirmed: true, toolCall: renamed }],
      }),
      { type: InvalidEventError, code: 'invalid_event' },
    );
    expect(refused).toMatchObject({ path: 'confirmResults.0.toolCall.name' });
    expect(refused.message).toContain("asks about tool 'write_note'");
    expect(refused.message).toContain("cannot change it to 'lookup'");
    expect(log).toEqual([]);
    const edited = { ...asked(first)[0]!, input: '{"path":"b","content":"y"}' };
    const events = await collect(
      next.replyStream(
        userConfirmResultEvent({
          replyId: replyIdOf(first),
          confirmResults: [{ confirmed: true, toolCall: edited }],
        }),
      ),
    );
    expect(log).toEqual(['b=y']);
    expect(ofType(events, 'TOOL_RESULT_START')[0]).toMatchObject({
      toolCallId: 'w1',
      toolCallName: 'write_note',
    });
    expect(storedCall(next, 'w1')).toMatchObject({
      name: 'write_note',
      input: '{"path":"b","content":"y"}',
    });
    expect(storedResults(next)[0]).toMatchObject({
      id: 'w1',
      name: 'write_note',
      state: 'success',
    });
  });

  it('a deny rule still denies a confirmed call whose input was edited into it, saying which rule', async () => {
    const log: string[] = [];
    const denySecret = {
      toolName: 'write_note',
      ruleContent: 'secret',
      behavior: 'deny' as const,
      source: 'policy',
    };
    const writeNote = tool({
      name: 'write_note',
      description: 'Write a note.',
      input: z.object({ path: z.string(), content: z.string() }),
      matchRule: (content, input) => input.path === content,
      execute: ({ path }) => {
        log.push(path);
        return `Wrote ${path}`;
      },
    });
    const { agent, resume } = setup(
      [
        { toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'a', content: 'x' } }] },
        { text: 'ok' },
      ],
      [writeNote],
      { permission: { rules: [denySecret] } },
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    const edited = { ...asked(first)[0]!, input: '{"path":"secret","content":"x"}' };
    const next = resume(agent);
    const events = await collect(
      next.replyStream(
        userConfirmResultEvent({
          replyId: replyIdOf(first),
          confirmResults: [{ confirmed: true, toolCall: edited }],
        }),
      ),
    );
    expect(log).toEqual([]);
    expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({
      toolCallId: 'w1',
      state: 'denied',
    });
    expect(storedResults(next)[0]).toMatchObject({
      id: 'w1',
      state: 'denied',
      output:
        'Permission to use write_note has been denied: the confirmed input matches the deny rule write_note(secret).',
    });
  });

  it('rules given with a confirmation join the allow, deny and ask lists and apply to later calls', async () => {
    const log: string[] = [];
    const { agent, resume } = setup(
      [
        { toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'a', content: 'x' } }] },
        { text: 'ok' },
        {
          toolCalls: [
            { id: 'w2', name: 'write_note', input: { path: 'b', content: 'y' } },
            fetchCall('f1', 'https://a.example/'),
            { id: 'k1', name: 'lookup', input: { key: 'k' } },
          ],
        },
      ],
      [makeWriteNote(log), makeFetch(log), makeLookup(log)],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    const rules = [
      { toolName: 'write_note', ruleContent: null, behavior: 'allow', source: 'user' },
      { toolName: 'fetch', ruleContent: 'a.example', behavior: 'deny', source: 'user' },
      { toolName: 'lookup', ruleContent: null, behavior: 'ask', source: 'user' },
    ] as const;
    const next = resume(agent);
    await next.reply(
      userConfirmResultEvent({
        replyId: replyIdOf(first),
        confirmResults: [{ confirmed: true, toolCall: asked(first)[0]!, rules: [...rules] }],
      }),
    );
    expect(next.state.permission.allowRules).toEqual([rules[0]]);
    expect(next.state.permission.denyRules).toEqual([rules[1]]);
    expect(next.state.permission.askRules).toEqual([rules[2]]);
    const later = await collect(resume(next).replyStream('again'));
    expect(log).toEqual(['a=x', 'b=y']);
    expect(
      ofType(later, 'TOOL_RESULT_END').map((event) => [event.toolCallId, event.state]),
    ).toEqual([
      ['w2', 'success'],
      ['f1', 'denied'],
    ]);
    expect(asked(later).map((call) => call.id)).toEqual(['k1']);
  });

  it('a denied call gets the verbatim reminder; its rules are ignored', async () => {
    const { agent, model, resume } = setup(
      [
        { toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'a', content: 'x' } }] },
        { text: 'ok' },
      ],
      [makeWriteNote()],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    const next = resume(agent);
    const events = await collect(
      next.replyStream(
        confirm(replyIdOf(first), asked(first), { confirmed: false, withRules: true }),
      ),
    );
    const reminder =
      '<system-reminder>The execution of tool "write_note" is denied by user!</system-reminder>';
    expect(types(events).slice(0, 3)).toEqual([
      'TOOL_RESULT_START',
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_END',
    ]);
    expect(ofType(events, 'TOOL_RESULT_TEXT_DELTA')[0]!.delta).toBe(reminder);
    expect(ofType(events, 'TOOL_RESULT_END')[0]!.state).toBe('denied');
    expect(next.state.permission.allowRules).toEqual([]);
    expect(resultsSeen(model.requests[1]!.messages)).toEqual([
      { type: 'tool_result', id: 'w1', name: 'write_note', output: reminder, state: 'denied' },
    ]);
  });

  it('the model sees the whole reply so far after a denial: its call, the reminder, nothing else', async () => {
    const { agent, model, resume } = setup(
      [
        {
          text: 'I will write it.',
          toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'a', content: 'x' } }],
        },
        { text: 'ok' },
      ],
      [makeWriteNote()],
      { systemPrompt: 'Be careful.' },
      mode,
    );
    const first = await collect(agent.replyStream('please write'));
    await resume(agent).reply(
      confirm(replyIdOf(first), asked(first), { confirmed: false, reason: 'wrong folder' }),
    );
    const request = model.requests[1]!;
    expect(request.systemPrompt).toBe('Be careful.');
    expect(request.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(textOf(request.messages[0]!)).toBe('please write');
    const reply = request.messages[1]!;
    expect(reply.id).toBe(replyIdOf(first));
    expect(reply.content).toEqual([
      { type: 'text', text: 'I will write it.', id: expect.any(String) },
      {
        type: 'tool_call',
        id: 'w1',
        name: 'write_note',
        input: '{"path":"a","content":"x"}',
        state: 'finished',
        suggestedRules: [
          { toolName: 'write_note', ruleContent: null, behavior: 'allow', source: 'suggested' },
        ],
      },
      {
        type: 'tool_result',
        id: 'w1',
        name: 'write_note',
        output:
          '<system-reminder>The execution of tool "write_note" is denied by user! Reason: wrong folder</system-reminder>',
        state: 'denied',
      },
    ]);
    expect(JSON.stringify(request)).not.toContain("I'm waiting");
  });

  it('partial answers: the unanswered call stays asking, nothing is re-emitted, the reply re-parks', async () => {
    const log: string[] = [];
    const { agent, resume } = setup(
      [
        {
          toolCalls: [
            fetchCall('f1', 'https://a.example/1'),
            fetchCall('f2', 'https://b.example/1'),
          ],
        },
        { text: 'ok' },
      ],
      [makeFetch(log)],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    const replyId = replyIdOf(first);
    const [f1, f2] = asked(first);
    let next = resume(agent);
    const second = await collect(next.replyStream(confirm(replyId, [f2!])));
    expect(types(second)).toEqual([
      'TOOL_RESULT_START',
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_END',
    ]);
    expect(log).toEqual(['https://b.example/1']);
    expect(storedCall(next, 'f1')!.state).toBe('asking');
    expect(next.state.reply?.status).toBe('parked');
    next = resume(next);
    const notice = await next.reply(confirm(replyId, []));
    expect(notice).toMatchObject({
      content: "I'm waiting for your permission or the external execution to finish.",
      finishedReason: null,
      id: replyId,
    });
    next = resume(next);
    const third = await collect(next.replyStream(confirm(replyId, [f1!])));
    expect(types(third).at(-1)).toBe('REPLY_END');
    expect(log).toEqual(['https://b.example/1', 'https://a.example/1']);
  });
});

describe.each(modes)('EXTERNAL_EXECUTION_RESULT (SPEC 5), %s', (mode) => {
  async function parkedDeploy() {
    const built = setup(
      [{ toolCalls: [{ id: 'd1', name: 'deploy', input: { env: 'prod' } }] }, { text: 'live' }],
      [deploy],
      { permission: { rules: [allowDeploy] } },
      mode,
    );
    const first = await collect(built.agent.replyStream('deploy'));
    return { ...built, first, replyId: replyIdOf(first), call: submitted(first)[0]! };
  }

  it('streams each result as deltas then END, with no second TOOL_RESULT_START, appended as given', async () => {
    const { agent, model, resume, replyId, call } = await parkedDeploy();
    const result: ToolResultBlock = {
      type: 'tool_result',
      id: call.id,
      name: call.name,
      output: [
        { type: 'text', text: 'Deployed.' },
        { type: 'data', source: { type: 'base64', data: 'QUJD', mediaType: 'image/png' } },
        { type: 'data', source: { type: 'url', url: 'https://logs/1', mediaType: 'text/plain' } },
      ],
      state: 'success',
      metadata: { url: 'https://prod.example' },
    };
    const next = resume(agent);
    const events = await collect(next.replyStream(external(replyId, [result])));
    expect(types(events).slice(0, 4)).toEqual([
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_DATA_DELTA',
      'TOOL_RESULT_DATA_DELTA',
      'TOOL_RESULT_END',
    ]);
    expect(types(events)).not.toContain('TOOL_RESULT_START');
    expect(ofType(events, 'TOOL_RESULT_TEXT_DELTA')[0]!.delta).toBe('Deployed.');
    expect(ofType(events, 'TOOL_RESULT_DATA_DELTA')).toEqual([
      expect.objectContaining({ toolCallId: 'd1', mediaType: 'image/png', data: 'QUJD' }),
      expect.objectContaining({ toolCallId: 'd1', mediaType: 'text/plain', url: 'https://logs/1' }),
    ]);
    expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({
      toolCallId: 'd1',
      state: 'success',
      metadata: { url: 'https://prod.example' },
    });
    expect(storedResults(next)).toEqual([result]);
    expect(storedCall(next, 'd1')!.state).toBe('finished');
    expect(resultsSeen(model.requests[1]!.messages)).toEqual([result]);
    expect(types(events).at(-1)).toBe('REPLY_END');
  });

  it('an error result is taken as given, without checking its metadata', async () => {
    const { agent, resume, replyId, call } = await parkedDeploy();
    const next = resume(agent);
    const events = await collect(
      next.replyStream(
        external(replyId, [
          { type: 'tool_result', id: call.id, name: call.name, output: 'failed', state: 'error' },
        ]),
      ),
    );
    expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({ state: 'error', metadata: {} });
    expect(storedResults(next)[0]!.state).toBe('error');
  });

  it('bad metadata is refused: the call stays submitted, nothing changes, a good resend works', async () => {
    const { agent, resume, replyId, call } = await parkedDeploy();
    const next = resume(agent);
    const error = await expectRefused(
      next,
      external(replyId, [resultFor(call, 'done', { link: 'https://prod' })]),
      {
        type: InvalidToolResultError,
        code: 'invalid_tool_result',
        message: /^Invalid result metadata for tool call 'd1' of tool 'deploy': /,
      },
    );
    expect((error as InvalidToolResultError).toolCallId).toBe('d1');
    await expectRefused(next, external(replyId, [resultFor(call, 'done')]), {
      type: InvalidToolResultError,
      code: 'invalid_tool_result',
    });
    expect(storedCall(next, 'd1')!.state).toBe('submitted');
    const events = await collect(
      next.replyStream(external(replyId, [resultFor(call, 'done', { url: 'https://prod' })])),
    );
    expect(types(events).at(-1)).toBe('REPLY_END');
  });

  it('a result naming another tool, or still running, is refused', async () => {
    const { agent, replyId, call } = await parkedDeploy();
    await expectRefused(
      agent,
      external(replyId, [{ ...resultFor(call, 'x', { url: 'u' }), name: 'rollback' }]),
      {
        type: InvalidToolResultError,
        code: 'invalid_tool_result',
        message:
          "The result for tool call 'd1' names tool 'rollback', but the call is to 'deploy'.",
      },
    );
    await expectRefused(
      agent,
      external(replyId, [{ ...resultFor(call, 'x', { url: 'u' }), state: 'running' }]),
      {
        type: InvalidToolResultError,
        code: 'invalid_tool_result',
        message:
          "The result for tool call 'd1' has state 'running'; an external result must be final.",
      },
    );
  });

  it('the whole event is checked before any of it is applied', async () => {
    const { agent, resume } = setup(
      [
        {
          toolCalls: [
            { id: 'q1', name: 'AskUser', input: { questions: [colour('First?')] } },
            { id: 'q2', name: 'AskUser', input: { questions: [colour('Second?')] } },
          ],
        },
        { text: 'ok' },
      ],
      [AskUser],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('ask'));
    const replyId = replyIdOf(first);
    const [q1, q2] = submitted(first);
    const good = askUserResult(q1!, [{ question: 'First?', selected: ['Red'], other: null }]);
    const bad = askUserResult(q2!, [{ question: 'Second?', selected: ['Green'], other: null }]);
    const next = resume(agent);
    await expectRefused(next, external(replyId, [good, bad]), {
      type: InvalidToolResultError,
      code: 'invalid_tool_result',
      message: /'Green' is not an option of question 'Second\?'/,
    });
    expect(storedCall(next, 'q1')!.state).toBe('submitted');
    const partial = await collect(next.replyStream(external(replyId, [good])));
    expect(types(partial)).toEqual(['TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END']);
    expect(next.state.reply?.status).toBe('parked');
  });
});

describe.each(modes)('USER_INTERRUPT (SPEC 5), %s', (mode) => {
  it('closes every open call with the verbatim text; START only for calls that had none', async () => {
    const question = { questions: [colour('Which?')] };
    const { agent, model, resume } = setup(
      [
        {
          toolCalls: [
            fetchCall('f1', 'https://a.example/1'),
            fetchCall('f2', 'https://a.example/2'),
            { id: 'q1', name: 'AskUser', input: question },
            { id: 'w1', name: 'write_note', input: { path: 'a', content: 'x' } },
          ],
        },
        { text: 'never' },
      ],
      [makeFetch(), AskUser, makeWriteNote()],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    const replyId = replyIdOf(first);
    expect(eventsOfCall(first, 'q1').map((event) => event.type)).toContain('TOOL_RESULT_START');
    const next = resume(agent);
    const events = await collect(next.replyStream(userInterruptEvent({ replyId })));
    const closing = (id: string) => types(eventsOfCall(events, id));
    expect(closing('f1')).toEqual([
      'TOOL_RESULT_START',
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_END',
    ]);
    expect(closing('f2')).toEqual([
      'TOOL_RESULT_START',
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_END',
    ]);
    expect(closing('q1')).toEqual(['TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END']);
    expect(closing('w1')).toEqual([
      'TOOL_RESULT_START',
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_END',
    ]);
    expect(
      ofType(events, 'TOOL_RESULT_TEXT_DELTA').every((event) => event.delta === interruptedText),
    ).toBe(true);
    expect(ofType(events, 'TOOL_RESULT_END').every((event) => event.state === 'interrupted')).toBe(
      true,
    );
    expect(types(events).at(-1)).toBe('REPLY_END');
    expect(ofType(events, 'REPLY_END')[0]!.finishedReason).toBe('interrupted');
    expect(model.requests).toHaveLength(1);
    expect(storedResults(next).map((result) => result.id)).toEqual(['f1', 'f2', 'q1', 'w1']);
    expect(
      storedResults(next).every(
        (result) => result.state === 'interrupted' && result.output === interruptedText,
      ),
    ).toBe(true);
  });

  it('reply() returns the interruption notice with finishedReason interrupted', async () => {
    const { agent, resume } = setup(
      [{ toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'a', content: 'x' } }] }],
      [makeWriteNote()],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    const next = resume(agent);
    const notice = await next.reply(userInterruptEvent({ replyId: replyIdOf(first) }));
    expect(notice).toMatchObject({
      id: replyIdOf(first),
      role: 'assistant',
      content: interruptedNotice,
      finishedReason: 'interrupted',
    });
    expect(JSON.stringify(next.state)).not.toContain(interruptedNotice);
  });

  it('the next reply’s model call sees the interrupted results', async () => {
    const { agent, model, resume } = setup(
      [
        { toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'a', content: 'x' } }] },
        { text: 'What next?' },
      ],
      [makeWriteNote()],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('go'));
    const next = resume(agent);
    await next.reply(userInterruptEvent({ replyId: replyIdOf(first) }));
    await next.reply('never mind');
    expect(resultsSeen(model.requests[1]!.messages)).toEqual([
      {
        type: 'tool_result',
        id: 'w1',
        name: 'write_note',
        output: interruptedText,
        state: 'interrupted',
      },
    ]);
  });
});

describe('cancelling with an AbortSignal (SPEC 5)', () => {
  function waitsForAbort(started: () => void) {
    return tool({
      name: 'wait',
      description: 'Runs until cancelled.',
      input: z.object({}),
      readOnly: true,
      execute: (_input, context) =>
        new Promise<string>((_resolve, reject) => {
          started();
          context.signal.addEventListener('abort', () => reject(new Error('stopped')));
        }),
    });
  }

  it('while a tool runs: the running and pending calls close as interrupted, then REPLY_END', async () => {
    const started = deferred();
    const log: string[] = [];
    const { agent, model } = setup(
      [
        {
          toolCalls: [
            { id: 't1', name: 'wait', input: {} },
            { id: 'w1', name: 'write_note', input: { path: 'a', content: 'x' } },
          ],
        },
        { text: 'never' },
      ],
      [waitsForAbort(() => started.resolve()), makeWriteNote(log)],
      {
        permission: {
          rules: [{ toolName: 'write_note', ruleContent: null, behavior: 'allow', source: 't' }],
        },
      },
    );
    const controller = new AbortController();
    const running = collect(agent.replyStream('go', { signal: controller.signal }));
    await started.promise;
    controller.abort();
    const events = await running;
    expect(types(eventsOfCall(events, 't1')).slice(3)).toEqual([
      'TOOL_RESULT_START',
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_END',
    ]);
    expect(types(eventsOfCall(events, 'w1')).slice(3)).toEqual([
      'TOOL_RESULT_START',
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_END',
    ]);
    expect(ofType(events, 'TOOL_RESULT_TEXT_DELTA').map((event) => event.delta)).toEqual([
      interruptedText,
      interruptedText,
    ]);
    expect(ofType(events, 'TOOL_RESULT_END').map((event) => event.state)).toEqual([
      'interrupted',
      'interrupted',
    ]);
    expect(types(events).at(-1)).toBe('REPLY_END');
    expect(ofType(events, 'REPLY_END')[0]!.finishedReason).toBe('interrupted');
    expect(log).toEqual([]);
    expect(model.requests).toHaveLength(1);
    expect(agent.state.reply).toBeNull();
    expect(agent.state.context.at(-1)!.finishedReason).toBe('interrupted');
  });

  it('reply() with an aborted signal resolves to the interruption notice', async () => {
    const started = deferred();
    const { agent } = setup(
      [{ toolCalls: [{ id: 't1', name: 'wait', input: {} }] }],
      [waitsForAbort(() => started.resolve())],
    );
    const controller = new AbortController();
    const pending = agent.reply('go', { signal: controller.signal });
    await started.promise;
    controller.abort();
    expect(await pending).toMatchObject({
      content: interruptedNotice,
      finishedReason: 'interrupted',
    });
  });

  it('while the model streams: the partial text is closed, no tool runs, REPLY_END(interrupted)', async () => {
    const streaming = deferred();
    const log: string[] = [];
    const model: ChatModel & { requests: ChatRequest[] } = {
      name: 'slow',
      requests: [],
      async *stream(request, signal): AsyncGenerator<ChatChunk> {
        this.requests.push(request);
        yield { type: 'text_delta', delta: 'Let me ' };
        yield { type: 'tool_call_start', id: 'k1', name: 'lookup' };
        yield { type: 'tool_call_delta', id: 'k1', delta: '{"key":' };
        streaming.resolve();
        await new Promise((_resolve, reject) =>
          signal?.addEventListener('abort', () => reject(new Error('aborted'))),
        );
      },
    };
    const { agent } = setup([], [makeLookup(log)], { model });
    const controller = new AbortController();
    const running = collect(agent.replyStream('go', { signal: controller.signal }));
    await streaming.promise;
    controller.abort();
    const events = await running;
    expect(types(events)).toEqual([
      'REPLY_START',
      'MODEL_CALL_START',
      'TEXT_BLOCK_START',
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_END',
      'TOOL_CALL_START',
      'TOOL_CALL_DELTA',
      'TOOL_CALL_END',
      'REPLY_END',
    ]);
    expect(ofType(events, 'REPLY_END')[0]!.finishedReason).toBe('interrupted');
    expect(log).toEqual([]);
    expect(model.requests).toHaveLength(1);
    expect(agent.state.context.at(-1)!.content).toEqual([
      { type: 'text', text: 'Let me ', id: expect.any(String) },
    ]);
    expect(agent.state.reply).toBeNull();
  });

  it('leaving the stream at a denial’s TOOL_RESULT_END keeps the call denied, as announced', async () => {
    const { agent } = setup(
      [
        {
          toolCalls: [
            { id: 'w1', name: 'write_note', input: { path: 'n', content: 'x' } },
            { id: 'w2', name: 'write_note', input: { path: 'm', content: 'y' } },
          ],
        },
      ],
      [makeWriteNote()],
      {
        permission: {
          rules: [{ toolName: 'write_note', ruleContent: null, behavior: 'deny', source: 't' }],
        },
      },
    );
    for await (const event of agent.replyStream('go')) {
      if (event.type === 'TOOL_RESULT_END') break;
    }
    expect(storedResults(agent).map((result) => [result.id, result.state])).toEqual([
      ['w1', 'denied'],
      ['w2', 'interrupted'],
    ]);
  });

  it('a signal aborted before the reply starts ends it at once, without a model call', async () => {
    const { agent, model } = setup([{ text: 'never' }], []);
    const events = await collect(agent.replyStream('go', { signal: AbortSignal.abort() }));
    expect(types(events)).toEqual(['REPLY_START', 'REPLY_END']);
    expect(ofType(events, 'REPLY_END')[0]!.finishedReason).toBe('interrupted');
    expect(model.requests).toHaveLength(0);
  });

  it('leaving the stream early cancels the reply: nothing more runs, the reply is closed', async () => {
    const log: string[] = [];
    const { agent, model } = setup(
      [
        {
          toolCalls: [
            { id: 'k1', name: 'lookup', input: { key: 'a' } },
            { id: 'w1', name: 'write_note', input: { path: 'n', content: 'x' } },
          ],
        },
        { text: 'never' },
      ],
      [makeLookup(log), makeWriteNote(log)],
      {
        permission: {
          rules: [{ toolName: 'write_note', ruleContent: null, behavior: 'allow', source: 't' }],
        },
      },
    );
    for await (const event of agent.replyStream('go')) {
      if (event.type === 'TOOL_RESULT_END') break;
    }
    expect(log).toEqual(['a']);
    expect(model.requests).toHaveLength(1);
    expect(agent.state.reply).toBeNull();
    expect(agent.state.context.at(-1)!.finishedReason).toBe('interrupted');
    expect(storedResults(agent).map((result) => [result.id, result.state])).toEqual([
      ['k1', 'success'],
      ['w1', 'interrupted'],
    ]);
    expect(await agent.reply('hello')).toMatchObject({ finishedReason: 'completed' });
  });
});
