import { describe, expect, it } from 'vitest';
import { parseScript } from './parse.js';
import { loadBashParser } from './parser.js';
import { loadSecondParser, secondParserReady, secondParserShape } from './second-parser.js';

// This file must not load the second parser before the first check: vitest
// gives each test file its own module graph, so it starts cold here.
describe('before the second parser has loaded', () => {
  it('proves nothing: a parsed line carries a parse-disagreement hazard', async () => {
    const parser = await loadBashParser();
    expect(secondParserReady()).toBe(false);
    expect(secondParserShape('ls')).toBeUndefined();
    expect(parseScript(parser, 'ls -la | wc -l').hazards).toEqual([
      { kind: 'parse-disagreement', text: 'the second parser has not loaded' },
    ]);
    // Plain words need no second reading: they split on blanks for every reader.
    expect(parseScript(parser, 'ls -la').hazards).toEqual([]);
    await loadSecondParser();
    expect(parseScript(parser, 'ls -la | wc -l').hazards).toEqual([]);
  });
});
