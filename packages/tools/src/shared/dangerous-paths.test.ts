import { describe, expect, it } from 'vitest';
import { dangerousPathReason } from './dangerous-paths.js';

describe('dangerousPathReason', () => {
  it.each([
    '/etc/profile',
    '/etc/profile.d/proxy.sh',
    '/etc/bash.bashrc',
    '/etc/zsh/zshrc',
    '/etc/zshenv',
    '/etc/fish/config.fish',
    '/etc/environment',
    '/home/u/.config/git/config',
    '/home/u/.config/git/hooks/pre-commit',
    '/home/u/.config/fish/conf.d/x.fish',
    '/home/u/.config/systemd/user/x.service',
    '/home/u/.bashrc',
    '/srv/app/.git/hooks/pre-commit',
  ])('counts %s as a file whose change runs code later', (file) => {
    expect(dangerousPathReason(file)).toBeDefined();
  });

  it.each(['/etc/hosts.bak', '/srv/app/src/profile.ts', '/srv/app/docs/zsh.md', '/home/u/profile'])(
    'leaves the ordinary file %s alone',
    (file) => {
      expect(dangerousPathReason(file)).toBeUndefined();
    },
  );
});
