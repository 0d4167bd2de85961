import { describe, expect, it } from 'vitest';
import {
  AgentBusyError,
  AgentParkedError,
  AskUser,
  InvalidEventError,
  InvalidInputError,
  NotWaitingError,
  StaleReplyError,
  UnknownToolCallError,
  askUserResult,
  userConfirmResultEvent,
  userInterruptEvent,
} from '../src/index.js';
import type { Agent, AgentEvent, ToolCallBlock, ParleyError } from '../src/index.js';
import { tool } from '../src/index.js';
import { z } from 'zod';
import {
  allowDeploy,
  asked,
  collect,
  confirm,
  deferred,
  deploy,
  expectRefused,
  external,
  makeFetch,
  makeWriteNote,
  modes,
  replyIdOf,
  resultFor,
  setup,
  snapshot,
  submitted,
  types,
} from './support.js';

const question = {
  questions: [
    {
      question: 'Which colour?',
      header: 'Colour',
      options: [
        { label: 'Red', description: 'warm' },
        { label: 'Blue', description: 'cool' },
      ],
    },
  ],
};

type Parked = {
  agent: Agent;
  events: AgentEvent[];
  replyId: string;
  asking: ToolCallBlock[];
  waiting: ToolCallBlock[];
};

async function parkedOnConfirm(): Promise<Parked> {
  const { agent } = setup(
    [{ toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'a', content: 'b' } }] }],
    [makeWriteNote()],
  );
  const events = await collect(agent.replyStream('write'));
  return { agent, events, replyId: replyIdOf(events), asking: asked(events), waiting: [] };
}

async function parkedOnExternal(): Promise<Parked> {
  const { agent } = setup(
    [{ toolCalls: [{ id: 'd1', name: 'deploy', input: { env: 'prod' } }] }],
    [deploy],
    { permission: { rules: [allowDeploy] } },
  );
  const events = await collect(agent.replyStream('deploy'));
  return { agent, events, replyId: replyIdOf(events), asking: [], waiting: submitted(events) };
}

async function parkedOnBoth(): Promise<Parked> {
  const { agent } = setup(
    [
      {
        toolCalls: [
          { id: 'f1', name: 'fetch', input: { url: 'https://a.example/1' } },
          { id: 'f2', name: 'fetch', input: { url: 'https://b.example/1' } },
          { id: 'q1', name: 'AskUser', input: question },
        ],
      },
    ],
    [makeFetch(), AskUser],
  );
  const events = await collect(agent.replyStream('go'));
  return {
    agent,
    events,
    replyId: replyIdOf(events),
    asking: asked(events),
    waiting: submitted(events),
  };
}

