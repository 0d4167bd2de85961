import { describe, expect, it } from 'vitest';
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
});
