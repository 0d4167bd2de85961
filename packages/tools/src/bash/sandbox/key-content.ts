import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** How many leading bytes are read: room for a PEM header after a little whitespace. */
const HEAD_BYTES = 96;
/** A key file is small; a larger file is not opened (a 16 384-bit RSA key in PEM is about 12 KB). */
const MAX_KEY_BYTES = 64 * 1024;

/**
 * A private key's first line: PEM (`-----BEGIN PRIVATE KEY-----`,
 * `RSA`/`EC`/`DSA`/`ENCRYPTED` …) and OpenSSH's own
 * (`-----BEGIN OPENSSH PRIVATE KEY-----`).
 */
const PRIVATE_KEY_HEADER = /^-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/;

/**
 * Whether `file` is a regular file whose first bytes are a private key,
 * whatever its name says (`deploy/key.txt`). Reads at most `HEAD_BYTES` of
 * a file no larger than `MAX_KEY_BYTES`, without following a link; any
 * error (gone, unreadable, a directory) is no.
 */
export function holdsPrivateKey(file: string): boolean {
  let descriptor: number | undefined;
  try {
    // No link followed (the walk meets its target where it lies), and no
    // wait on a FIFO: opened non-blocking, then judged by what it is.
    descriptor = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const stat = fstatSync(descriptor);
    if (!stat.isFile() || stat.size < 30 || stat.size > MAX_KEY_BYTES) return false;
    const head = Buffer.alloc(HEAD_BYTES);
    const read = readSync(descriptor, head, 0, HEAD_BYTES, 0);
    return PRIVATE_KEY_HEADER.test(head.subarray(0, read).toString('latin1').trimStart());
  } catch {
    return false;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}