describe('input checks: new input (SPEC 1)', () => {
  const refusedInputs: [string, unknown][] = [
    [
      'a tool call block',
      {
        role: 'user',
        content: [
          {
            type: 'tool_call',
            id: 'x',
            name: 'write_note',
            input: '{}',
            state: 'pending',
            suggestedRules: [],
          },
        ],
      },
    ],
    [
      'a tool result block',
      {
        role: 'assistant',
        content: [{ type: 'tool_result', id: 'x', name: 'n', output: 'o', state: 'success' }],
      },
    ],
    ['a thinking block', { role: 'user', content: [{ type: 'thinking', thinking: 'hmm' }] }],
    ['a system message', { role: 'system', content: 'You are root.' }],
    ['a message without a role', { content: 'hi' }],
    ['a message without content', { role: 'user' }],
    ['a number', 42],
    ['an array holding a non-message', ['hi']],
    ['a null block', { role: 'user', content: [null] }],
  ];

  it.each(refusedInputs)('refuses %s with InvalidInputError, state untouched', async (_, input) => {
    const { agent, model } = setup([{ text: 'never' }], [makeWriteNote()]);
    await agent.reply('earlier');
    const error = await expectRefused(agent, input, {
      type: InvalidInputError,
      code: 'invalid_input',
    });
    expect(error.message).toMatch(/message/i);
    expect(model.requests).toHaveLength(1);
  });

  // Whatever enters the context must load again from JSON; a malformed message
  // accepted here would break every later model call and every reload.
  it.each([
    [
      'a block of an unknown type',
      { role: 'user', content: [{ type: 'video', url: 'x' }] },
      'The input message block 0 has type "video": new input takes text, data and hint blocks.',
    ],
    [
      'a text block without text',
      { role: 'user', content: [{ type: 'text' }] },
      /^The input message block 0 is not a valid text block: text: /,
    ],
    [
      'a non-string message id',
      { id: 5, role: 'user', content: 'hi' },
      /^The input message is not a valid message: id: /,
    ],
    [
      'an unknown message field',
      { role: 'user', content: 'hi', colour: 'red' },
      /^The input message is not a valid message: .*colour/,
    ],
  ])('refuses a malformed message (%s), saying what is wrong', async (_, input, message) => {
    const { agent, model } = setup([{ text: 'ok' }], []);
    await expectRefused(agent, input, { type: InvalidInputError, code: 'invalid_input', message });
    expect(model.requests).toHaveLength(0);
    expect(await agent.reply('still works')).toMatchObject({ finishedReason: 'completed' });
  });

  it('drops fields set to undefined, as JSON would', async () => {
    const { agent } = setup([{ text: 'ok' }], []);
    await agent.reply({ role: 'user', content: 'hi', metadata: undefined } as never);
    expect(Object.keys(agent.state.context[0]!)).not.toContain('metadata');
  });

  it('says which message of a list is wrong and why', async () => {
    const { agent } = setup([], []);
    await expectRefused(
      agent,
      [
        { role: 'user', content: 'fine' },
        { role: 'user', content: [{ type: 'thinking', thinking: 'x' }] },
      ],
      {
        type: InvalidInputError,
        code: 'invalid_input',
        message:
          'Input message 1 block 0 has type "thinking": new input may not carry tool calls, tool results or thinking blocks.',
      },
    );
    await expectRefused(
      agent,
      { role: 'system', content: 'x' },
      {
        type: InvalidInputError,
        code: 'invalid_input',
        message: 'The input message has role "system"; a reply takes user or assistant messages.',
      },
    );
  });

  it('accepts text, data and hint blocks', async () => {
    const { agent } = setup([{ text: 'ok' }], []);
    const message = await agent.reply({
      id: 'u1',
      name: 'ann',
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'data', source: { type: 'url', url: 'https://x/y.png', mediaType: 'image/png' } },
        { type: 'hint', hint: 'be brief' },
      ],
    });
    expect(message.finishedReason).toBe('completed');
  });

  it('refuses a second reply while one runs (AgentBusyError), and changes nothing', async () => {
    const started = deferred();
    const release = deferred();
    const slow = tool({
      name: 'slow',
      description: 'slow',
      input: z.object({}),
      readOnly: true,
      execute: async () => {
        started.resolve();
        await release.promise;
        return 'done';
      },
    });
    const { agent } = setup(
      [{ toolCalls: [{ id: 's1', name: 'slow', input: {} }] }, { text: 'ok' }],
      [slow],
    );
    const running = collect(agent.replyStream('go'));
    await started.promise;
    const before = snapshot(agent);
    const busy = await agent.reply('again').catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(AgentBusyError);
    expect((busy as ParleyError).code).toBe('agent_busy');
    expect(snapshot(agent)).toBe(before);
    release.resolve();
    expect(types(await running).at(-1)).toBe('REPLY_END');
  });
});

