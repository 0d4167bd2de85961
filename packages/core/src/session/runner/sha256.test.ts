import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digestToolInput } from '../audit-record.js';
import { sha256Hex, sha256HexPortable } from './sha256.js';

describe.each([
  ['sha256Hex (Node crypto)', sha256Hex],
  ['sha256HexPortable', sha256HexPortable],
])('%s', (_name, sha256Hex) => {
  it('matches the known vectors', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(sha256Hex('a'.repeat(1_000_000))).toBe(
      'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
    );
  });

  it('agrees with digestToolInput (Web Crypto) on any text, across block boundaries', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 300 }), async (text) => {
        expect(sha256Hex(text)).toBe(await digestToolInput(text));
      }),
      { numRuns: 200 },
    );
  });
});
