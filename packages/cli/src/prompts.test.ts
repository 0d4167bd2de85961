import { describe, expect, it } from 'vitest';
import { AskUser, askUserResult, checkAskUserAnswers, parseToolInput } from '@parley/core';
import type { AskUserInput, ToolCallBlock } from '@parley/core';
import { answerOf, askUserQuestions, formatQuestionIntro } from './ask-user-prompt.js';
import { confirmChoices, confirmResult, formatConfirmRequest } from './confirm-prompt.js';
import { externalResult, formatExternalRequest } from './external-prompt.js';
import { plainColors } from './theme.js';

const call = (name: string, input: unknown, suggested = true): ToolCallBlock => ({
  type: 'tool_call',
  id: 'tc1',
  name,
  input: JSON.stringify(input),
  state: 'asking',
  suggestedRules: suggested
    ? [{ toolName: name, ruleContent: null, behavior: 'allow', source: 'suggested' }]
    : [],
});

describe('confirmation prompt', () => {
  const writeCall = call('write_note', { path: 'a.md', content: 'hi' });

  it('shows the tool, the input pretty-printed and the suggested rules', () => {
    expect(formatConfirmRequest(writeCall, plainColors, 80)).toBe(
      [
        '? write_note needs your permission',
        '│ {',
        '│   "path": "a.md",',
        '│   "content": "hi"',
        '│ }',
        '│ suggested rule: write_note (every call)',
        '',
      ].join('\n'),
    );
  });

  it('shows why the call asks, and says when no rule or mode clears it', () => {
    const readCall = call('Read', { file_path: '~/.ssh/id_rsa' }, false);
    expect(
      formatConfirmRequest(readCall, plainColors, 80, {
        message: 'Permission required for Read',
        decisionReason: 'Safety: reads a secret: ~/.ssh/id_rsa',
        bypassImmune: true,
      }),
    ).toBe(
      [
        '? Read needs your permission',
        '│ why: Safety: reads a secret: ~/.ssh/id_rsa',
        '│ a safety check: no rule or mode clears it',
        '│ {',
        '│   "file_path": "~/.ssh/id_rsa"',
        '│ }',
        '',
      ].join('\n'),
    );
  });

  it('offers "always allow" only when there are rules to add', () => {
    expect(confirmChoices(writeCall).map((choice) => choice.value)).toEqual([
      'yes',
      'always',
      'no',
      'edit',
    ]);
    const bare = call('x', {}, false);
    expect(confirmChoices(bare).map((choice) => choice.value)).toEqual(['yes', 'no', 'edit']);
  });

  it('builds the answer for each choice', () => {
    expect(confirmResult('yes', writeCall)).toEqual({ confirmed: true, toolCall: writeCall });
    expect(confirmResult('always', writeCall)).toEqual({
      confirmed: true,
      toolCall: writeCall,
      rules: writeCall.suggestedRules,
    });
    expect(confirmResult('no', writeCall, { reason: '  not now ' })).toEqual({
      confirmed: false,
      toolCall: writeCall,
      reason: 'not now',
    });
    expect(confirmResult('no', writeCall, { reason: ' ' })).toEqual({
      confirmed: false,
      toolCall: writeCall,
    });
    expect(confirmResult('edit', writeCall, { input: '{"path":"b.md"}' }).toolCall.input).toBe(
      '{"path":"b.md"}',
    );
  });
});

describe('AskUser prompt', () => {
  const input: AskUserInput = {
    questions: [
      {
        question: 'Which auth?',
        header: 'Auth',
        context: 'Draft:\nline two',
        options: [
          { label: 'OAuth', description: 'standard' },
          { label: 'Keys', description: 'simple' },
        ],
      },
      {
        question: 'Which scopes?',
        header: 'Scopes',
        multiSelect: true,
        options: [
          { label: 'read', description: '' },
          { label: 'write', description: '' },
        ],
      },
    ],
  };
  const askCall = call('AskUser', input);

  it('reads the questions of a valid call only', () => {
    expect(askUserQuestions(askCall)).toEqual(input.questions);
    expect(askUserQuestions(call('AskUser', { questions: [] }))).toBeUndefined();
  });

  it('puts the header chip and the context above the question', () => {
    const [first, second] = input.questions;
    expect(formatQuestionIntro(first!, { index: 0, total: 2 }, plainColors, 80)).toBe(
      ' Auth   1 of 2\n│ Draft:\n│ line two\n',
    );
    expect(formatQuestionIntro(second!, { index: 1, total: 2 }, plainColors, 80)).toBe(
      ' Scopes   2 of 2  (choose any)\n',
    );
  });

  it('builds answers that core accepts, with "Other" text', () => {
    const [first, second] = input.questions;
    const answers = [answerOf(first!, ['OAuth'], null), answerOf(second!, ['read'], '  admin  ')];
    expect(answers[1]).toEqual({ question: 'Which scopes?', selected: ['read'], other: 'admin' });
    const parsed = parseToolInput(AskUser, askCall.input);
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(checkAskUserAnswers(parsed.input, { answers })).toBeUndefined();
    expect(askUserResult(askCall, answers).output).toEqual([
      { type: 'text', text: 'Auth: OAuth\nScopes: read, admin' },
    ]);
  });
});

describe('external prompt', () => {
  it('shows the call and builds a result block', () => {
    const deploy = call('deploy', { environment: 'staging' }, false);
    expect(formatExternalRequest(deploy, plainColors, 80)).toContain(
      '│   "environment": "staging"',
    );
    expect(externalResult(deploy, 'error', 'timed out')).toEqual({
      type: 'tool_result',
      id: 'tc1',
      name: 'deploy',
      output: [{ type: 'text', text: 'timed out' }],
      state: 'error',
    });
    expect(externalResult(deploy, 'success', 'ok', { url: 'u' }).metadata).toEqual({ url: 'u' });
  });
});