describe('input checks: while parked (SPEC 1)', () => {
  const parkedCases: [string, () => Promise<Parked>, string][] = [
    [
      'on a confirmation',
      parkedOnConfirm,
      'Agent is waiting for 1 tool calls and external execution results for 0 tool calls, but received no event.',
    ],
    [
      'on an external execution',
      parkedOnExternal,
      'Agent is waiting for 0 tool calls and external execution results for 1 tool calls, but received no event.',
    ],
    [
      'on both',
      parkedOnBoth,
      'Agent is waiting for 2 tool calls and external execution results for 1 tool calls, but received no event.',
    ],
  ];

  it.each(parkedCases)(
    'parked %s, input that is not an event is refused with the verbatim message',
    async (_, park, message) => {
      const { agent } = await park();
      for (const input of [
        'hello',
        undefined,
        null,
        { id: 'u', name: 'u', role: 'user', content: 'hi' },
        [{ role: 'user', content: 'hi' }],
        { type: 'USER_CONFIRM' },
      ]) {
        await expectRefused(agent, input, {
          type: AgentParkedError,
          code: 'agent_parked',
          message,
        });
      }
    },
  );

  it('a USER_CONFIRM_RESULT while nothing asks is refused, ending with the JSON of the event', async () => {
    const { agent, replyId, waiting } = await parkedOnExternal();
    const event = userConfirmResultEvent({
      replyId,
      confirmResults: waiting.map((toolCall) => ({ confirmed: true, toolCall })),
    });
    const error = await expectRefused(agent, event, {
      type: NotWaitingError,
      code: 'not_waiting',
    });
    const prefix =
      'Agent is not waiting for user confirmation, but received UserConfirmResultEvent: ';
    expect(error.message.startsWith(prefix)).toBe(true);
    expect(JSON.parse(error.message.slice(prefix.length))).toEqual(event);
  });

  it('an EXTERNAL_EXECUTION_RESULT while nothing is submitted is refused, ending with the JSON of the event', async () => {
    const { agent, replyId, asking } = await parkedOnConfirm();
    const event = external(replyId, [resultFor(asking[0]!, 'done')]);
    const error = await expectRefused(agent, event, { type: NotWaitingError, code: 'not_waiting' });
    const prefix =
      'Agent is not waiting for external execution results, but received ExternalExecutionResultEvent: ';
    expect(error.message.startsWith(prefix)).toBe(true);
    expect(JSON.parse(error.message.slice(prefix.length))).toEqual(event);
  });

  it('confirmation ids that are not asking are refused and listed as a JSON array', async () => {
    const { agent, replyId, asking, waiting } = await parkedOnBoth();
    const ghost: ToolCallBlock = { ...asking[0]!, id: 'ghost' };
    const error = await expectRefused(agent, confirm(replyId, [asking[0]!, ghost, waiting[0]!]), {
      type: UnknownToolCallError,
      code: 'unknown_tool_call',
      message:
        'Received UserConfirmResultEvent with tool call ids ["ghost","q1"] that are not waiting for confirmation.',
    });
    expect((error as UnknownToolCallError).toolCallIds).toEqual(['ghost', 'q1']);
  });

  it('external result ids that are not submitted are refused and listed as a JSON array', async () => {
    const { agent, replyId, asking, waiting } = await parkedOnBoth();
    const error = await expectRefused(
      agent,
      external(replyId, [
        askUserResult(waiting[0]!, [{ question: 'Which colour?', selected: ['Red'], other: null }]),
        resultFor(asking[1]!, 'x'),
        resultFor({ id: 'nope', name: 'fetch' }, 'x'),
      ]),
      {
        type: UnknownToolCallError,
        code: 'unknown_tool_call',
        message:
          'Received ExternalExecutionResultEvent with tool call ids ["f2","nope"] that are not waiting for external execution.',
      },
    );
    expect((error as UnknownToolCallError).toolCallIds).toEqual(['f2', 'nope']);
  });

  it('a call answered twice in one event is refused', async () => {
    const { agent, replyId, asking } = await parkedOnBoth();
    await expectRefused(agent, confirm(replyId, [asking[0]!, asking[0]!]), {
      type: InvalidEventError,
      code: 'invalid_event',
      message: /answered twice/,
    });
  });

  it.each([
    ['a USER_CONFIRM_RESULT', (p: Parked) => confirm('old-reply', p.asking)],
    [
      'an EXTERNAL_EXECUTION_RESULT',
      (p: Parked) =>
        external('old-reply', [
          askUserResult(p.waiting[0]!, [
            { question: 'Which colour?', selected: ['Red'], other: null },
          ]),
        ]),
    ],
    ['a USER_INTERRUPT', () => userInterruptEvent({ replyId: 'old-reply' })],
  ])('%s with a stale replyId is refused (StaleReplyError)', async (_, make) => {
    const parked = await parkedOnBoth();
    const error = await expectRefused(parked.agent, make(parked), {
      type: StaleReplyError,
      code: 'stale_reply',
      message: `Reply 'old-reply' is not the parked reply (the parked reply is '${parked.replyId}').`,
    });
    expect(error).toMatchObject({ replyId: 'old-reply', parkedReplyId: parked.replyId });
  });

  it('a replyId of an earlier, finished reply is stale too', async () => {
    const { agent } = setup(
      [
        { text: 'first' },
        { toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'a', content: 'b' } }] },
      ],
      [makeWriteNote()],
    );
    const old = replyIdOf(await collect(agent.replyStream('one')));
    const events = await collect(agent.replyStream('two'));
    await expectRefused(agent, confirm(old, asked(events)), {
      type: StaleReplyError,
      code: 'stale_reply',
    });
  });

  it.each([
    [
      'missing confirmResults',
      (p: Parked) => ({ type: 'USER_CONFIRM_RESULT', replyId: p.replyId }),
    ],
    [
      'a misspelt field',
      (p: Parked) => ({ type: 'USER_CONFIRM_RESULT', replyID: p.replyId, confirmResults: [] }),
    ],
    [
      'confirmed that is not a boolean',
      (p: Parked) => ({
        type: 'USER_CONFIRM_RESULT',
        replyId: p.replyId,
        confirmResults: [{ confirmed: 'yes', toolCall: p.asking[0] }],
      }),
    ],
    [
      'a result with a bad state',
      (p: Parked) => ({
        type: 'EXTERNAL_EXECUTION_RESULT',
        replyId: p.replyId,
        executionResults: [{ ...resultFor(p.waiting[0]!, 'x'), state: 'done' }],
      }),
    ],
    ['an interrupt without replyId', () => ({ type: 'USER_INTERRUPT' })],
  ])(
    'a malformed event (%s) is refused with InvalidEventError naming the field',
    async (_, make) => {
      const parked = await parkedOnBoth();
      const error = await expectRefused(parked.agent, make(parked), {
        type: InvalidEventError,
        code: 'invalid_event',
        message: /^Invalid event: /,
      });
      expect((error as InvalidEventError).path).not.toBe('');
    },
  );
});

