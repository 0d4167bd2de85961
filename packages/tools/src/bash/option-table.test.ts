import { describe, expect, it } from 'vitest';
import { literalWord } from './syntax.js';
import { compileOptionTable, parseOptions, type ParsedOptions } from './option-table.js';
import { optionTable } from './option-tables.js';

const table = compileOptionTable(
  'n=,lines= q,quiet,silent s,separate sandbox !o=,output= d?,debug? arg==',
  {},
);
const parse = (...args: string[]): ParsedOptions => parseOptions(args.map(literalWord), table);
const keys = (parsed: ParsedOptions): string[] =>
  parsed.ok
    ? parsed.options.map(
        (option) =>
          `${option.key}${option.safe ? '' : '!'}=${option.values.map((v) => v.value).join('|')}`,
      )
    : [parsed.reason];

describe('parseOptions', () => {
  it('expands an unambiguous prefix of a long option (GNU getopt_long)', () => {
    expect(keys(parse('--out=x'))).toEqual(['-o!=x']);
    expect(keys(parse('--li', '5'))).toEqual(['-n=5']);
    // quiet and silent are one option: --qu and --si name it without ambiguity.
    expect(keys(parse('--si'))).toEqual(['-q=']);
  });

  it('refuses an ambiguous or unknown option', () => {
    expect(parse('--s').ok).toBe(false);
    expect(parse('--x').ok).toBe(false);
    expect(parse('-x').ok).toBe(false);
    expect(parse('--quiet=1').ok).toBe(false);
    expect(parse('-n').ok).toBe(false);
  });

  it('takes joined short values and optional values only when joined', () => {
    expect(keys(parse('-qnVALUE'))).toEqual(['-q=', '-n=VALUE']);
    expect(keys(parse('-oFILE'))).toEqual(['-o!=FILE']);
    expect(keys(parse('-d', 'file'))).toEqual(['-d=']);
    expect(keys(parse('-dfile'))).toEqual(['-d=file']);
    expect(keys(parse('--debug', 'x'))).toEqual(['-d=']);
    expect(keys(parse('--arg', 'a', 'b'))).toEqual(['--arg=a|b']);
  });

  it('takes options after operands, and none after --', () => {
    const parsed = parse('a', '-q', '--', '-o', 'x');
    expect(keys(parsed)).toEqual(['-q=']);
    expect(parsed.ok && parsed.operands.map((word) => word.value)).toEqual(['a', '-o', 'x']);
  });

  it('stops at the first operand for wrappers', () => {
    const xargs = optionTable('xargs');
    if (xargs === undefined) throw new Error('no xargs table');
    const parsed = parseOptions(['-l', 'rm', '-rf'].map(literalWord), xargs);
    expect(parsed.ok && parsed.operands.map((word) => word.value)).toEqual(['rm', '-rf']);
  });

  it('judges prefixes against the full option list of real programs', () => {
    const verdict = (program: string, ...args: string[]): string[] => {
      const found = optionTable(program);
      if (found === undefined) throw new Error(`no table for ${program}`);
      return keys(parseOptions(args.map(literalWord), found));
    };
    expect(verdict('sort', '--ou=x')).toEqual(['-o!=x']);
    expect(verdict('sed', '--s')).toEqual(['ambiguous option --s']);
    expect(verdict('sed', '--i')).toEqual(['-i!=']);
    expect(verdict('sed', '--expr=p')).toEqual(['-e=p']);
    expect(verdict('env', '--s=ls')).toEqual(['-S!=ls']);
    expect(verdict('cp', '--target=/x')).toEqual(['-t=/x']);
    expect(verdict('gawk', '-oFILE')).toEqual(['-o!=FILE']);
  });
});
