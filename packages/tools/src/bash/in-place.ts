import type { Word } from './syntax.js';
import { literalWord } from './syntax.js';
import { hasKey, keyValues, parseOptions } from './option-table.js';
import { optionTable } from './option-tables.js';
import { sedScriptEffect, sedScriptReads } from './sed.js';

/**
 * What an in-place edit (`sed -i`, `perl -pi`) does: an ordinary edit of
 * the `files` it names (with their backups), or `unsafe` with why it may do
 * more (its script writes other files, reads them, runs commands, or cannot
 * be read). SPEC sections 6 and 7.
 */
export type InPlaceEdit = { files: Word[] } | { unsafe: string };

/** The in-place edit a command makes; undefined when it makes none (no `-i`). */
export function inPlaceEdit(program: string, args: readonly Word[]): InPlaceEdit | undefined {
  if (program === 'sed') return sedInPlace(args);
  if (/^perl[0-9.]*$/.test(program)) return perlInPlace(args);
  return undefined;
}

/** A backup suffix that keeps the backup beside its file (no `/`, no `*` naming another place). */
function backupsOf(files: readonly Word[], suffix: Word | undefined): Word[] | string {
  if (suffix === undefined || suffix.value === '') return [];
  if (suffix.dynamic || /[/*]/.test(suffix.value))
    return 'the -i backup suffix may name another directory';
  return files.map((file) => ({
    ...file,
    value: file.value + suffix.value,
    text: file.text + suffix.value,
  }));
}

function sedInPlace(args: readonly Word[]): InPlaceEdit | undefined {
  const table = optionTable('sed');
  const parsed = table === undefined ? undefined : parseOptions(args, table);
  if (parsed === undefined || !parsed.ok) return undefined;
  if (!hasKey(parsed, '-i')) return undefined;
  if (hasKey(parsed, '-f'))
    return { unsafe: 'sed -i -f runs a script file that cannot be analysed' };
  const expressions = keyValues(parsed, '-e');
  const scripts = expressions.length > 0 ? expressions : parsed.operands.slice(0, 1);
  const files = expressions.length > 0 ? parsed.operands : parsed.operands.slice(1);
  for (const script of scripts) {
    if (script.dynamic) return { unsafe: 'sed -i script cannot be analysed' };
    const effect = sedScriptEffect(script.value);
    if (effect === 'writes') return { unsafe: 'sed -i script writes other files (w)' };
    if (effect === 'executes') return { unsafe: 'sed -i script runs commands (e)' };
    if (effect === 'unknown') return { unsafe: 'sed -i script cannot be analysed' };
    if ((sedScriptReads(script.value) ?? ['?']).length > 0)
      return { unsafe: 'sed -i script reads other files (r, R)' };
  }
  const backups = backupsOf(files, keyValues(parsed, '-i')[0]);
  if (typeof backups === 'string') return { unsafe: `sed: ${backups}` };
  return { files: [...files, ...backups] };
}

/** perl switches that take nothing and change nothing about what runs. */
const PERL_PLAIN_SWITCHES = new Set(['p', 'n', 'w']);

type PerlCall = { inPlace: boolean; suffix: string; code: Word[]; files: Word[] } | string;

/**
 * Reads perl's switches far enough for an in-place edit: clusters of `-p`,
 * `-n`, `-w`, `-l[OCTAL]`, `-0[OCTAL]`, `-i[SUFFIX]` (which takes the rest of its
 * cluster, so `-pie` is `-p -i` with suffix `e`) and `-e CODE`. Any other
 * switch (`-M`, `-I`, `-x`, `-d`…) loads or runs more code: a string saying
 * which.
 */
function readPerl(args: readonly Word[]): PerlCall {
  let inPlace = false;
  let suffix = '';
  const code: Word[] = [];
  let index = 0;
  for (; index < args.length; index++) {
    const word = args[index];
    if (word === undefined) break;
    const text = word.value;
    if (text === '--') {
      index++;
      break;
    }
    if (!text.startsWith('-') || text === '-') break;
    if (word.dynamic || word.glob) return `the perl switch ${word.text} cannot be analysed`;
    for (let at = 1; at < text.length; at++) {
      const letter = text[at] ?? '';
      if (letter === 'i') {
        inPlace = true;
        suffix = text.slice(at + 1);
        break;
      }
      if (letter === 'e' || letter === 'E') {
        const rest = text.slice(at + 1);
        const given = rest === '' ? args[++index] : { ...word, value: rest, text: rest };
        if (given === undefined) return 'perl -e without code';
        code.push(given);
        break;
      }
      if (letter === '0' || letter === 'l') {
        at += /^[0-7]*/.exec(text.slice(at + 1))?.[0].length ?? 0;
        continue;
      }
      if (!PERL_PLAIN_SWITCHES.has(letter)) return `the perl switch -${letter} loads or runs code`;
    }
  }
  if (code.length === 0) return 'perl runs a script file';
  return { inPlace, suffix, code, files: args.slice(index) };
}

function perlInPlace(args: readonly Word[]): InPlaceEdit | undefined {
  const call = readPerl(args);
  const inPlace =
    typeof call === 'string' ? args.some((word) => /^-[^-]*i/.test(word.value)) : call.inPlace;
  if (!inPlace) return undefined;
  if (typeof call === 'string') return { unsafe: `perl -i: ${call}` };
  for (const code of call.code) {
    if (code.dynamic || !perlEditsOnly(code.value))
      return { unsafe: 'perl -i code cannot be shown to only edit the named files' };
  }
  const backups = backupsOf(call.files, literalWord(call.suffix));
  if (typeof backups === 'string') return { unsafe: `perl: ${backups}` };
  return { files: [...call.files, ...backups] };
}

/**
 * Whether perl code is only substitutions and transliterations (`s/a/b/g;
 * tr/a-z/A-Z/`), which change the lines perl prints back into the file and
 * nothing else. Refused: the `e` flag (runs the replacement), bracketing
 * delimiters, and anything in a pattern or replacement that interpolates
 * code: `@` (`@{[ … ]}`), `${` / `$` before a name (`${\ … }`, tied
 * variables), and `(?{` / `(??{` code blocks. `$1`, `$&` and a `$` anchor stay.
 */
export function perlEditsOnly(code: string): boolean {
  let at = 0;
  const skipBlanks = (): void => {
    while (at < code.length && /[\s;]/.test(code[at] ?? '')) at++;
  };
  skipBlanks();
  if (at >= code.length) return false;
  while (at < code.length) {
    const operator = /^(s|tr|y)(?![A-Za-z0-9_])/.exec(code.slice(at))?.[1];
    if (operator === undefined) return false;
    at += operator.length;
    const delimiter = code[at] ?? '';
    if (delimiter === '' || /[\s\w([{<]/.test(delimiter)) return false;
    at++;
    const parts: string[] = [];
    for (let part = 0; part < 2; part++) {
      let text = '';
      for (;;) {
        const char = code[at];
        if (char === undefined) return false;
        at++;
        if (char === '\\') {
          text += char + (code[at] ?? '');
          at++;
          continue;
        }
        if (char === delimiter) break;
        text += char;
      }
      parts.push(text);
    }
    const flags = /^[a-z]*/.exec(code.slice(at))?.[0] ?? '';
    at += flags.length;
    if (operator === 's') {
      if (!/^[msixpodualngcr]*$/.test(flags) || flags.includes('e')) return false;
      if (delimiter !== "'" && parts.some(interpolatesCode)) return false;
    } else if (!/^[cdsr]*$/.test(flags)) return false;
    skipBlanks();
  }
  return true;
}

/** Whether a pattern or replacement of `s///` may run code when perl interpolates it. */
function interpolatesCode(text: string): boolean {
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === '\\') {
      at++;
      continue;
    }
    const next = text[at + 1] ?? '';
    if (char === '@') return true;
    if (char === '$' && !/^([0-9&]|$|[)|])/.test(next)) return true;
    if (char === '(' && next === '?' && /^\?{|^\?\?{/.test(text.slice(at + 1))) return true;
  }
  return false;
}
