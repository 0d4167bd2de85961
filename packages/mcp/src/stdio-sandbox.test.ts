import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMcpConfig } from './config.js';
import { sandboxedCommand } from './stdio-sandbox.js';

describe('sandboxedCommand', () => {
  it('runs the server under bubblewrap, writable only in its directory, without network', () => {
    const { command, args } = sandboxedCommand('node', ['server.js'], '/srv/app', true);
    expect(command).toBe('bwrap');
    expect(args).toContain('--unshare-net');
    expect(args).toContain('--die-with-parent');
    expect(args.join(' ')).toContain('--ro-bind / / ');
    expect(args.join(' ')).toContain('--bind /srv/app /srv/app --chdir /srv/app -- node server.js');
  });

  it('keeps the network it declares and binds the directories it names', () => {
    const { args } = sandboxedCommand('node', [], '/srv/app', {
      network: true,
      writable: ['data', '/var/cache/x'],
    });
    expect(args).not.toContain('--unshare-net');
    expect(args.join(' ')).toContain(
      '--bind /srv/app/data /srv/app/data --bind /var/cache/x /var/cache/x',
    );
  });

  it('is part of a stdio entry of the config, and checked', () => {
    const config = parseMcpConfig({
      mcpServers: {
        a: { command: 'x', sandbox: true },
        b: { command: 'y', sandbox: { network: true } },
      },
    });
    expect(config.mcpServers.a).toMatchObject({ sandbox: true });
    expect(() => parseMcpConfig({ mcpServers: { a: { command: 'x', sandbox: 'yes' } } })).toThrow();
  });

  describe('a server started below /tmp (a checkout cloned there)', () => {
    let clone: string;
    let data: string;
    beforeAll(() => {
      clone = realpathSync(mkdtempSync('/tmp/parley-mcp-clone-'));
      mkdirSync(path.join(clone, 'node_modules', 'server'), { recursive: true });
      writeFileSync(
        path.join(clone, 'node_modules', 'server', 'index.js'),
        'console.log("served")',
      );
      data = realpathSync(mkdtempSync('/tmp/parley-mcp-data-'));
    });
    afterAll(() => {
      rmSync(clone, { recursive: true, force: true });
      rmSync(data, { recursive: true, force: true });
    });

    it('binds its directory and the paths it starts with again, read-only, over the private /tmp', () => {
      const script = path.join(clone, 'node_modules', 'server', 'index.js');
      const { args } = sandboxedCommand('node', [script, data], clone, { writable: [data] });
      const text = args.join(' ');
      expect(text).toContain(
        `--tmpfs /tmp --ro-bind ${clone} ${clone} --ro-bind ${script} ${script}`,
      );
      expect(text).toContain(`--bind ${data} ${data}`);
      expect(text).not.toContain(`--ro-bind ${data}`);
    });

    const bwrap = spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-pid', 'true']);
    it.runIf(bwrap.error === undefined && bwrap.status === 0)('starts there and runs', () => {
      const script = path.join(clone, 'node_modules', 'server', 'index.js');
      const { command, args } = sandboxedCommand(process.execPath, [script], clone, {
        writable: [data],
      });
      const run = spawnSync(command, args, { cwd: clone, encoding: 'utf8', timeout: 20_000 });
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe('served\n');
    });
  });
});