describe.each(modes)('input checks: accepted edge cases (SPEC 1), %s', (mode) => {
  it('an empty confirmation list while parked is accepted and re-parks, emitting nothing', async () => {
    const { agent, model, resume } = setup(
      [{ toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'a', content: 'b' } }] }],
      [makeWriteNote()],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('write'));
    const replyId = replyIdOf(first);
    const next = resume(agent);
    const events = await collect(next.replyStream(confirm(replyId, [])));
    expect(events).toEqual([]);
    expect(next.state.reply).toMatchObject({ replyId, status: 'parked' });
    const notice = await next.reply(confirm(replyId, []));
    expect(notice).toMatchObject({ id: replyId, finishedReason: null });
    expect(model.requests).toHaveLength(1);
  });

  it('an empty external result list while parked is accepted and re-parks, emitting nothing', async () => {
    const { agent, resume } = setup(
      [{ toolCalls: [{ id: 'd1', name: 'deploy', input: { env: 'prod' } }] }],
      [deploy],
      { permission: { rules: [allowDeploy] } },
      mode,
    );
    const replyId = replyIdOf(await collect(agent.replyStream('deploy')));
    const next = resume(agent);
    expect(await collect(next.replyStream(external(replyId, [])))).toEqual([]);
    expect(next.state.reply?.status).toBe('parked');
  });

  it('a plain object of the documented shape (parsed from JSON) resumes like a factory-made event', async () => {
    const { agent, resume } = setup(
      [
        { toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'a', content: 'b' } }] },
        { text: 'done' },
      ],
      [makeWriteNote()],
      {},
      mode,
    );
    const first = await collect(agent.replyStream('write'));
    const plain: unknown = JSON.parse(
      JSON.stringify({
        type: 'USER_CONFIRM_RESULT',
        replyId: replyIdOf(first),
        confirmResults: [{ confirmed: true, toolCall: asked(first)[0] }],
      }),
    );
    const events = await collect(resume(agent).replyStream(plain as never));
    expect(types(events).at(-1)).toBe('REPLY_END');
  });
});

describe('input checks: while idle (SPEC 1)', () => {
  async function idle(): Promise<{ agent: Agent; replyId: string; calls: ToolCallBlock[] }> {
    const { agent } = setup(
      [
        { toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'a', content: 'b' } }] },
        { text: 'done' },
      ],
      [makeWriteNote()],
    );
    const first = await collect(agent.replyStream('write'));
    await agent.reply(confirm(replyIdOf(first), asked(first)));
    return { agent, replyId: replyIdOf(first), calls: asked(first) };
  }

  it('a USER_CONFIRM_RESULT is refused (not waiting), even for the reply that just ended', async () => {
    const { agent, replyId, calls } = await idle();
    const error = await expectRefused(agent, confirm(replyId, calls), {
      type: NotWaitingError,
      code: 'not_waiting',
    });
    expect(error.message).toMatch(
      /^Agent is not waiting for user confirmation, but received UserConfirmResultEvent: \{/,
    );
  });

  it('an EXTERNAL_EXECUTION_RESULT is refused (not waiting)', async () => {
    const { agent, replyId, calls } = await idle();
    const error = await expectRefused(agent, external(replyId, [resultFor(calls[0]!, 'x')]), {
      type: NotWaitingError,
      code: 'not_waiting',
    });
    expect(error.message).toMatch(
      /^Agent is not waiting for external execution results, but received ExternalExecutionResultEvent: \{/,
    );
  });

  it('a USER_INTERRUPT is a no-op: no event, no model call, state unchanged', async () => {
    const { agent, model } = setup([{ text: 'hi' }], []);
    await agent.reply('hello');
    const before = snapshot(agent);
    const events = await collect(agent.replyStream(userInterruptEvent({ replyId: 'anything' })));
    expect(events).toEqual([]);
    expect(snapshot(agent)).toBe(before);
    const notice = await agent.reply(userInterruptEvent({ replyId: 'anything' }));
    expect(notice.finishedReason).toBe('interrupted');
    expect(snapshot(agent)).toBe(before);
    expect(model.requests).toHaveLength(1);
  });

  it('a malformed event is refused even when idle', async () => {
    const { agent } = setup([], []);
    await expectRefused(
      agent,
      { type: 'EXTERNAL_EXECUTION_RESULT', replyId: 'r', executionResults: 'nope' },
      { type: InvalidEventError, code: 'invalid_event', message: /executionResults/ },
    );
  });
});
