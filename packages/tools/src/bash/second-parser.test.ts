import { beforeAll, describe, expect, it } from 'vitest';
import type { Parser } from 'web-tree-sitter';
import { parseScript } from './parse.js';
import { loadBashParser } from './parser.js';
import { loadSecondParser, secondParserShape } from './second-parser.js';
import { byteToIndex, shapeDifference, treeShape } from './shape.js';

let parser: Parser;
beforeAll(async () => {
  parser = await loadBashParser();
  await loadSecondParser();
});

/** How tree-sitter-bash and mvdan/sh differ on the source, or undefined when they agree. */
function difference(source: string): string | undefined {
  const tree = parser.parse(source);
  if (tree === null) throw new Error('tree-sitter gave no tree');
  try {
    const second = secondParserShape(source);
    if (second === undefined) throw new Error('the second parser has not loaded');
    return shapeDifference(treeShape(tree.rootNode), second);
  } finally {
    tree.delete();
  }
}

describe('the second parser as a check on the first', () => {
  it('agrees with tree-sitter on ordinary commands, words and redirections', () => {
    for (const source of [
      'ls -la',
      'git log --oneline -5 -- src',
      `grep -rn "export function" src | wc -l`,
      `find . -name '*.ts' -not -path "./node_modules/*"`,
      'ls >/dev/null 2>&1 <&- && cat < README.md',
      `cat <<'EOF' > /dev/null\nhello\nEOF\nls`,
      'cat <<< "hi" 2>>/dev/null',
      'NODE_ENV=test npm test; a=1 b=2',
      'export A=1 B; unset x; declare -a y',
      '[ -f x ] || [[ 1 -eq 2 ]] && ! ls',
      'time -p ls -la; time',
      `echo $'a\\tb' "c" 'd'e\\ f`,
      'ls \\\n  -la',
      'echo é😀 x >/dev/null',
      'sort > /dev/null -o x README.md; ls <&- -la',
      'cat <<EOF >/dev/null x\nhi\nEOF',
    ]) {
      expect({ source, difference: difference(source) }).toEqual({ source, difference: undefined });
    }
  });

  it('disagrees where tree-sitter reads a command bash runs as part of a word', () => {
    expect(difference(`echo $'\\\\'; touch x #'`)).toMatch(/commands differently/);
    expect(difference(`cat README.md \\ #; rm notes.txt`)).toMatch(/commands differently/);
  });

  it('disagrees on a here-document whose delimiter bash unquotes', () => {
    expect(difference('cat <<\\EOF\nx\nEOF\ntouch x\n\\EOF')).toMatch(/commands differently/);
  });

  it('disagrees on a redirection tree-sitter takes for a word', () => {
    expect(difference('ls {fd}>x')).toMatch(/commands differently/);
  });

  it('sees the backquotes bash runs in a here-document body, which tree-sitter takes for text', () => {
    expect(difference('cat <<EOF\n`touch x`\nEOF')).toMatch(/only one parser sees CmdSubst/);
  });

  it('names a construct only the second parser sees', () => {
    expect(difference(`echo $'\\\\'; echo $(id) #'`)).toMatch(/only one parser sees CmdSubst/);
  });

  it('counts a line the second parser refuses as a disagreement', () => {
    expect(difference('ls ;; rm notes.txt')).toMatch(/second parser refuses it/);
  });

  it('keeps its reading per source', () => {
    expect(secondParserShape('ls -la')).toBe(secondParserShape('ls -la'));
  });

  it('turns a disagreement into a hazard of the parse', () => {
    const hazards = parseScript(parser, 'ls {fd}>x').hazards;
    expect(hazards.map((hazard) => hazard.kind)).toEqual(['parse-disagreement']);
    expect(parseScript(parser, 'ls -la >/dev/null').hazards).toEqual([]);
  });
});

describe('byteToIndex', () => {
  it('maps UTF-8 byte offsets to string indexes', () => {
    const index = byteToIndex('é😀 x');
    expect([index(0), index(2), index(6), index(7), index(8)]).toEqual([0, 1, 3, 4, 5]);
    expect(byteToIndex('ls')(2)).toBe(2);
  });
});
