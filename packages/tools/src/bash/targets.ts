import type { Redirect, Word } from './syntax.js';
import { literalWord, UNKNOWN_WORD, wordSuffix } from './syntax.js';
import { optionValues, scanArguments, type ScannedArguments } from './options.js';
import { keyValues, parseOptions, type FoundOption } from './option-table.js';
import { optionTable } from './option-tables.js';
import { inPlaceEdit } from './in-place.js';

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
  /** Removed recursively without asking (`rm -rf`): outside the working directories, a safety ask. */
  forced?: boolean;
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

/**
 * Whether the program is a plain file-system command (see
 * `FILESYSTEM_COMMANDS`), or an in-place edit (`sed -i`, `perl -pi`) whose
 * script only edits the files it names.
 */
export function isFilesystemCommand(program: string, args: readonly Word[]): boolean {
  if (FILESYSTEM_COMMANDS.has(program)) return true;
  const edit = inPlaceEdit(program, args);
  return edit !== undefined && 'files' in edit;
}

const OUTPUT_OPERATORS = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);

/** bash's own network paths: a redirection from or to them opens a connection. */
const NETWORK_PATH = /^\/+dev\/+(tcp|udp)(\/|$)/;

/**
 * The files redirections write to (`2>&1`, `>&2` and `/dev/null` write none),
 * and, for any operator, a redirection to bash's `/dev/tcp` or `/dev/udp`
 * (a network connection) or to a word that might be one (an expansion):
 * those become unknown paths, which nothing grants.
 */
export function redirectTargets(redirects: readonly Redirect[]): TargetWord[] {
  const held = heldFiles(redirects);
  return redirects.flatMap((redirect): TargetWord[] => {
    const target = redirect.target;
    if (target === undefined) return [];
    const duplicates = redirect.operator === '>&' || redirect.operator === '<&';
    if (duplicates && /^(\d+-?|-)$/.test(target.value) && !target.dynamic) return [];
    if (NETWORK_PATH.test(target.value) || target.dynamic)
      return [{ word: { ...target, dynamic: true }, kind: 'write', via: 'redirect' }];
    if (!OUTPUT_OPERATORS.has(redirect.operator)) return [];
    if (target.value === '/dev/null') return [];
    // Writing to /dev/stdout reopens whatever file fd 1 holds (`1<notes.txt >/dev/stdout` truncates it).
    const fd = standardDescriptor(target.value);
    const files = fd === undefined ? [] : (held.get(fd) ?? []);
    return [target, ...files].map((word) => ({
      word,
      kind: 'write' as const,
      via: 'redirect' as const,
    }));
  });
}

