import { StoreMigrationError } from './store-errors.js';

/**
 * One step of a durable store's schema. A store keeps an ordered list of
 * them (versions 1, 2, 3, ... never renumbered, never edited once shipped)
 * and records each applied one with its name.
 */
export type StoreMigration = { version: number; name: string };

/**
 * The migrations of `migrations` (a store's ordered list) not yet in
 * `applied` (what its database records), in order. Refuses with
 * `StoreMigrationError` a list that is not numbered 1, 2, 3, ..., a database
 * that records a migration this build does not know (a newer build migrated
 * it), and a recorded name that differs from this build's (the lists forked).
 */
export function pendingMigrations<M extends StoreMigration>(
  migrations: readonly M[],
  applied: readonly StoreMigration[],
): M[] {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new StoreMigrationError(
        `Migration '${migration.name}' has version ${migration.version}; expected ${index + 1}.`,
      );
    }
  });
  const done = new Set<number>();
  for (const record of applied) {
    const known = migrations[record.version - 1];
    if (known === undefined) {
      throw new StoreMigrationError(
        `The database records migration ${record.version} ('${record.name}'), which this build does not know; it was migrated by a newer build.`,
      );
    }
    if (known.name !== record.name) {
      throw new StoreMigrationError(
        `The database records migration ${record.version} as '${record.name}', but this build calls it '${known.name}'.`,
      );
    }
    done.add(record.version);
  }
  return migrations.filter((migration) => !done.has(migration.version));
}
