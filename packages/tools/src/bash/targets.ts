import type { Redirect, Word } from './syntax.js';
import { wordSuffix } from './syntax.js';
import { isHarmlessSink } from '../shared/dangerous-paths.js';
import { optionValues, scanArguments, type ScannedArguments } from './options.js';

/** `write`: the path is created or changed; `remove`: it is deleted. */
export type TargetKind = 'write' | 'remove';

/**
 * A path a command changes, still as a word (resolved later against the
 * cwd). `via`: named as an argument (`rm x`, `cp a b`), which the rule
 * allowing the command covers, or as an output redirection (`> x`), which is
 * a file write like the Write tool's. `contents`: the command works on what
 * it finds below the path (`find dir -delete`), so a working directory itself is expected.
 */
export type TargetWord = {
  word: Word;
  kind: TargetKind;
  via: 'argument' | 'redirect';
  contents?: boolean;
};

/**
 * Commands that only create, copy, move, change or remove files, so that
 * `accept_edits` and `dont_ask` may allow them when every target is inside a
 * working directory (SPEC section 6). Other commands need a rule.
 */
const FILESYSTEM_COMMANDS = new Set([
  'mkdir',
  'touch',
  'rm',
  'rmdir',
  'unlink',
  'cp',
  'mv',
  'ln',
  'chmod',
  'tee',
  'truncate',
]);

/** Whether the program is a plain file-system command (see `FILESYSTEM_COMMANDS`). */
export function isFilesystemCommand(program: string): boolean {
  return FILESYSTEM_COMMANDS.has(program);
}

const OUTPUT_OPERATORS = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);

/** The files output redirections write to; `2>&1`, `>&2` and `/dev/null` write none. */
export function redirectTargets(redirects: readonly Redirect[]): TargetWord[] {
  return redirects.flatMap((redirect) => {
    const target = redirect.target;
    if (!OUTPUT_OPERATORS.has(redirect.operator) || target === undefined) return [];
    if (redirect.operator === '>&' && /^(\d+|-)$/.test(target.value) && !target.dynamic) return [];
    if (!target.dynamic && !target.glob && isHarmlessSink(target.value)) return [];
    return [{ word: target, kind: 'write' as const, via: 'redirect' as const }];
  });
}

const all = (words: readonly Word[], kind: TargetKind): TargetWord[] =>
  words.map((word) => ({ word, kind, via: 'argument' }));

/**
 * The paths a program changes, from its arguments: the operands of `rm`,
 * `cp`, `mkdir`…, and the output options of others (`git --output`, `sort
 * -o`, `curl -o`, `find -delete`'s start points, `git -C`).
 */
export function programTargets(program: string, args: readonly Word[]): TargetWord[] {
  switch (program) {
    case 'rm':
    case 'rmdir':
    case 'unlink':
    case 'shred':
      return all(
        scanArguments(args, { short: 'n', long: ['iterations', 'size'] }).operands,
        'remove',
      );
    case 'mkdir':
      return all(scanArguments(args, { short: 'm', long: ['mode', 'context'] }).operands, 'write');
    case 'touch':
      return all(
        scanArguments(args, { short: 'rdt', long: ['reference', 'date', 'time'] }).operands,
        'write',
      );
    case 'cp':
    case 'mv':
    case 'ln': {
      const scanned = scanArguments(args, { short: 'tS', long: ['target-directory', 'suffix'] });
      return all(
        [...scanned.operands, ...optionValues(scanned, '-t', '--target-directory')],
        'write',
      );
    }
    case 'chmod':
    case 'chown':
    case 'chgrp': {
      const scanned = scanArguments(args, { long: ['reference'] });
      const byReference = scanned.options.some((option) => option.name === '--reference');
      return all(scanned.operands.slice(byReference ? 0 : 1), 'write');
    }
    case 'tee':
    case 'truncate':
      return all(
        scanArguments(args, { short: 'sr', long: ['size', 'reference'] }).operands,
        'write',
      );
    case 'uniq':
    case 'xxd':
      return all(scanArguments(args, { short: 'fswcgl' }).operands.slice(1), 'write');
    case 'find':
      return findTargets(args);
    case 'git':
      return gitTargets(args);
    case 'sort':
      return outputs(
        scanArguments(args, { short: 'otSk', long: ['output', 'temporary-directory', 'key'] }),
        '-o',
        '--output',
      );
    case 'tree':
      return outputs(scanArguments(args, { short: 'oLPIH' }), '-o');
    case 'curl':
      return outputs(
        scanArguments(args, {
          short: 'oDcdHXuAeFKbTwx',
          long: [
            'output',
            'output-dir',
            'cookie-jar',
            'dump-header',
            'trace',
            'trace-ascii',
            'data',
            'header',
            'request',
            'user',
            'url',
          ],
        }),
        '-o',
        '--output',
        '--output-dir',
        '-c',
        '--cookie-jar',
        '-D',
        '--dump-header',
        '--trace',
        '--trace-ascii',
      );
    case 'wget':
      return outputs(
        scanArguments(args, {
          short: 'OoaP',
          long: ['output-document', 'output-file', 'append-output', 'directory-prefix'],
        }),
        '-O',
        '--output-document',
        '-o',
        '--output-file',
        '-a',
        '--append-output',
        '-P',
        '--directory-prefix',
      );
    case 'dd':
      return args.flatMap((arg) =>
        arg.value.startsWith('of=')
          ? [{ word: afterEquals(arg), kind: 'write' as const, via: 'argument' as const }]
          : [],
      );
    default:
      return [];
  }
}

