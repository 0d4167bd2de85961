import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../../../test/context.js';
import { holdsPrivateKey } from './key-content.js';

let root: { path: string; remove: () => void };
const file = (name: string, text: string): string => {
  const place = path.join(root.path, name);
  writeFileSync(place, text);
  return place;
};

beforeAll(() => {
  root = temporaryDirectory('parley-keys-');
  mkdirSync(path.join(root.path, 'dir'));
});
afterAll(() => root.remove());

describe('holdsPrivateKey', () => {
  it('knows PEM and OpenSSH private keys by their first line', () => {
    for (const kind of ['OPENSSH ', 'RSA ', 'EC ', 'ENCRYPTED ', '']) {
      const key = file(
        `key-${kind.trim() || 'pkcs8'}.txt`,
        `-----BEGIN ${kind}PRIVATE KEY-----\nAAAAB3NzaC1yc2EAAAADAQABAAABAQ\n-----END ${kind}PRIVATE KEY-----\n`,
      );
      expect(holdsPrivateKey(key)).toBe(true);
    }
    expect(holdsPrivateKey(file('indented.txt', '\n  -----BEGIN PRIVATE KEY-----\nAAAA\n'))).toBe(
      true,
    );
  });

  it('leaves public keys, certificates, text, directories and links alone', () => {
    expect(holdsPrivateKey(file('pub.txt', 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 me@host\n'))).toBe(
      false,
    );
    expect(
      holdsPrivateKey(file('cert.pem.txt', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END\n')),
    ).toBe(false);
    expect(
      holdsPrivateKey(file('doc.md', 'How to make a -----BEGIN PRIVATE KEY----- file\n')),
    ).toBe(false);
    expect(holdsPrivateKey(path.join(root.path, 'dir'))).toBe(false);
    const key = file('real.txt', '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n');
    symlinkSync(key, path.join(root.path, 'link.txt'));
    expect(holdsPrivateKey(path.join(root.path, 'link.txt'))).toBe(false);
    expect(holdsPrivateKey(path.join(root.path, 'missing.txt'))).toBe(false);
  });
});
