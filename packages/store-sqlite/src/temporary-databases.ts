import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/**
 * For tests: returns a function giving a fresh database path, each in its
 * own temporary directory, and removes those directories after each test.
 */
export function useTemporaryDatabases(): () => string {
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0)) {
      rmSync(directory, { recursive: true, force: true });
    }
  });
  return () => {
    const directory = mkdtempSync(join(tmpdir(), 'parley-sqlite-'));
    directories.push(directory);
    return join(directory, 'sessions.sqlite');
  };
}
