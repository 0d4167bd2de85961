import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { describeSessionLogConformance } from '../../../test/session-log-conformance.js';
import { EventNumberTakenError } from '../../errors.js';
import { SqliteServerLog } from './sqlite-server-log.js';

describeSessionLogConformance('SqliteServerLog', () => {
  const log = new SqliteServerLog({ path: ':memory:' });
  return Promise.resolve({ log, close: () => Promise.resolve(log.close()) });
});

const event = (seq: number) => ({ seq, type: 'REPLY_START', data: `{"n":${seq}}` });

describe('SqliteServerLog appends', () => {
  it('commits appends made side by side together, and a bad one fails alone', async () => {
    const log = new SqliteServerLog({ path: ':memory:' });
    await log.append('s1', [event(1)], 1);
    const outcomes = await Promise.allSettled([
      log.append('s1', [event(2)], 2),
      log.append('s2', [event(1), event(2)], 66),
      // Number 1 of s1 is stored already: this append must fail, and only it.
      log.append('s1', [event(1)], 3),
      log.append('s3', [event(1)], 1),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect((await log.events('s1', 0, 10)).map((stored) => stored.seq)).toEqual([1, 2]);
    expect(await log.events('s1', 0, 10)).toContainEqual(event(2));
    expect((await log.events('s2', 0, 10)).map((stored) => stored.seq)).toEqual([1, 2]);
    expect(await log.lastSeq('s2')).toBe(66);
    expect(await log.lastSeq('s1')).toBe(2);
    expect((await log.events('s3', 0, 10)).map((stored) => stored.seq)).toEqual([1]);
    log.close();
  });

  it('writes queued appends before it closes', async () => {
    const log = new SqliteServerLog({ path: ':memory:' });
    const pending = log.append('s1', [event(1)], 1);
    const events = await log.events('s1', 0, 10);
    expect(events).toEqual([]);
    log.close();
    await expect(pending).resolves.toBeUndefined();
  });
});

/** Makes a log at `path`, then runs `sql` on it: what an older build would have left there. */
function olderLog(path: string, sql: string): void {
  new SqliteServerLog({ path }).close();
  const before = new Database(path);
  before.exec(sql);
  before.close();
}

/** Runs `test` on the path of a log file in a directory of its own, removed afterwards. */
async function withLogFile(test: (path: string) => Promise<void>): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'parley-log-'));
  try {
    await test(join(directory, 'log.db'));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

describe('SqliteServerLog migrations', () => {
  it('carries events over into the rowid table, numbers still unique per session', async () => {
    await withLogFile(async (path) => {
      // The events table as schema version 6 left it: clustered on (session_id, seq).
      olderLog(
        path,
        `
        DROP TABLE parley_session_events;
        CREATE TABLE parley_session_events (
          session_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL,
          PRIMARY KEY (session_id, seq)) WITHOUT ROWID;
        INSERT INTO parley_session_events VALUES ('s1', 2, 'REPLY_START', '{"n":2}');
        INSERT INTO parley_session_events VALUES ('s1', 1, 'REPLY_START', '{"n":1}');
        INSERT INTO parley_session_events VALUES ('s2', 1, 'REPLY_START', '{"n":1}');
        INSERT INTO parley_session_event_heads VALUES ('s2', 64);
        DROP TABLE parley_waiting_versions;
        UPDATE parley_server_schema SET version = 6;`,
      );
      const log = new SqliteServerLog({ path });
      expect(await log.events('s1', 0, 10)).toEqual([event(1), event(2)]);
      expect(await log.lastSeq('s1')).toBe(2);
      expect(await log.lastSeq('s2')).toBe(64);
      await expect(log.append('s1', [event(2)], 2)).rejects.toBeInstanceOf(EventNumberTakenError);
      await log.append('s1', [event(3)], 3);
      expect((await log.events('s1', 1, 10)).map((stored) => stored.seq)).toEqual([2, 3]);
      log.close();
      const after = new Database(path, { readonly: true });
      const indexes = after
        .prepare<[], { name: string }>(
          `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'parley_session_events'`,
        )
        .all();
      after.close();
      expect(indexes.map((index) => index.name)).toContain('parley_session_events_seq');
    });
  });

  it('keeps the waiting calls indexed before versions, replaced by the next refresh', async () => {
    await withLogFile(async (path) => {
      olderLog(
        path,
        `
        DROP TABLE parley_waiting_versions;
        INSERT INTO parley_server_sessions VALUES ('a', 'alice', '2026-01-01');
        INSERT INTO parley_waiting_calls VALUES ('a', 'c1', 0, 'r1', NULL,
          '{"type":"tool_call","id":"c1","name":"write_file","awaiting":"confirm"}');
        UPDATE parley_server_schema SET version = 7;`,
      );
      const log = new SqliteServerLog({ path });
      expect((await log.listWaiting('alice')).map((approval) => approval.replyId)).toEqual(['r1']);
      await log.setWaiting('a', [], 1);
      expect(await log.listWaiting('alice')).toEqual([]);
      log.close();
    });
  });

  it('carries claims made before claim holders over: settled kept, running taken over', async () => {
    await withLogFile(async (path) => {
      // The tables as the build before claim holders left them (schema version 3).
      olderLog(
        path,
        `
        ALTER TABLE parley_idempotency DROP COLUMN claim_id;
        ALTER TABLE parley_idempotency DROP COLUMN held_until;
        ALTER TABLE parley_idempotency DROP COLUMN interrupted;
        ALTER TABLE parley_idempotency DROP COLUMN status;
        DROP TABLE parley_waiting_versions;
        UPDATE parley_server_schema SET version = 3;
        INSERT INTO parley_idempotency VALUES ('alice', 'done', 'h', 1, 3, '"ok"');
        INSERT INTO parley_idempotency VALUES ('alice', 'running', 'h', NULL, NULL, NULL);`,
      );
      const log = new SqliteServerLog({ path });
      const claim = (key: string) => ({
        principal: 'alice',
        key,
        requestHash: 'h',
        claimId: 'new',
        heldUntil: 2000,
        after: null,
        lastSeq: null,
        response: null,
        interrupted: false,
        status: 200,
      });
      expect(await log.claimIdempotency(claim('done'), 1000)).toMatchObject({
        lastSeq: 3,
        response: '"ok"',
        status: 200,
      });
      // Its process is gone (one process writes the file): a retry takes it over.
      expect(await log.claimIdempotency(claim('running'), 1000)).toBeUndefined();
      log.close();
    });
  });
});
