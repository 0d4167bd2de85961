import { beforeAll, describe, expect, it } from 'vitest';
import type { Parser } from 'web-tree-sitter';
import { parseScript } from './parse.js';
import { loadBashParser } from './parser.js';
import { loadSecondParser } from './second-parser.js';
import { parsePlainCommand } from './simple-parse.js';
import type { HazardKind, ParsedScript } from './syntax.js';
import { decodeAnsiC } from './words.js';

let parser: Parser;
beforeAll(async () => {
  parser = await loadBashParser();
  await loadSecondParser();
});

const parse = (source: string): ParsedScript => parseScript(parser, source);
const words = (source: string, index = 0): string[] =>
  parse(source).commands[index]?.words.map((word) => word.value) ?? [];
const hazards = (source: string): HazardKind[] =>
  parse(source).hazards.map((hazard) => hazard.kind);

describe('parseScript', () => {
  it('splits sub-commands across ; && || | & and newlines, in order', () => {
    const script = parse('a 1; b 2 && c 3 || d 4 | e 5 & f 6\ng 7');
    expect(script.commands.map((command) => command.words[0]?.value)).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
      'f',
      'g',
    ]);
    expect(script.hazards).toEqual([]);
  });

  it('removes quotes and escapes the way bash does', () => {
    expect(words(`"rm" -rf`)).toEqual(['rm', '-rf']);
    expect(words(`r""m 'a b' c\\ d`)).toEqual(['rm', 'a b', 'c d']);
    expect(words(`\\rm x`)).toEqual(['rm', 'x']);
    expect(words(`echo "a\\"b\\$c\\\\d\\e"`)).toEqual(['echo', 'a"b$c\\d\\e']);
    expect(words(`$'\\x72\\x6d' $'a\\tb'`)).toEqual(['rm', 'a\tb']);
  });

  it('gives canonical text: plain words bare, others single-quoted', () => {
    const command = parse(`git commit -m "fix: it's done" 'x'`).commands[0];
    expect(command?.words.map((word) => word.text)).toEqual([
      'git',
      'commit',
      '-m',
      `'fix: it'\\''s done'`,
      'x',
    ]);
  });

  it('marks globs, tilde and expansions', () => {
    const [star, tilde, quoted, dynamic] =
      parse(`ls src/*.ts ~/x '*' "$HOME"`).commands[0]?.words.slice(1) ?? [];
    expect(star).toMatchObject({ glob: true, literalPrefix: 'src/', text: 'src/*.ts' });
    expect(tilde).toMatchObject({ tilde: true, value: '~/x' });
    expect(quoted).toMatchObject({ glob: false, value: '*', text: `'*'` });
    expect(dynamic).toMatchObject({ dynamic: true });
  });

  it('finds env assignments before a command and standalone ones', () => {
    const script = parse('A=1 B="x y" git log; C=2');
    expect(script.commands[0]?.assignments.map((item) => [item.name, item.value?.value])).toEqual([
      ['A', '1'],
      ['B', 'x y'],
    ]);
    expect(script.commands[1]).toMatchObject({ kind: 'assignment', assignments: [{ name: 'C' }] });
  });

  it('finds redirections and their targets', () => {
    const command = parse('ls > out.txt 2>&1 < in.txt >> log').commands[0];
    expect(
      command?.redirects.map((redirect) => [
        redirect.operator,
        redirect.descriptor,
        redirect.target?.value,
      ]),
    ).toEqual([
      ['>', undefined, 'out.txt'],
      ['>&', 2, '1'],
      ['<', undefined, 'in.txt'],
      ['>>', undefined, 'log'],
    ]);
  });

  it('finds here-documents, and commands chained after them', () => {
    const script = parse(`cat > a.txt <<'EOF'\n$(not run)\nEOF`);
    expect(script.hazards).toEqual([]);
    expect(script.commands[0]?.redirects.map((redirect) => redirect.operator)).toEqual(['>', '<<']);
    const chained = parse('cat <<EOF | sh\nx\nEOF');
    expect(chained.commands.map((command) => command.words[0]?.value)).toEqual(['cat', 'sh']);
    expect(hazards('cat <<EOF\n$(id)\nEOF')).toContain('command-substitution');
  });

  it('reports every construct that cannot be analysed', () => {
    expect(hazards('echo $(id)')).toContain('command-substitution');
    expect(hazards('echo `id`')).toContain('command-substitution');
    expect(hazards('cat <(ls)')).toContain('process-substitution');
    expect(hazards('echo $HOME ${X}')).toEqual(['expansion', 'expansion']);
    expect(hazards('echo $((1+1))')).toContain('arithmetic');
    expect(hazards('(ls)')).toEqual(['subshell']);
    expect(hazards('{ ls; }')).toEqual(['control-structure']);
    expect(hazards('if true; then ls; fi')).toEqual(['control-structure']);
    expect(hazards('for i in a; do ls; done')).toEqual(['control-structure']);
    expect(hazards('f() { ls; }')).toContain('function');
    expect(hazards('echo "unterminated')).toContain('parse-error');
    expect(hazards('gi\\\nt status')).toEqual(['line-continuation']);
    expect(hazards('ls \\\n  -la')).toEqual([]);
    expect(hazards("echo 'a\\\nb'")).toEqual([]);
    expect(hazards('ls\u200b')).toEqual(['hidden-character']);
    expect(hazards('ls\r')).toContain('hidden-character');
  });

  it('walks into substitutions and compound statements, one level deeper', () => {
    const script = parse('echo $(rm a) && if true; then rm b; fi');
    const nested = script.commands
      .filter((command) => command.depth > 0)
      .map((command) => command.words.map((word) => word.value).join(' '));
    expect(nested).toEqual(['rm a', 'true', 'rm b']);
  });
});

