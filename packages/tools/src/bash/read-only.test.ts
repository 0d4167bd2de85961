import { describe, expect, it } from 'vitest';
import { literalWord, type Word } from './syntax.js';
import { optionTable } from './option-tables.js';
import { parseOptions } from './option-table.js';
import {
  isReadOnlyDeclaration,
  isReadOnlyProgram,
  READ_ONLY_WITH_ANY_ARGUMENTS,
} from './read-only.js';

const words = (...values: string[]): Word[] => values.map(literalWord);
const readOnly = (program: string, ...args: string[]): boolean =>
  isReadOnlyProgram(program, words(...args));

describe('isReadOnlyProgram: a positive proof', () => {
  it.each([
    ['ls', '-la', '--col=never', 'src'],
    ['head', '-5', 'README.md'],
    ['head', '--lin=3', '--verb', 'a'],
    ['grep', '-rn', '--inc=*.ts', 'foo', 'src'],
    ['sort', '-rnk2', '--rev', 'a'],
    ['uniq', '-c', 'a'],
    ['date', '+%s'],
    ['xargs', '-0', '-n1', 'cat'],
    ['find', '.', '-maxdepth', '2', '-name', '*.ts', '-print'],
    ['git', 'log', '--oneline', '-5'],
    ['git', 'remote', 'show', '-n', 'origin'],
    ['ps', 'aux'],
    ['jq', '--arg', 'name', 'value', '.x', 'f.json'],
    ['printf', '%s\\n', 'a'],
    ['env', '-i', 'ls'],
    ['xxd', '-c', '16', 'a'],
    ['node', '--version'],
    ['python3', '-V'],
    ['git', 'branch', '--contains', 'HEAD'],
    ['git', 'tag', '--points-at', 'HEAD'],
    ['git', 'config', 'user.name'],
    ['awk', '$2 > 10', 'a'],
  ])('%s %s … is read-only', (program, ...args) => {
    expect(readOnly(program, ...args)).toBe(true);
  });

  it.each([
    ['sort', '--ou=x', 'a'],
    ['sort', '-roX', 'a'],
    ['sort', '--compress=sh', 'a'],
    ['sed', '--s', 'p', 'a'],
    ['sed', '--expr=1e', 'a'],
    ['sed', '-i', 's/a/b/', 'a'],
    ['gawk', '-oFILE', '1', 'a'],
    ['gawk', '-e', 'BEGIN{}'],
    ['awk', '--prof=x', '{print}', 'a'],
    ['time', '-o', 'x', 'ls'],
    ['uniq', 'in', 'out'],
    ['date', '0101000030'],
    ['hostname', 'evil'],
    ['diff', '-l', 'a', 'b'],
    ['locale', '-m'],
    ['strings', '@opts'],
    ['ps', 'auxe'],
    ['jobs', '-x', 'touch', 'x'],
    ['printf', '-vPATH', 'x'],
    ['env'],
    ['env', 'A=1'],
    ['printenv'],
    ['xxd', 'a', 'b'],
    ['xxd', 'a', '-rr'],
    ['compgen', '-v'],
    ['./node', '--version'],
    ['python3', '-v'],
    ['ls', '--nonexistent'],
    ['git', 'help', 'log'],
    ['git', 'submodule'],
    ['git', 'remote', 'show', 'origin'],
    ['git', 'branch', '--edit-desc'],
    ['git', 'grep', '--open=vi', 'x'],
    ['git', 'grep', '-nOvi', 'x'],
    ['git', '-p', 'log'],
    ['find', '.', '-fprint', 'x'],
    ['find', '.', '-delete'],
    ['find', '.', '-unknown-primary'],
    ['find', '-D', 'exec', '.'],
    ['./ls'],
  ])('%s %s … is not read-only', (program, ...args) => {
    expect(readOnly(program, ...args)).toBe(false);
  });

  it('proves nothing for a glob that may expand to an option of a program with harmful ones', () => {
    const star: Word = { ...literalWord('*'), text: '*', glob: true, literalPrefix: '' };
    expect(isReadOnlyProgram('sort', [star])).toBe(false);
    expect(isReadOnlyProgram('cat', [star])).toBe(true);
    expect(isReadOnlyProgram('sort', [{ ...star, value: 'src/*', literalPrefix: 'src/' }])).toBe(
      true,
    );
  });

  it('declarations that print variables are not read-only (they may hold secrets)', () => {
    expect(isReadOnlyDeclaration('declare', words('-x'))).toBe(false);
    expect(isReadOnlyDeclaration('declare', words('-p', 'HOME'))).toBe(false);
    expect(isReadOnlyDeclaration('export', words('-p'))).toBe(false);
    expect(isReadOnlyDeclaration('typeset', [])).toBe(false);
    expect(isReadOnlyDeclaration('export', words('a=1'))).toBe(true);
    expect(isReadOnlyDeclaration('unset', words('A'))).toBe(true);
  });

  it('declarations of names programs may read are not read-only (issue 31, class 6)', () => {
    expect(isReadOnlyDeclaration('export', words('A=1'))).toBe(false);
    expect(isReadOnlyDeclaration('export', words('RIPGREP_CONFIG_PATH=/x'))).toBe(false);
    expect(isReadOnlyDeclaration('declare', words('-x', 'http_proxy=x'))).toBe(false);
    expect(isReadOnlyDeclaration('export', words('NODE_ENV=test'))).toBe(true);
    expect(isReadOnlyDeclaration('local', words('count=1'))).toBe(true);
  });

  it('feeds unknown arguments only to programs none of whose options is harmful', () => {
    for (const program of READ_ONLY_WITH_ANY_ARGUMENTS) {
      if (program === 'echo') continue;
      const table = optionTable(program);
      expect(table, program).toBeDefined();
      expect(table?.hasUnsafe, program).toBe(false);
    }
  });

  it('reads the cluster and values of an option table as getopt does', () => {
    const table = optionTable('grep');
    if (table === undefined) throw new Error('no grep table');
    const parsed = parseOptions(words('-rnA2', '-e', '-x', '--', '-v'), table);
    expect(parsed.ok && parsed.operands.map((word) => word.value)).toEqual(['-v']);
  });
});
