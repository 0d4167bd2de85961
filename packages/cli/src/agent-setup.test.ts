import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSetup } from './agent-setup.js';
import { UsageError } from './args.js';

const cwd = mkdtempSync(join(tmpdir(), 'parley-setup-'));

describe('buildSetup with --tools on a scripted model', () => {
  it('offers the named built-in tools beside the commands script’s own', async () => {
    const plain = await buildSetup({ kind: 'commands' }, ['Read'], cwd, 'setup-test', {});
    expect(plain.tools.map((tool) => tool.name)).not.toContain('Read');
    const offered = await buildSetup({ kind: 'commands' }, ['Read'], cwd, 'setup-test', {}, true);
    const names = offered.tools.map((tool) => tool.name);
    expect(names).toContain('Read');
    expect(names).toContain('publish');
    expect(offered.notes.join('\n')).toContain('tools Read');
  });

  it('refuses --tools with the demo, whose script knows only its own tools', async () => {
    await expect(
      buildSetup({ kind: 'demo' }, ['Read'], cwd, 'setup-test', {}, true),
    ).rejects.toThrow(UsageError);
    const demo = await buildSetup({ kind: 'demo' }, ['Read'], cwd, 'setup-test', {});
    expect(demo.tools.map((tool) => tool.name)).not.toContain('Read');
  });
});
