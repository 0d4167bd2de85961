/**
 * `@parley/core/conformance`: the one contract every `SessionStore` backend
 * passes (memory, SQLite, Postgres). For tests only: it registers vitest
 * cases, so import it from a `*.test.ts` file.
 *
 * @example
 * describeSessionStoreConformance('SqliteSessionStore', async () => {
 *   const store = new SqliteSessionStore({ path });
 *   return { store, corrupt, readRaw, messageVersions, tamperMessage, reopen, close };
 * });
 */
import { afterEach, beforeEach, describe } from 'vitest';
import { registerAuditCases } from './audit-cases.js';
import { registerDueCases } from './due-cases.js';
import { registerHistoryCases } from './history-cases.js';
import { registerLeaseCases } from './lease-cases.js';
import type { SessionStoreHarness } from './fixtures.js';
import { registerStateCases } from './state-cases.js';

export type { SessionStoreHarness } from './fixtures.js';
export { freshSessionId, historyState, sampleAudit, sampleState } from './fixtures.js';

/**
 * Registers the store conformance cases under `describe(name)`. `makeStore`
 * is called before each case and must give a fresh, empty store with its
 * harness; the harness's `close` runs after the case, pass or fail.
 */
export function describeSessionStoreConformance(
  name: string,
  makeStore: () => Promise<SessionStoreHarness>,
): void {
  describe(`${name} conforms to SessionStore`, () => {
    let harness: SessionStoreHarness | undefined;
    const current = (): SessionStoreHarness => {
      if (harness === undefined) throw new Error('The store harness was not created.');
      return harness;
    };

    beforeEach(async () => {
      harness = await makeStore();
    });

    afterEach(async () => {
      const done = harness;
      harness = undefined;
      await done?.close();
    });

    describe('state and versions', () => registerStateCases(current));
    describe('audit records', () => registerAuditCases(current));
    describe('due deadlines', () => registerDueCases(current));
    describe('leases', () => registerLeaseCases(current));
    describe('message rows', () => registerHistoryCases(current));
  });
}
