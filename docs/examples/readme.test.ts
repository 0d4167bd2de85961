import { readFile } from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';

describe('README example', () => {
  it('is the same code as docs/examples/readme.ts, which type-checks and runs', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const snippet = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    const file = await readFile(new URL('./readme.ts', import.meta.url), 'utf8');
    expect(snippet).toBe(file);
    expect(file.split('\n').length).toBeLessThanOrEqual(31);

    const printed: unknown[] = [];
    const log = vi
      .spyOn(console, 'log')
      .mockImplementation((value: unknown) => void printed.push(value));
    await import('./readme.js');
    log.mockRestore();
    expect(printed).toHaveLength(1);
    const content = printed[0] as { type: string; text?: string; state?: string }[];
    expect(content.map((block) => block.type)).toEqual(['tool_call', 'tool_result', 'text']);
    expect(content[1]?.state).toBe('success');
    expect(content[2]?.text).toBe('done');
  });
});