describe('parsePlainCommand', () => {
  it('reads a single command of plain words', () => {
    expect(parsePlainCommand('  FOO=1 git log -n 5 ')?.commands[0]).toMatchObject({
      assignments: [{ name: 'FOO' }],
      words: [{ value: 'git' }, { value: 'log' }, { value: '-n' }, { value: '5' }],
    });
  });

  it('gives up on anything the shell would read differently', () => {
    for (const source of [
      'ls | wc',
      'ls; rm',
      "echo 'a'",
      'echo $X',
      'ls *',
      'cd ~',
      'if x',
      'a\\b',
      'ls # c',
      'ls\nrm',
    ]) {
      expect(parsePlainCommand(source)).toBeUndefined();
    }
  });
});

describe('words after a redirection target', () => {
  it('are arguments of the command, as bash reads them', () => {
    expect(words('sort > /dev/null -o x README.md')).toEqual(['sort', '-o', 'x', 'README.md']);
    expect(words('ls <&- -la')).toEqual(['ls', '-la']);
    expect(words('cat <<EOF >/dev/null x\nhi\nEOF')).toEqual(['cat', 'x']);
    expect(
      parse('sort > /dev/null -o x').commands[0]?.redirects.map((r) => r.target?.value),
    ).toEqual(['/dev/null']);
  });

  it('have their substitutions found', () => {
    expect(hazards('cat > /dev/null $(touch y)')).toContain('command-substitution');
    expect(hazards('{ ls; } > x y')).toContain('unsupported-syntax');
  });
});

describe('brace expansion', () => {
  it('drops the words it leaves empty and unquoted, as bash does', () => {
    expect(words('time {,} rm -rf x')).toEqual(['time', 'rm', '-rf', 'x']);
    expect(words('printf %s {,a} b{,}')).toEqual(['printf', '%s', 'a', 'b', 'b']);
    expect(words("printf %s ''{,}")).toEqual(['printf', '%s', '', '']);
  });
});

describe('decodeAnsiC', () => {
  it('decodes bash escapes and keeps unknown ones', () => {
    expect(decodeAnsiC('\\x41\\101\\u263a\\n\\cA\\q')).toBe('AA\u263a\n\u0001\\q');
  });

  it('ends the string at a decoded NUL, as bash does', () => {
    expect(decodeAnsiC('r\\x00zz')).toBe('r');
    expect(decodeAnsiC('rm\\0')).toBe('rm');
    expect(decodeAnsiC('a\\c@b')).toBe('a');
    expect(decodeAnsiC('a\\u0000b')).toBe('a');
    expect(words(`$'r\\x00zz'm -rf x`)).toEqual(['rm', '-rf', 'x']);
  });

  it('reads octal escapes as one byte and control escapes as bash does', () => {
    expect(decodeAnsiC('r\\400m')).toBe('r');
    expect(decodeAnsiC('\\101\\501')).toBe('AA');
    expect(decodeAnsiC('\\c?')).toBe('\u007f');
    expect(decodeAnsiC('\\c\\\\x')).toBe('\u001cx');
    expect(decodeAnsiC('\\ca\\cA')).toBe('\u0001\u0001');
  });
});
