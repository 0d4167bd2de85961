import { describe, expect, it } from 'vitest';
import { AskUser, InvalidToolResultError, askUserResult, askUserSkipped } from '../src/index.js';
import type { AskUserAnswer, PermissionMode } from '../src/index.js';
import {
  asked,
  collect,
  expectRefused,
  external,
  modes,
  ofType,
  replyIdOf,
  resultFor,
  resultsSeen,
  setup,
  storedCall,
  submitted,
  types,
} from './support.js';

const option = (label: string, extra: Record<string, unknown> = {}) => ({
  label,
  description: `${label} means ${label.toLowerCase()}`,
  ...extra,
});
const question = (text: string, extra: Record<string, unknown> = {}) => ({
  question: text,
  header: 'Choice',
  options: [option('Red'), option('Blue')],
  ...extra,
});
const valid = {
  questions: [
    question('Which colour?'),
    question('Which sizes?', {
      header: 'Sizes',
      multiSelect: true,
      options: [option('S'), option('M'), option('L')],
    }),
  ],
};

describe('AskUser, the tool (SPEC 8)', () => {
  it('is named AskUser, external, read-only and concurrency-safe', () => {
    expect(AskUser.name).toBe('AskUser');
    expect(AskUser.external).toBe(true);
    expect('execute' in AskUser).toBe(false);
    expect(AskUser.isReadOnly(valid)).toBe(true);
    expect(AskUser.isConcurrencySafe(valid)).toBe(true);
  });

  it('its description tells the model to batch, recommend first, never add "Other", and use context', () => {
    const text = AskUser.description;
    expect(text).toMatch(/batch related questions/i);
    expect(text).toContain('(Recommended)');
    expect(text).toMatch(/first/);
    expect(text).toMatch(/never add an "Other" option/i);
    expect(text).toContain('context');
    expect(text).toMatch(/draft|diff|error/);
  });

  it('its JSON schema states the limits', () => {
    const schema = JSON.stringify(AskUser.jsonSchema());
    expect(schema).toContain('"maxLength":12');
    expect(schema).toMatch(/"minItems":1,"maxItems":4/);
    expect(schema).toMatch(/"minItems":2,"maxItems":4/);
  });

  it.each(['default', 'accept_edits', 'explore', 'bypass', 'dont_ask'] as PermissionMode[])(
    'is always allowed (%s mode): it goes straight to REQUIRE_EXTERNAL_EXECUTION',
    async (mode) => {
      const { agent } = setup(
        [{ toolCalls: [{ id: 'q1', name: 'AskUser', input: valid }] }],
        [AskUser],
        { permission: { mode } },
      );
      const events = await collect(agent.replyStream('ask'));
      expect(asked(events)).toEqual([]);
      expect(types(events).slice(-2)).toEqual(['TOOL_RESULT_START', 'REQUIRE_EXTERNAL_EXECUTION']);
      expect(submitted(events)[0]).toMatchObject({ id: 'q1', name: 'AskUser', state: 'submitted' });
    },
  );
});

