import { describe, expect, it } from 'vitest';
import { pendingMigrations } from './migrations.js';
import { StoreMigrationError } from './store-errors.js';

const list = [
  { version: 1, name: 'sessions', sql: 'a' },
  { version: 2, name: 'audit', sql: 'b' },
  { version: 3, name: 'indexes', sql: 'c' },
];

describe('pendingMigrations', () => {
  it('returns what is not applied yet, in order', () => {
    expect(pendingMigrations(list, [])).toStrictEqual(list);
    expect(pendingMigrations(list, [{ version: 1, name: 'sessions' }])).toStrictEqual(
      list.slice(1),
    );
    expect(pendingMigrations(list, list)).toStrictEqual([]);
  });

  it('refuses a database migrated by a newer build', () => {
    expect(() => pendingMigrations(list, [...list, { version: 4, name: 'later' }])).toThrow(
      StoreMigrationError,
    );
  });

  it('refuses a recorded name that differs from this build’s', () => {
    expect(() => pendingMigrations(list, [{ version: 2, name: 'renamed' }])).toThrow(
      /records migration 2 as 'renamed'/,
    );
  });

  it('refuses a list that is not numbered 1, 2, 3, ...', () => {
    expect(() => pendingMigrations([list[0]!, list[2]!], [])).toThrow(StoreMigrationError);
  });
});
