import { stripVTControlCharacters } from 'node:util';
import { assertNever } from '@parley/core';
import type { PermissionRule, ToolResultBlock, ToolResultState } from '@parley/core';
import { inert } from './inert.js';
import type { Colors } from './theme.js';
import { glyphs } from './theme.js';

/** Columns a string takes on screen, ignoring colour codes. */
export function visibleWidth(text: string): number {
  return [...stripVTControlCharacters(text)].length;
}

/** Cuts plain text to `width` columns, ending with "…" when it had to cut. */
export function truncate(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  if (width <= 1) return '…'.slice(0, Math.max(0, width));
  return `${chars.slice(0, width - 1).join('')}…`;
}

/** Pads a (possibly coloured) string with spaces to `width` columns. */
export function padVisible(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - visibleWidth(text)));
}

/** Whitespace runs (newlines included) collapsed to single spaces. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The text inside Parley's `<system-reminder>` wrappers, for showing to a person. */
export function stripReminder(text: string): string {
  return text.replace(/<\/?system-reminder>/g, '').trim();
}

/** Parses a tool call's raw JSON input; undefined when it is not JSON. */
export function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/** A tool input pretty-printed (two-space JSON), or the raw text when it is not JSON; inert. */
export function prettyInput(raw: string): string {
  const parsed = parseJson(raw);
  return inert(parsed === undefined ? raw : JSON.stringify(parsed, null, 2));
}

/** A tool input on one line: `key: value, …` for an object, else compact JSON or raw text; inert. */
export function compactInput(raw: string): string {
  return inert(compactText(raw));
}

function compactText(raw: string): string {
  const parsed = parseJson(raw);
  if (parsed === undefined) return oneLine(raw);
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
    return Object.entries(parsed)
      .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
      .join(', ');
  }
  return JSON.stringify(parsed);
}

/** An AskUser input summarised by its question headers; undefined for anything else. */
function askUserSummary(rawInput: string): string | undefined {
  const parsed = parseJson(rawInput);
  if (typeof parsed !== 'object' || parsed === null || !('questions' in parsed)) return undefined;
  const questions = parsed.questions;
  if (!Array.isArray(questions)) return undefined;
  const headers = questions.map((question: unknown) =>
    typeof question === 'object' && question !== null && 'header' in question
      ? String(question.header)
      : '?',
  );
  return `${headers.length} question${headers.length === 1 ? '' : 's'}: ${headers.join(', ')}`;
}

/**
 * One line for a tool call: `● name(key: value, …)`, cut to the terminal
 * width; an AskUser call shows its question headers.
 */
export function formatToolCall(
  name: string,
  rawInput: string,
  width: number,
  colors: Colors,
): string {
  const shownName = inert(name);
  const head = `${glyphs.call} ${shownName}`;
  const summary = inert(
    (name === 'AskUser' ? askUserSummary(rawInput) : undefined) ?? compactText(rawInput),
  );
  const args = truncate(`(${summary})`, Math.max(8, width - visibleWidth(head)));
  return `${colors.cyan(glyphs.call)} ${colors.bold(shownName)}${colors.dim(args)}`;
}

/** The text of a tool result's output; data blocks show as `[mediaType]`. */
export function resultText(output: ToolResultBlock['output']): string {
  if (typeof output === 'string') return output;
  return output
    .map((block) => {
      switch (block.type) {
        case 'text':
          return block.text;
        case 'data':
          return `[${block.source.mediaType}]`;
        default:
          return assertNever(block, 'tool output block');
      }
    })
    .join('\n');
}

function stateMark(state: ToolResultState, colors: Colors): string {
  switch (state) {
    case 'success':
      return colors.green(glyphs.success);
    case 'error':
      return colors.red(glyphs.error);
    case 'denied':
      return colors.yellow(glyphs.denied);
    case 'interrupted':
      return colors.yellow(glyphs.interrupted);
    case 'running':
      return colors.dim('…');
    default:
      return assertNever(state, 'tool result state');
  }
}

/**
 * Two spaces, `⎿`, the tool's name when given (for a result not right under
 * its call), a state mark and the first line of the result, cut to the width;
 * when there is more, a dim `(+N lines)`.
 */
export function formatToolResult(
  state: ToolResultState,
  text: string,
  width: number,
  colors: Colors,
  label?: string,
): string {
  const lines = inert(stripReminder(text))
    .split('\n')
    .filter((line) => line.trim() !== '');
  const first = lines[0] ?? (state === 'success' ? 'done' : state);
  const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : '';
  const name = label === undefined ? '' : `${inert(label)} `;
  const room = Math.max(8, width - 6 - visibleWidth(name) - more.length);
  const body = truncate(first.trim(), room);
  const painted =
    state === 'error' ? colors.red(body) : state === 'success' ? body : colors.yellow(body);
  const mark = stateMark(state, colors);
  const named = name === '' ? '' : colors.bold(name);
  return `  ${colors.dim(glyphs.result)} ${named}${mark} ${painted}${more === '' ? '' : colors.dim(more)}`;
}

/** A permission rule as a person reads it: `write_note (every call)`, `Bash(git status:*)`. */
export function describeRule(rule: PermissionRule): string {
  const what = inert(
    rule.ruleContent === null
      ? `${rule.toolName} (every call)`
      : `${rule.toolName}(${rule.ruleContent})`,
  );
  return rule.behavior === 'allow' ? what : `${rule.behavior} ${what}`;
}

/** A short label drawn as a chip (reverse video). */
export function chip(text: string, colors: Colors): string {
  return colors.bold(colors.inverse(` ${text} `));
}

/** Every line of `text` with `prefix` in front. */
export function indentLines(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}

/**
 * Two columns side by side, `left` (may be coloured) padded to its widest
 * line, when both fit in `width` with the right column at least `minRight`
 * wide; otherwise undefined, and the caller stacks them. `right` is plain
 * text, cut to the room left and then painted with `paint`.
 */
export function sideBySide(
  left: string[],
  right: string[],
  width: number,
  options: { gap?: number; minRight?: number; paint?: (line: string) => string } = {},
): string[] | undefined {
  const paint = options.paint ?? ((line: string): string => line);
  const gap = options.gap ?? 3;
  const leftWidth = Math.max(0, ...left.map(visibleWidth));
  const rightWidth = width - leftWidth - gap;
  if (rightWidth < (options.minRight ?? 30)) return undefined;
  const rows = Math.max(left.length, right.length);
  const lines: string[] = [];
  for (let row = 0; row < rows; row++) {
    const l = padVisible(left[row] ?? '', leftWidth);
    const r = right[row];
    lines.push(
      r === undefined ? l.trimEnd() : `${l}${' '.repeat(gap)}${paint(truncate(r, rightWidth))}`,
    );
  }
  return lines;
}
