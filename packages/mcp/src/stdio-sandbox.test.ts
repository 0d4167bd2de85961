import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMcpConfig } from './config.js';
import { sandboxedCommand, serverPolicy } from './stdio-sandbox.js';

const bwrap = spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-pid', 'true']);

describe('sandboxedCommand', () => {
  it('runs the server under bubblewrap, writable only in its directory, without network', async () => {
    const { command, args } = await sandboxedCommand('node', ['server.js'], true, {
      cwd: '/srv/app',
    });
    expect(command).toBe('bwrap');
    expect(args).toContain('--unshare-net');
    expect(args).toContain('--die-with-parent');
    expect(args.join(' ')).toContain('--ro-bind / / ');
    expect(args.join(' ')).toContain('--bind /srv/app /srv/app ');
    expect(args.join(' ')).toMatch(/--chdir \/srv\/app -- node server\.js$/);
  });

  it('keeps the network it declares and binds the directories it names', async () => {
    const { args } = await sandboxedCommand(
      'node',
      [],
      { network: true, writable: ['data', '/var/cache/x'] },
      { cwd: '/srv/app' },
    );
    expect(args).not.toContain('--unshare-net');
    expect(args.join(' ')).toContain(
      '--bind /srv/app/data /srv/app/data --bind /var/cache/x /var/cache/x',
    );
  });

  it('is part of a stdio entry of the config, and checked', () => {
    const config = parseMcpConfig({
      mcpServers: {
        a: { command: 'x', sandbox: true },
        b: { command: 'y', sandbox: { network: true, readable: ['~/.aws/config'] } },
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

    it('binds its directory and the paths it starts with again, read-only, over the private /tmp', async () => {
      const script = path.join(clone, 'node_modules', 'server', 'index.js');
      const { args } = await sandboxedCommand(
        'node',
        [script, data],
        { writable: [data] },
        {
          cwd: clone,
        },
      );
      const text = args.join(' ');
      expect(text).toContain(`--tmpfs /tmp --ro-bind ${clone} ${clone} `);
      expect(text).toContain(`--ro-bind ${script} ${script}`);
      expect(text).toContain(`--bind ${data} ${data}`);
      expect(text).not.toContain(`--ro-bind ${data}`);
    });

    it.runIf(bwrap.error === undefined && bwrap.status === 0)('starts there and runs', async () => {
      const script = path.join(clone, 'node_modules', 'server', 'index.js');
      const { command, args } = await sandboxedCommand(
        process.execPath,
        [script],
        { writable: [data] },
        { cwd: clone },
      );
      const run = spawnSync(command, args, { cwd: clone, encoding: 'utf8', timeout: 20_000 });
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe('served\n');
    });
  });

  describe('secrets', () => {
    let home: string;
    let project: string;
    beforeAll(() => {
      // Outside /tmp, so the private /tmp does not hide them anyway.
      home = realpathSync(mkdtempSync('/var/tmp/parley-mcp-home-'));
      project = realpathSync(mkdtempSync('/var/tmp/parley-mcp-project-'));
      mkdirSync(path.join(home, '.ssh'));
      writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'SSH-SECRET\n');
      writeFileSync(path.join(project, '.env'), 'ENV-SECRET\n');
      writeFileSync(path.join(project, 'notes.txt'), 'notes\n');
    });
    afterAll(() => {
      rmSync(home, { recursive: true, force: true });
      rmSync(project, { recursive: true, force: true });
    });

    it('masks the home secrets and those of its directory, unless the entry names them', async () => {
      const policy = await serverPolicy('node', [], { network: true }, { cwd: project, home });
      const masked = policy.masks.map((mask) => mask.path);
      expect(masked).toContain(path.join(home, '.ssh'));
      expect(masked).toContain(path.join(project, '.env'));
      expect(policy.network).toBe(true);
      const named = await serverPolicy(
        'node',
        [path.join(home, '.ssh', 'id_ed25519')],
        { readable: [path.join(project, '.env')] },
        { cwd: project, home },
      );
      const still = named.masks.map((mask) => mask.path);
      expect(still).not.toContain(path.join(home, '.ssh'));
      expect(still).not.toContain(path.join(project, '.env'));
    });

    const read = `const fs = require('node:fs');
for (const file of process.env.READ_FILES.split(':')) {
  try { process.stdout.write(file + ':' + fs.readFileSync(file, 'utf8')); }
  catch (error) { process.stdout.write(file + ':' + error.code + '\\n'); }
}`;
    it.runIf(bwrap.error === undefined && bwrap.status === 0)(
      'a server with the network cannot read them',
      async () => {
        const key = path.join(home, '.ssh', 'id_ed25519');
        const env = path.join(project, '.env');
        const notes = path.join(project, 'notes.txt');
        const { command, args } = await sandboxedCommand(
          process.execPath,
          ['-e', read],
          { network: true },
          { cwd: project, home },
        );
        // Named in the environment, not the entry: the entry names no secret.
        const run = spawnSync(command, args, {
          cwd: project,
          encoding: 'utf8',
          timeout: 20_000,
          env: { ...process.env, READ_FILES: [key, env, notes].join(':') },
        });
        expect(run.stderr).toBe('');
        expect(run.stdout).not.toMatch(/SECRET/);
        expect(run.stdout).toContain(`${key}:ENOENT`);
        // `/dev/null` bound on a `nodev` mount: it cannot be opened at all.
        expect(run.stdout).toContain(`${env}:EACCES\n`);
        expect(run.stdout).toContain(`${notes}:notes`);
      },
    );
  });
});
