import { describe, expect, it } from 'vitest';
import {
  compactInput,
  describeRule,
  formatToolCall,
  formatToolResult,
  prettyInput,
  resultText,
  sideBySide,
  stripReminder,
  truncate,
  visibleWidth,
} from './format.js';
import { plainColors } from './theme.js';
import picocolors from 'picocolors';

describe('format', () => {
  it('truncates with an ellipsis and measures without colour codes', () => {
    expect(truncate('hello world', 5)).toBe('hell…');
    expect(truncate('hi', 5)).toBe('hi');
    expect(visibleWidth(picocolors.createColors(true).red('abc'))).toBe(3);
  });

  it('shows inputs pretty-printed and on one line', () => {
    const raw = '{"path":"a.md","content":"x\\ny"}';
    expect(prettyInput(raw)).toBe('{\n  "path": "a.md",\n  "content": "x\\ny"\n}');
    expect(compactInput(raw)).toBe('path: "a.md", content: "x\\ny"');
    expect(prettyInput('not json')).toBe('not json');
    expect(compactInput('not\njson')).toBe('not json');
  });

  it('draws a tool call on one line cut to the width', () => {
    const line = formatToolCall('write_note', '{"path":"a.md","content":"hello"}', 30, plainColors);
    expect(line.startsWith('● write_note(path: "a.md", ')).toBe(true);
    expect(line.endsWith('…')).toBe(true);
    expect(visibleWidth(line)).toBeLessThanOrEqual(30);
  });

  it('summarises an AskUser call by its headers', () => {
    const input = JSON.stringify({
      questions: [{ header: 'Auth' }, { header: 'Scope' }],
    });
    expect(formatToolCall('AskUser', input, 80, plainColors)).toBe(
      '● AskUser(2 questions: Auth, Scope)',
    );
  });

  it('draws a result with its state, first line and the count of the rest', () => {
    expect(formatToolResult('success', 'one\ntwo\nthree', 80, plainColors)).toBe(
      '  ⎿ ✓ one (+2 lines)',
    );
    expect(
      formatToolResult(
        'denied',
        '<system-reminder>The execution of tool "x" is denied by user!</system-reminder>',
        80,
        plainColors,
        'x',
      ),
    ).toBe('  ⎿ x ⊘ The execution of tool "x" is denied by user!');
    expect(formatToolResult('error', '', 80, plainColors)).toBe('  ⎿ ✗ error');
  });

  it('reads result output and strips reminders', () => {
    expect(
      resultText([
        { type: 'text', text: 'a' },
        { type: 'data', source: { type: 'url', url: 'u', mediaType: 'image/png' } },
      ]),
    ).toBe('a\n[image/png]');
    expect(stripReminder('<system-reminder>hi</system-reminder>')).toBe('hi');
  });

  it('describes rules the way a person reads them', () => {
    expect(describeRule({ toolName: 'w', ruleContent: null, behavior: 'allow', source: 's' })).toBe(
      'w (every call)',
    );
    expect(
      describeRule({
        toolName: 'Bash',
        ruleContent: 'git status:*',
        behavior: 'deny',
        source: 's',
      }),
    ).toBe('deny Bash(git status:*)');
  });

  it('puts two columns side by side only when the right one has room', () => {
    expect(sideBySide(['ab', 'c'], ['x', 'y', 'z'], 20, { minRight: 5, gap: 1 })).toEqual([
      'ab x',
      'c  y',
      '   z',
    ]);
    expect(sideBySide(['ab'], ['a long preview line'], 10, { minRight: 5, gap: 1 })).toEqual([
      'ab a long…',
    ]);
    expect(sideBySide(['abcdef'], ['x'], 10, { minRight: 5 })).toBeUndefined();
  });
});