function outputs(scanned: ScannedArguments, ...names: string[]): TargetWord[] {
  return all(optionValues(scanned, ...names), 'write');
}

/** `find` removes what it finds under its start points with `-delete`, and writes `-fprint` files. */
function findTargets(args: readonly Word[]): TargetWord[] {
  const starts: Word[] = [];
  for (const arg of args) {
    if (/^[-(!]/.test(arg.value)) break;
    starts.push(arg);
  }
  const targets: TargetWord[] = [];
  if (args.some((arg) => arg.value === '-delete')) {
    targets.push(
      ...starts.map((word) => ({
        word,
        kind: 'remove' as const,
        via: 'argument' as const,
        contents: true,
      })),
    );
  }
  args.forEach((arg, i) => {
    const next = args[i + 1];
    if (/^-(fprint0?|fprintf|fls)$/.test(arg.value) && next !== undefined)
      targets.push({ word: next, kind: 'write', via: 'argument' });
  });
  return targets;
}

/** git changes the repository it is pointed at (`-C`, `--git-dir`, `--work-tree`) and `--output` files. */
function gitTargets(args: readonly Word[]): TargetWord[] {
  const targets: TargetWord[] = [];
  let index = 0;
  for (; index < args.length; index++) {
    const text = args[index]?.value ?? '';
    if (!text.startsWith('-')) break;
    const next = args[index + 1];
    if (text === '-C' && next !== undefined) {
      targets.push({ word: next, kind: 'write', via: 'argument' });
      index++;
    } else if (/^--(git-dir|work-tree)=/.test(text)) {
      const word = args[index];
      if (word !== undefined)
        targets.push({ word: afterEquals(word), kind: 'write', via: 'argument' });
    } else if (
      text === '-c' ||
      text === '--git-dir' ||
      text === '--work-tree' ||
      text === '--namespace'
    ) {
      if (next !== undefined && text !== '-c')
        targets.push({ word: next, kind: 'write', via: 'argument' });
      index++;
    }
  }
  const subcommand = args[index]?.value;
  const rest = args.slice(index + 1);
  const scanned = scanArguments(rest, {
    short: subcommand === 'format-patch' || subcommand === 'archive' ? 'o' : '',
    long: ['output', 'output-directory'],
  });
  const names = [
    '--output',
    '--output-directory',
    ...(subcommand === 'format-patch' || subcommand === 'archive' ? ['-o'] : []),
  ];
  return [...targets, ...outputs(scanned, ...names)];
}

function afterEquals(word: Word): Word {
  return wordSuffix(word, word.value.indexOf('=') + 1);
}

/**
 * Where a `cd`/`pushd` goes: a literal path, `~` for none, or undefined when
 * it cannot be known (`cd -`, `popd`, an expansion).
 */
export function changedDirectory(program: string, args: readonly Word[]): string | undefined {
  if (program !== 'cd' && program !== 'pushd') return undefined;
  const operand = scanArguments(args).operands[0];
  if (operand === undefined) return '~';
  if (operand.dynamic || operand.glob || operand.value === '-') return undefined;
  return operand.value;
}
