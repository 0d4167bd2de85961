import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../../test/context.js';
import { displayPath, hasSecretContent, isSecretPath, secretsInside } from './secret-paths.js';

let root: { path: string; remove: () => void };
beforeAll(() => {
  root = temporaryDirectory();
  const put = (name: string, content: string): void => {
    mkdirSync(path.dirname(path.join(root.path, name)), { recursive: true });
    writeFileSync(path.join(root.path, name), content);
  };
  put('clean/src/a.ts', 'a\n');
  put('clean/.env.example', 'TOKEN=\n');
  put('withenv/src/a.ts', 'a\n');
  put('withenv/.env', 'TOKEN=x\n');
  put('withkey/deep/er/id_ed25519', 'x\n');
  put('withlink/a.txt', 'a\n');
  put('outside/.aws/credentials', '[default]\n');
  put('outside/plain.txt', '-----BEGIN RSA PRIVATE KEY-----\nMII=\n');
  put('withdeps/node_modules/x/.env', 'x\n');
  symlinkSync(
    path.join(root.path, 'outside', '.aws', 'credentials'),
    path.join(root.path, 'withlink', 'config.ini'),
  );
});
afterAll(() => root.remove());

describe('isSecretPath', () => {
  it.each([
    '/home/u/.ssh/id_rsa',
    '/home/u/.ssh/config',
    '/home/u/.gnupg/pubring.kbx',
    '/home/u/.aws/credentials',
    '/home/u/.config/gcloud/credentials.db',
    '/home/u/.azure/accessTokens.json',
    '/home/u/.kube/config',
    '/home/u/.docker/config.json',
    '/etc/shadow',
    '/etc/gshadow-',
    '/etc/ssh/ssh_host_ed25519_key',
    '/home/u/.config/git/credentials',
    '/home/u/.cargo/credentials.toml',
    '/home/u/.config/doctl/config.yaml',
    '/home/u/.oci/config',
    '/home/u/.claude/.credentials.json',
    '/home/u/.codex/auth.json',
    '/home/u/.gemini/oauth_creds.json',
    '/srv/app/.parley/parley.sqlite-wal',
    '/home/u/.netrc',
    '/home/u/.npmrc',
    '/home/u/.pypirc',
    '/home/u/.git-credentials',
    '/work/app/.env',
    '/work/app/.env.production',
    '/work/app/.ENV.local',
    '/work/app/certs/server.pem',
    '/work/app/certs/server.key',
    '/work/app/keystore.jks',
    '/work/app/id_ed25519',
    '/home/u/.bash_history',
    '/home/u/.local/share/fish/fish_history',
    '/home/u/.mozilla/firefox/x.default/logins.json',
    '/home/u/.config/google-chrome/Default/Cookies',
    '/home/u/Library/Application Support/Google/Chrome/Default/Login Data',
    '/proc/self/environ',
    '/proc/1234/environ',
  ])('%s is a secret', (file) => {
    expect(isSecretPath(file)).toBe(true);
  });

  it.each([
    '/work/app/src/index.ts',
    '/work/app/.env.example',
    '/work/app/.env.sample',
    '/work/app/src/id_utils.ts',
    '/work/app/README.md',
    '/work/app/.gitignore',
    '/home/u/notes/todo.md',
    '/proc/self/status',
    '/etc/hosts',
  ])('%s is not', (file) => {
    expect(isSecretPath(file)).toBe(false);
  });
});

describe('hasSecretContent', () => {
  it('finds a private key header at the start of a file, and nothing in other files', () => {
    expect(hasSecretContent(path.join(root.path, 'outside', 'plain.txt'))).toBe(true);
    expect(hasSecretContent(path.join(root.path, 'clean', 'src', 'a.ts'))).toBe(false);
    expect(hasSecretContent(path.join(root.path, 'clean'))).toBe(false);
    expect(hasSecretContent(path.join(root.path, 'missing'))).toBe(false);
  });
});

describe('secretsInside', () => {
  const at = (name: string): string => path.join(root.path, name);

  it('finds secret files and symlinks to secrets in a tree, not templates or dependencies', async () => {
    expect(await secretsInside(at('clean'), '/nonexistent-home')).toEqual([]);
    expect(await secretsInside(at('withdeps'), '/nonexistent-home')).toEqual([]);
    expect(await secretsInside(at('withenv'), '/nonexistent-home')).toEqual([at('withenv/.env')]);
    expect(await secretsInside(at('withkey'), '/nonexistent-home')).toEqual([
      at('withkey/deep/er/id_ed25519'),
    ]);
    expect(await secretsInside(at('withlink'), '/nonexistent-home')).toEqual([
      at('withlink/config.ini'),
    ]);
  });

  it('knows the secrets of a home directory without walking it', async () => {
    const found = await secretsInside('/', '/home/someone');
    expect(found).toEqual(['/home/someone/.ssh', '/home/someone/.gnupg', '/home/someone/.aws']);
    expect(await secretsInside('/home', '/home/someone', 1)).toEqual(['/home/someone/.ssh']);
  });
});

describe('displayPath', () => {
  it('writes paths below home with ~', () => {
    expect(displayPath('/home/u/.ssh/id_rsa', '/home/u')).toBe('~/.ssh/id_rsa');
    expect(displayPath('/home/u', '/home/u')).toBe('~');
    expect(displayPath('/home/user2/x', '/home/u')).toBe('/home/user2/x');
  });
});
