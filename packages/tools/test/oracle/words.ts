import fc from 'fast-check';
import type { GeneratorValue } from 'fast-check';
import type { ValueKind } from './program-table.js';

/**
 * Words for the oracle's grammar: values for each kind of option value or
 * operand, the expansions bash performs, and the ways bash lets one word be
 * written (quotes of three kinds, ANSI-C escapes, backslashes, and mixes of
 * them). Each draw goes through fast-check's generator, so a seed replays a
 * command exactly.
 */

/** The draws a grammar rule can make; wraps fast-check's `gen()` value. */
export class Draw {
  /**
   * A tame line keeps to plain words, quiet redirections and no expansions,
   * so that more lines are allowed and run; the rest go for the corners.
   */
  readonly tame: boolean;

  constructor(private readonly generate: GeneratorValue) {
    this.tame = this.chance(40);
  }

  /** One of `choices`. */
  pick<T>(choices: readonly T[]): T {
    const chosen = choices[this.int(0, choices.length - 1)];
    if (chosen === undefined) throw new Error('nothing to pick from');
    return chosen;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return this.generate(fc.integer, { min, max });
  }

  /** True `percent` times in a hundred. */
  chance(percent: number): boolean {
    return this.int(0, 99) < percent;
  }
}

/** A word of the command and whether the grammar may re-quote it (expansions and globs must stay bare). */
export type Word = { text: string; raw: boolean };

const plain = (text: string): Word => ({ text, raw: false });
const raw = (text: string): Word => ({ text, raw: true });

/** Loopback port the `/dev/tcp` words point at; nothing listens there, and the namespace has no network anyway. */
export const LOOPBACK_PORT = 9;

const VALUES: Readonly<Record<ValueKind, readonly Word[]>> = {
  file: [
    ...['README.md', 'notes.txt', 'data.csv', 'src/index.ts', 'src', 'docs/guide.md', '.env'].map(
      plain,
    ),
    ...['.git/config', '.git/HEAD', '/etc/hostname', '/dev/null', '-', '.', 'missing.txt'].map(
      plain,
    ),
    ...['/proc/self/status', '/proc/self/cwd/README.md', '../home/.bashrc'].map(plain),
    raw('~/.bashrc'),
  ],
  out: [
    ...['out.txt', 'README.md', 'notes.txt', '.git/hooks/pre-commit', '.git/config'].map(plain),
    ...['../escape.txt', 'src/new.ts', '/dev/null', '/dev/stdout', '/dev/stderr'].map(plain),
    ...['/proc/self/cwd/out.txt', `/dev/tcp/127.0.0.1/${LOOPBACK_PORT}`].map(plain),
    raw('~/.bashrc'),
  ],
  dir: [...['.', 'src', 'docs', '.git', '.git/hooks', '..', '/proc/self/cwd'].map(plain), raw('~')],
  number: ['1', '2', '5', '0', '10', '-1', '+2', '3'].map(plain),
  text: ['foo', 'TODO', 'a b', 'x', ',', ':', '-', '-x', '', 'list', 'show'].map(plain),
  pattern: ['foo', 'TODO', '^a', 'b.*', '[a-z]+', '-e', '*.md', 'beta'].map(plain),
  program: ['cat', 'od', 'less', 'sh', 'ls', 'true', 'id'].map(plain),
  format: ['%s\\n', '%p\\n', '%n', '%h %s', '+%Y', '%x', '%d'].map(plain),
  signal: ['TERM', 'KILL', '0', 'INT', 'HUP'].map(plain),
  duration: ['1', '2', '0.5', '1s'].map(plain),
  size: ['1K', '10', '1M'].map(plain),
  key: ['1', '2', '1,1', '2n'].map(plain),
  assignment: [
    ...['X=1', 'LANG=C', 'core.pager=od', 'core.fsmonitor=id', 'diff.external=od'].map(plain),
    ...['core.hooksPath=.', 'pager.log=less', 'PAGER=less', 'GIT_PAGER=od', 'n=1'].map(plain),
  ],
  sed: [
    ...['p', '1p', 's/a/b/', 's/a/b/g', '/foo/d', '$p', '1d', 'q', 'l', '=', 'y/ab/xy/'].map(plain),
    ...['s/a/b/w out.txt', 'w out.txt', '1e id', 's/.*/id/e', 'r README.md', 'W out.txt'].map(
      plain,
    ),
    ...['1!G;h;$!d', 'F', '2{p;q}', 's/x/y/;w .git/config'].map(plain),
  ],
  awk: [
    ...['{print}', '{print $1}', 'NR==1', 'BEGIN{print 1}', 'END{print NR}'].map(plain),
    ...['{print > "out.txt"}', 'BEGIN{system("id")}', 'BEGIN{"id" | getline x; print x}'].map(
      plain,
    ),
    ...[
      '{print | "cat"}',
      '{print $0 > "/dev/null"}',
      '@include "x"',
      'BEGIN{printf "a" >> "notes.txt"}',
    ].map(plain),
    ...[
      'BEGIN { while ((getline line < "README.md") > 0) print line }',
      '{ print > "/dev/stderr" }',
    ].map(plain),
  ],
  jq: ['.', '.a', 'keys', '$__loc__', 'input_filename', 'env.HOME', '[inputs]'].map(plain),
  when: ['always', 'never', 'auto'].map(plain),
  expression: ['-f', '-d', '-e', '-s', '-n', '-z', '-w'].map(plain),
  revision: ['HEAD', 'main', 'feature', 'HEAD~1', 'HEAD..feature', '-1'].map(plain),
  'config-key': ['user.name', 'core.pager', 'alias.x', 'user.email', 'core.editor'].map(plain),
  name: [
    'x',
    'origin',
    'feature',
    'list',
    'show',
    'PATH',
    'HOME',
    'new-branch',
    'inplace',
    'filefuncs',
  ].map(plain),
};