describe('AskUser input limits: an error result the model can read and retry (SPEC 8)', () => {
  const cases: [string, unknown, RegExp][] = [
    ['no question', { questions: [] }, /questions/],
    [
      'five questions',
      { questions: ['1?', '2?', '3?', '4?', '5?'].map((text) => question(text)) },
      /questions/,
    ],
    [
      'a header of 13 characters',
      { questions: [question('Q?', { header: 'Thirteen char' })] },
      /header/,
    ],
    ['one option', { questions: [question('Q?', { options: [option('Only')] })] }, /options/],
    [
      'five options',
      { questions: [question('Q?', { options: ['A', 'B', 'C', 'D', 'E'].map((l) => option(l)) })] },
      /options/,
    ],
    [
      'two options with the same label',
      { questions: [question('Q?', { options: [option('Same'), option('Same')] })] },
      /Duplicate option label 'Same'/,
    ],
    [
      'two identical questions',
      { questions: [question('Q?'), question('Q?')] },
      /Duplicate question/,
    ],
    [
      'a preview on a multi-select question',
      {
        questions: [
          question('Q?', {
            multiSelect: true,
            options: [option('A', { preview: 'code' }), option('B')],
          }),
        ],
      },
      /Previews are only allowed on single-select questions/,
    ],
    ['a question without options', { questions: [{ question: 'Q?', header: 'H' }] }, /options/],
    ['an unknown field', { questions: [question('Q?', { colour: 'red' })] }, /colour/],
    ['a missing question list', {}, /questions/],
  ];

  it.each(cases)('%s', async (_, input, problem) => {
    const { agent, model } = setup(
      [
        { toolCalls: [{ id: 'bad', name: 'AskUser', input: input as Record<string, unknown> }] },
        { toolCalls: [{ id: 'good', name: 'AskUser', input: valid }] },
      ],
      [AskUser],
    );
    const events = await collect(agent.replyStream('ask me'));
    const end = ofType(events, 'TOOL_RESULT_END').find((event) => event.toolCallId === 'bad');
    expect(end?.state).toBe('error');
    const seen = resultsSeen(model.requests[1]!.messages).find((result) => result.id === 'bad');
    expect(seen?.state).toBe('error');
    expect(seen?.output).toMatch(/^Input validation failed for tool 'AskUser': /);
    expect(seen?.output).toMatch(problem);
    expect(submitted(events).map((call) => call.id)).toEqual(['good']);
  });

  it.each([
    [
      'a header of exactly 12 characters',
      { questions: [question('Q?', { header: 'Twelve chars' })] },
    ],
    [
      'four questions of four options',
      {
        questions: ['1?', '2?', '3?', '4?'].map((text) =>
          question(text, { options: ['A', 'B', 'C', 'D'].map((l) => option(l)) }),
        ),
      },
    ],
    [
      'previews on a single-select question, and context',
      {
        questions: [
          question('Which layout?', {
            context: 'Draft:\n# Title',
            options: [option('Left', { preview: '[L]' }), option('Right', { preview: '[R]' })],
          }),
        ],
      },
    ],
  ])('accepts %s', async (_, input) => {
    const { agent } = setup([{ toolCalls: [{ id: 'q1', name: 'AskUser', input }] }], [AskUser]);
    const events = await collect(agent.replyStream('ask me'));
    expect(submitted(events).map((call) => call.id)).toEqual(['q1']);
  });
});

