import { describe, expect, it } from 'vitest';
import { Bash } from '@parley/tools';
import { createTools, sandboxOf } from './tool-set.js';

describe('sandboxOf', () => {
  it('reports the sandbox of the Bash tool, and nothing without Bash', async () => {
    expect(await sandboxOf(await createTools(['Read'], process.cwd()))).toBeUndefined();
    const tools = await createTools(['Read', 'Bash'], process.cwd());
    const kind = await sandboxOf(tools);
    expect(kind).toBe(new Bash({ cwd: process.cwd() }).sandboxKind);
    expect(['bubblewrap', 'none']).toContain(kind);
  });
});
