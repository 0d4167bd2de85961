import type { ParsedScript, Word } from './syntax.js';
import { literalWord } from './syntax.js';

/** Only characters that mean nothing to the shell, separated by blanks. */
const PLAIN_LINE = /^[A-Za-z0-9_@%+=:,./-]+(?:[ \t]+[A-Za-z0-9_@%+=:,./-]+)*$/;
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/;
const RESERVED = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'case',
  'esac',
  'for',
  'select',
  'while',
  'until',
  'do',
  'done',
  'in',
  'function',
  'time',
  'coproc',
]);

/**
 * Reads a command line without the grammar, for the moment before it has
 * loaded: only a single command made of plain words (no quotes, operators,
 * globs, `~`, `$`, comments), which bash splits exactly on blanks. Anything
 * else gives undefined, and the caller must assume the worst.
 */
export function parsePlainCommand(source: string): ParsedScript | undefined {
  const line = source.trim();
  if (!PLAIN_LINE.test(line)) return undefined;
  const tokens = line.split(/[ \t]+/);
  const assignments = [];
  let index = 0;
  for (; index < tokens.length; index++) {
    const match = ASSIGNMENT.exec(tokens[index] ?? '');
    if (match === null) break;
    assignments.push({ name: match[1] ?? '', value: literalWord(match[2] ?? '') });
  }
  const words: Word[] = tokens.slice(index).map((token) => literalWord(token));
  if (words.length > 0 && RESERVED.has(words[0]?.value ?? '')) return undefined;
  const kind = words.length === 0 ? 'assignment' : 'command';
  return { commands: [{ kind, assignments, words, redirects: [], depth: 0 }], hazards: [] };
}