describe.each(modes)('AskUser answers (SPEC 8), %s', (mode) => {
  async function parked() {
    const built = setup(
      [{ toolCalls: [{ id: 'q1', name: 'AskUser', input: valid }] }, { text: 'Thanks.' }],
      [AskUser],
      {},
      mode,
    );
    const first = await collect(built.agent.replyStream('ask me'));
    const call = submitted(first)[0]!;
    return { ...built, replyId: replyIdOf(first), call, agent: built.resume(built.agent) };
  }

  it('an answer reaches the model as text, and programs as metadata', async () => {
    const { agent, model, replyId, call } = await parked();
    const answers: AskUserAnswer[] = [
      { question: 'Which colour?', selected: ['Red'], other: null },
      { question: 'Which sizes?', selected: ['S', 'L'], other: null },
    ];
    const result = askUserResult(call, answers);
    expect(result.output).toEqual([{ type: 'text', text: 'Choice: Red\nSizes: S, L' }]);
    const events = await collect(agent.replyStream(external(replyId, [result])));
    expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({
      state: 'success',
      metadata: { answers },
    });
    expect(resultsSeen(model.requests[1]!.messages)).toEqual([result]);
    expect(types(events).at(-1)).toBe('REPLY_END');
  });

  it('a skipped call reaches the model as an interrupted result it can read, with what the person said', async () => {
    const { agent, model, replyId, call } = await parked();
    const result = askUserSkipped(call, ' Use the defaults. ');
    expect(result).toStrictEqual({
      type: 'tool_result',
      id: 'q1',
      name: 'AskUser',
      output: [
        {
          type: 'text',
          text: 'The user skipped these questions without answering them, and said instead: Use the defaults.',
        },
      ],
      state: 'interrupted',
    });
    expect(askUserSkipped(call).output).toEqual([
      { type: 'text', text: 'The user skipped these questions without answering them.' },
    ]);
    const events = await collect(agent.replyStream(external(replyId, [result])));
    expect(ofType(events, 'TOOL_RESULT_END')[0]).toMatchObject({ state: 'interrupted' });
    expect(resultsSeen(model.requests[1]!.messages)).toEqual([result]);
    expect(types(events).at(-1)).toBe('REPLY_END');
  });

  it('free text under "Other" needs no selected label', async () => {
    const { agent, replyId, call } = await parked();
    const result = askUserResult(call, [
      { question: 'Which colour?', selected: [], other: 'Teal, please' },
    ]);
    expect(result.output).toEqual([{ type: 'text', text: 'Choice: Teal, please' }]);
    const events = await collect(agent.replyStream(external(replyId, [result])));
    expect(types(events).at(-1)).toBe('REPLY_END');
  });

  const refused: [string, unknown, RegExp][] = [
    [
      'an unknown question',
      { answers: [{ question: 'Which shape?', selected: ['Red'], other: null }] },
      /answer to a question that was not asked: 'Which shape\?'/,
    ],
    [
      'a label that was not offered',
      { answers: [{ question: 'Which colour?', selected: ['Green'], other: null }] },
      /'Green' is not an option of question 'Which colour\?'/,
    ],
    [
      'two labels on a single-select question',
      { answers: [{ question: 'Which colour?', selected: ['Red', 'Blue'], other: null }] },
      /question 'Which colour\?' takes one option, but 2 were selected/,
    ],
    [
      'the same question answered twice',
      {
        answers: [
          { question: 'Which colour?', selected: ['Red'], other: null },
          { question: 'Which colour?', selected: ['Blue'], other: null },
        ],
      },
      /question 'Which colour\?' is answered twice/,
    ],
    [
      'an empty answer',
      { answers: [{ question: 'Which colour?', selected: [], other: null }] },
      /neither a selected option nor other text/,
    ],
    [
      'a label of another question',
      { answers: [{ question: 'Which colour?', selected: ['M'], other: null }] },
      /'M' is not an option/,
    ],
    ['no answers field', { picked: 'Red' }, /answers|picked/],
    [
      'an answer without `other`',
      { answers: [{ question: 'Which colour?', selected: ['Red'] }] },
      /other/,
    ],
    ['no metadata at all', undefined, /./],
  ];

  it.each(refused)('refuses %s, before anything is applied', async (_, metadata, problem) => {
    const { agent, replyId, call } = await parked();
    const result = resultFor(call, 'Red', metadata as Record<string, unknown> | undefined);
    const error = await expectRefused(agent, external(replyId, [result]), {
      type: InvalidToolResultError,
      code: 'invalid_tool_result',
      message: /^Invalid result metadata for tool call 'q1' of tool 'AskUser': /,
    });
    expect(error.message).toMatch(problem);
    expect(storedCall(agent, 'q1')!.state).toBe('submitted');
    const fixed = askUserResult(call, [
      { question: 'Which colour?', selected: ['Red'], other: null },
    ]);
    expect(types(await collect(agent.replyStream(external(replyId, [fixed])))).at(-1)).toBe(
      'REPLY_END',
    );
  });

  it('an error result (the person could not answer) is not checked', async () => {
    const { agent, replyId, call } = await parked();
    const events = await collect(
      agent.replyStream(
        external(replyId, [{ ...resultFor(call, 'The user closed the dialog.'), state: 'error' }]),
      ),
    );
    expect(ofType(events, 'TOOL_RESULT_END')[0]!.state).toBe('error');
  });
});
