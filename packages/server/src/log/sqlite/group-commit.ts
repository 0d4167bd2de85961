import type Database from 'better-sqlite3';

/** A write waiting for its group commit, and how to tell its caller. */
type PendingWrite = { write: () => void; resolve: () => void; reject: (error: unknown) => void };

/**
 * Group commit on a better-sqlite3 connection: the writes queued in one
 * turn of the event loop run in one transaction on the next, so replies
 * running side by side share a commit (and its fsync) instead of each
 * blocking the process for one of its own. If that transaction fails, each
 * write is tried alone, so a bad write fails only its own caller. A write
 * is visible to reads once its promise has resolved.
 */
export class GroupCommit {
  private queued: PendingWrite[] = [];

  constructor(private readonly database: Database.Database) {}

  /** Queues `write` (synchronous statements) for the next commit; resolves once it is committed. */
  run(write: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queued.push({ write, resolve, reject });
      if (this.queued.length === 1) setImmediate(() => this.commit());
    });
  }

  /** Commits what is queued now (also called before the connection closes). */
  commit(): void {
    const batch = this.queued;
    if (batch.length === 0) return;
    this.queued = [];
    try {
      this.database.transaction(() => {
        for (const pending of batch) pending.write();
      })();
      for (const pending of batch) pending.resolve();
      return;
    } catch {
      // One of them failed the whole transaction: find which, one at a time.
    }
    for (const pending of batch) {
      try {
        this.database.transaction(pending.write)();
        pending.resolve();
      } catch (error) {
        pending.reject(error);
      }
    }
  }
}
