import { describe, expect, it, vi } from 'vitest';
import { createPermissionContext } from '@parley/core';
import { CommandAnalysisError } from '../errors.js';
import { analyseCommandLineAsync } from './analysis.js';
import { Bash } from './bash-tool.js';
import { loadSecondParser } from './second-parser.js';

vi.mock('mvdan-sh', () => {
  throw new Error('no second parser here');
});

describe('when the second parser cannot be loaded', () => {
  it('fails with a typed error, and tries again on the next call', async () => {
    await expect(loadSecondParser()).rejects.toBeInstanceOf(CommandAnalysisError);
    await expect(loadSecondParser()).rejects.toThrow('The second bash parser could not be loaded.');
  });

  it('proves no line harmless but plain words, so even a pipeline of reads asks', async () => {
    expect((await analyseCommandLineAsync('ls -la')).readOnly).toBe(true);
    const analysis = await analyseCommandLineAsync('ls -la | wc -l');
    expect(analysis.readOnly).toBe(false);
    expect(analysis.hazards).toEqual([
      { kind: 'parse-disagreement', text: 'the second parser has not loaded' },
    ]);
    const decision = await new Bash().checkPermissions(
      { command: 'cat README.md | wc -l' },
      createPermissionContext(),
    );
    expect(decision.behavior).toBe('ask');
    expect(decision.bypassImmune).toBe(true);
  });
});