/** Expansions bash performs on a word, used in place of an operand now and then. */
const EXPANSIONS: readonly Word[] = [
  ...['~', '~/.bashrc', '*.md', 'src/*', '.git/h*', '{README.md,notes.txt}', '[R]EADME.md'].map(
    raw,
  ),
  ...['?otes.txt', '$HOME', '${HOME}/.profile', '"$HOME"/.bashrc', '$PWD', '$((1+2))'].map(raw),
  ...['$(echo README.md)', '`echo notes.txt`', '<(cat notes.txt)', "$'\\x2e'env", '$1', '"$@"'].map(
    raw,
  ),
  ...['${X:-README.md}', '${#HOME}', '!(x)', '$_', '$0'].map(raw),
  // Globs that match more than one file: one word, several operands.
  ...['[nR]*', 'src/*.ts', '*.*', 'd*/* src/*'].map(raw),
];

/** A value of `kind`, sometimes an expansion instead. */
export function value(draw: Draw, kind: ValueKind): Word {
  if (!draw.tame && draw.chance(4)) return draw.pick(EXPANSIONS);
  return draw.pick(VALUES[kind]);
}

const BARE = /^[A-Za-z0-9_.,/:@%+=-]+$/;

/**
 * The word written in a way bash reads back as `text`: bare, in single or
 * double quotes, as an ANSI-C string with some characters escaped (hex or
 * octal), with every character backslashed, or pieces of it in different
 * styles side by side.
 */
export function quote(draw: Draw, word: Word): string {
  if (word.raw) return word.text;
  const text = word.text;
  const style = draw.chance(draw.tame ? 95 : 70)
    ? 'bare'
    : draw.pick(['single', 'double', 'ansi', 'ansi', 'backslash', 'mixed', 'mixed']);
  if (style === 'mixed' && text.length >= 2) {
    const cut = draw.int(1, text.length - 1);
    return (
      quoteAs(
        draw,
        text.slice(0, cut),
        draw.pick(['single', 'double', 'ansi', 'backslash', 'bare']),
      ) +
      quoteAs(draw, text.slice(cut), draw.pick(['single', 'double', 'ansi', 'backslash', 'bare']))
    );
  }
  return quoteAs(draw, text, style);
}

function quoteAs(draw: Draw, text: string, style: string): string {
  switch (style) {
    case 'bare':
      return BARE.test(text) ? text : singleQuoted(text);
    case 'double':
      return `"${text.replace(/[\\"$`]/g, (char) => `\\${char}`)}"`;
    case 'ansi':
      return ansiQuoted(draw, text);
    case 'backslash':
      return text === '' ? "''" : [...text].map((char) => `\\${char}`).join('');
    default:
      return singleQuoted(text);
  }
}

function singleQuoted(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

function ansiQuoted(draw: Draw, text: string): string {
  let body = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const form = code < 128 ? draw.pick(['plain', 'plain', 'hex', 'octal']) : 'plain';
    if (form === 'hex') body += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (form === 'octal') body += `\\${code.toString(8).padStart(3, '0')}`;
    else if (char === "'" || char === '\\') body += `\\${char}`;
    else body += char;
  }
  return `$'${body}'`;
}
