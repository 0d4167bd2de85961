import { beforeAll, describe, expect, it } from 'vitest';
import type { Parser } from 'web-tree-sitter';
import { loadBashParser } from './parser.js';
import type { Hazard } from './syntax.js';
import { ansiCLength, heredocDelimiter, treeDifferences } from './tree-checks.js';

let parser: Parser;
beforeAll(async () => {
  parser = await loadBashParser();
});

function differences(source: string): Hazard[] {
  const tree = parser.parse(source);
  if (tree === null) throw new Error('tree-sitter gave no tree');
  try {
    return treeDifferences(tree.rootNode, source);
  } finally {
    tree.delete();
  }
}

const kinds = (source: string): Hazard['kind'][] => differences(source).map((found) => found.kind);

describe('ansiCLength', () => {
  it("ends $'…' where bash does: a backslash always takes the next character", () => {
    expect(ansiCLength(`$'\\\\'; touch x #'`)).toBe(5);
    expect(ansiCLength(`$'a\\'b'`)).toBe(7);
    expect(ansiCLength(`$'unterminated`)).toBe(-1);
  });
});

describe('heredocDelimiter', () => {
  it('removes quotes and joins line continuations, as bash does', () => {
    expect(heredocDelimiter('EOF')).toBe('EOF');
    expect(heredocDelimiter(`'EOF'`)).toBe('EOF');
    expect(heredocDelimiter(`E"O"F`)).toBe('EOF');
    expect(heredocDelimiter('\\EOF')).toBe('EOF');
    expect(heredocDelimiter('EO\\\nF')).toBe('EOF');
    expect(heredocDelimiter(`"a\\"b"`)).toBe('a"b');
  });

  it('gives up on words it cannot read for certain', () => {
    expect(heredocDelimiter(`$'EOF'`)).toBeUndefined();
    expect(heredocDelimiter(`'EOF`)).toBeUndefined();
  });
});

describe('treeDifferences', () => {
  it('finds nothing in lines tree-sitter reads as bash does', () => {
    for (const source of [
      'ls -la',
      `echo $'a\\tb' $'\\''`,
      `cat <<'EOF'\n$(not run)\nEOF`,
      'cat <<-EOF\n\tx\n\tEOF',
      '[[ 1 -eq 2 ]] && [ 3 -lt "4" ]',
      'printf "[%s]\\n" x',
      'ls \\\n  -la # a comment',
    ]) {
      expect({ source, found: differences(source) }).toEqual({ source, found: [] });
    }
  });

  it('flags an ANSI-C string bash ends elsewhere', () => {
    expect(kinds(`echo $'\\\\'; touch x #'`)).toContain('parse-disagreement');
    expect(kinds(`cat <<< $'\\\\'; touch x #'`)).toContain('parse-disagreement');
  });

  it('flags a here-document delimiter bash reads differently', () => {
    expect(kinds('cat <<E"O"F\nhello\nEOF\ntouch x\nE"O"F')).toContain('parse-disagreement');
    expect(kinds('cat <<EO\\\nF\nx\nEOF\ntouch x\nEO\\\nF')).toContain('parse-disagreement');
  });

  it('flags backquotes in a here-document body bash expands', () => {
    expect(kinds('cat <<EOF\n`touch x`\nEOF')).toEqual(['command-substitution']);
    expect(kinds("cat <<'EOF'\n`not run`\nEOF")).toEqual([]);
  });

  it('flags nodes tree-sitter made up', () => {
    expect(differences('cat <<EO\\\nF\nx\n')).toContainEqual({
      kind: 'parse-error',
      text: 'missing heredoc_end',
    });
  });

  it('flags operands [[ ]] evaluates as arithmetic, however the $ is written', () => {
    expect(kinds(`[[ $'a[\\x24(touch x)]' -eq 1 ]]`)).toEqual(['arithmetic']);
    expect(kinds(`[[ 1 -lt $'b[\\044(touch x)]' ]] && ls`)).toEqual(['arithmetic']);
    expect(kinds('[[ a -ge 0 ]]')).toEqual(['arithmetic']);
  });

  it('flags names with a subscript that expands where a builtin reads a name', () => {
    expect(kinds(`[ -v $'a[\\x24(touch x)]' ]`)).toEqual(['arithmetic']);
    expect(kinds(`test -v 'a[$(touch x)]'`)).toEqual(['arithmetic']);
    expect(kinds(`printf -v $'a[\\x24(touch x)]' %s 1`)).toEqual(['arithmetic']);
    expect(kinds(`unset $'a[\\x24(touch x)]'`)).toEqual(['arithmetic']);
    expect(kinds(`grep 'a[$]' README.md`)).toEqual([]);
  });

  it('flags text that no token covers: backslash-space is a blank to tree-sitter only', () => {
    expect(differences('ls \\ #; rm notes.txt')).toEqual([
      { kind: 'parse-disagreement', text: 'text no token covers: " \\\\ "' },
    ]);
    expect(kinds('cat README.md \\\t#; rm notes.txt')).toEqual(['parse-disagreement']);
  });
});