/** The descriptor a device path reopens: `/dev/stdout` 1, `/dev/stderr` 2, `/dev/fd/N` N. */
function standardDescriptor(value: string): number | undefined {
  if (/^\/+dev\/+stdout$/.test(value)) return 1;
  if (/^\/+dev\/+stderr$/.test(value)) return 2;
  if (/^\/+dev\/+stdin$/.test(value)) return 0;
  const match = /^\/+(?:dev\/+fd|proc\/+self\/+fd)\/+(\d+)$/.exec(value);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * The files each descriptor may hold through the command's own redirections
 * (`1<notes.txt`, `3<>f`, `2>&1` copying fd 1's): any of them, in any order,
 * since the redirections of the statements around a command are listed with
 * its own. Over-approximates, so a device path that reopens one is never
 * taken for the terminal.
 */
function heldFiles(redirects: readonly Redirect[]): Map<number, Word[]> {
  const held = new Map<number, Word[]>();
  const add = (fd: number, words: readonly Word[]): void => {
    if (words.length > 0) held.set(fd, [...(held.get(fd) ?? []), ...words]);
  };
  for (let pass = 0; pass < 2; pass++) {
    for (const redirect of redirects) {
      const target = redirect.target;
      if (target === undefined || redirect.operator.startsWith('<<')) continue;
      const fd = redirect.descriptor ?? (redirect.operator.startsWith('<') ? 0 : 1);
      const duplicates = redirect.operator === '>&' || redirect.operator === '<&';
      if (duplicates && /^\d+$/.test(target.value)) {
        add(fd, pass === 1 ? (held.get(Number(target.value)) ?? []) : []);
      } else if (pass === 0 && standardDescriptor(target.value) === undefined) {
        add(fd, [target]);
        if (redirect.operator.startsWith('&')) add(2, [target]);
      }
    }
  }
  for (const [fd, words] of held) held.set(fd, [...new Set(words)]);
  return held;
}

const all = (words: readonly Word[], kind: TargetKind): TargetWord[] =>
  words.map((word) => ({ word, kind, via: 'argument' }));

/**
 * The paths a program changes, from its arguments: the operands of `rm`,
 * `cp`, `mkdir`…, and the output options of others (`git --output`, `sort
 * -o`, `curl -o`, `find -delete`'s start points, `git -C`).
 */
export function programTargets(program: string, args: readonly Word[]): TargetWord[] {
  const edit = inPlaceEdit(program, args);
  if (edit !== undefined) {
    return 'files' in edit
      ? all(edit.files, 'write')
      : [{ word: UNKNOWN_PATH, kind: 'write', via: 'argument' }];
  }
  switch (program) {
    case 'rm':
      return read(program, args, (options, operands) => {
        const has = (...keys: string[]) => options.some((option) => keys.includes(option.key));
        const forced = has('-r') && has('-f');
        return all(operands, 'remove').map((target) => (forced ? { ...target, forced } : target));
      });
    case 'rmdir':
    case 'unlink':
    case 'shred':
      return read(program, args, (_, operands) => all(operands, 'remove'));
    case 'mkdir':
    case 'touch':
    case 'tee':
    case 'truncate':
      return read(program, args, (_, operands) => all(operands, 'write'));
    case 'cp':
    case 'mv':
    case 'ln':
    case 'install':
      return read(program, args, (options, operands) =>
        all([...operands, ...keyValues({ options }, '-t')], 'write'),
      );
    case 'chmod':
    case 'chown':
    case 'chgrp':
      return read(program, args, (options, operands) =>
        all(
          operands.slice(options.some((option) => option.key === '--reference') ? 0 : 1),
          'write',
        ),
      );
    case 'uniq':
      // A glob operand may expand to IN OUT: what it writes is then unknown.
      return read(program, args, (_, operands) =>
        operands.some((word) => word.glob)
          ? [{ word: UNKNOWN_PATH, kind: 'write', via: 'argument' }]
          : all(operands.slice(1), 'write'),
      );
    case 'xxd':
      return all(scanArguments(args, { short: 'cglnosR' }).operands.slice(1), 'write');
    case 'sort':
      return read(program, args, (options) => all(keyValues({ options }, '-o', '-T'), 'write'));
    case 'tree':
      return read(program, args, (options) => all(keyValues({ options }, '-o'), 'write'));
    case 'awk':
    case 'gawk':
    case 'nawk':
      // gawk -o/-p/-d write a pretty-print, a profile or a variable dump, by default in the cwd.
      return read(program, args, (options) =>
        options.flatMap((option) => {
          const fallback = option.key === '-d' ? 'awkvars.out' : 'awkprof.out';
          if (!['-o', '-p', '-d'].includes(option.key)) return [];
          return all(option.values.length > 0 ? option.values : [literalWord(fallback)], 'write');
        }),
      );
    case 'time':
      return read(program, args, (options) => all(keyValues({ options }, '-o'), 'write'));
    case 'find':
      return findTargets(args);
    case 'git':
      return gitTargets(args);
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

const UNKNOWN_PATH = UNKNOWN_WORD;

/**
 * The targets a program names, read with its full option table; when the
 * arguments cannot be read (an unknown or ambiguous option), an unknown
 * target, so that nothing is granted on a guess.
 */
function read(
  program: string,
  args: readonly Word[],
  targets: (options: FoundOption[], operands: Word[]) => TargetWord[],
): TargetWord[] {
  const table = optionTable(program);
  const parsed = table === undefined ? undefined : parseOptions(args, table);
  if (parsed === undefined || !parsed.ok)
    return [{ word: UNKNOWN_PATH, kind: 'write', via: 'argument' }];
  return targets(parsed.options, parsed.operands);
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
  // git's option parser takes any unambiguous prefix: `--out=x`, `--output-d x`.
  const outputLong = (text: string): boolean => {
    const name = /^--([^=]{2,})/.exec(text)?.[1];
    return name !== undefined && ['output', 'output-directory'].some((o) => o.startsWith(name));
  };
  const shortOutput = subcommand === 'format-patch' || subcommand === 'archive';
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i];
    if (word === undefined || word.value === '--') break;
    const text = word.value;
    if (outputLong(text)) {
      const value = text.includes('=') ? afterEquals(word) : rest[++i];
      targets.push({ word: value ?? UNKNOWN_PATH, kind: 'write', via: 'argument' });
    } else if (shortOutput && /^-[^-]*o/.test(text)) {
      const at = text.indexOf('o');
      const value = at === text.length - 1 ? rest[++i] : wordSuffix(word, at + 1);
      targets.push({ word: value ?? UNKNOWN_PATH, kind: 'write', via: 'argument' });
    }
  }
  return targets;
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
