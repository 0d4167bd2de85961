/**
 * The ordinary-command corpus (fixtures/ordinary-corpus.json) run under the
 * execution oracle (docs/decisions/tools-0005-bash-execution-oracle.md):
 * every command there must be harmless, so none may write, connect or leave
 * a file it could not read. Running a program outside the oracle's grammar
 * (`node --version`) is expected here and not counted. Needs strace and a
 * network namespace, as the oracle does; outside CI it skips with the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, standaloneWorker, type OracleWorker } from './oracle/oracle.js';
import { oracleIsolation } from './oracle/traced-run.js';
import { loadOrdinaryCorpus } from './corpus.js';

const TIMEOUT_MS = 3_000;
const oracle = oracleIsolation('ordinary corpus under strace');

describe.runIf(oracle.runs)('the ordinary corpus under strace', () => {
  let worker: OracleWorker;
  let remove: () => void = () => undefined;
  const ready = oracle.ready;

  beforeAll(() => {
    const standalone = standaloneWorker(ready());
    worker = standalone.worker;
    remove = standalone.remove;
  });
  afterAll(() => remove());

  it('runs every ordinary command, and none writes, connects or fails to read', async () => {
    const problems: string[] = [];
    for (const item of loadOrdinaryCorpus()) {
      const violations = await execute(worker, item.command, {
        isolation: ready(),
        timeoutMs: TIMEOUT_MS,
      });
      const harmful = violations.filter((violation) => violation.kind !== 'exec');
      if (harmful.length > 0) {
        problems.push(
          `${item.command}: ${harmful.map((violation) => `${violation.kind} ${violation.detail}`).join('; ')}`,
        );
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
