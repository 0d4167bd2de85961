import { describe, expect, it } from 'vitest';
import { aguiExample } from './ag-ui.js';

describe('AG-UI guide example runs as documented', () => {
  it('ends the first run with a confirmation interrupt and writes the note once it is resumed', async () => {
    const { asked, answer, written } = await aguiExample();
    expect(asked).toEqual([
      {
        id: expect.stringMatching(/^confirm:/),
        reason: 'tool_call',
        message: expect.stringContaining('write_note'),
      },
    ]);
    expect(answer).toBe('The note is written.');
    expect(written).toEqual(['todo.md']);
  }, 30_000);
});
