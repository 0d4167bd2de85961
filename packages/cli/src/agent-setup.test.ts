import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSetup, serverKey } from './agent-setup.js';
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

describe('serverKey', () => {
  it('gives each server its own notes folder: one per data folder or database', async () => {
    const one = serverKey({ data: join(cwd, 'one') });
    const two = serverKey({ data: join(cwd, 'two') });
    expect(one).not.toBe(two);
    expect(serverKey({ data: join(cwd, 'one') })).toBe(one);
    expect(serverKey({ db: 'postgres://db/a' })).not.toBe(serverKey({ db: 'postgres://db/b' }));
    const demo = await buildSetup({ kind: 'demo' }, [], cwd, one, {});
    expect(demo.notes.join('\n')).toContain(one);
    expect(demo.notes.join('\n')).not.toContain(two);
  });
});
