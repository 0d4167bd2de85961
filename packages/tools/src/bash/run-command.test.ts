import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, temporaryDirectory, toolContext } from '../../test/context.js';
import { Bash } from './bash-tool.js';

let directory: { path: string; remove: () => void };
let bash: Bash;

beforeAll(() => {
  directory = temporaryDirectory();
  bash = new Bash({ cwd: directory.path, env: { PARLEY_TEST: 'from-options' } });
});
afterAll(() => directory.remove());

const run = (command: string, signal?: AbortSignal, timeout?: number) =>
  collect(
    bash.execute({ command, ...(timeout === undefined ? {} : { timeout }) }, toolContext(signal)),
  );

/** Whether the process still runs; a zombie (dead, waiting to be reaped by init) does not. */
function alive(pid: number): boolean {
  const status = `/proc/${pid}/status`;
  if (existsSync('/proc/self/status')) {
    try {
      return !/^State:\s+Z/m.test(readFileSync(status, 'utf8'));
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (bounded) until `test` holds; the assertion is on the outcome, not on how long it took. */
async function eventually(test: () => boolean): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (test()) return true;
    await sleep(25);
  }
  return test();
}

/**
 * The host's pid of the `sleep SECONDS` the command started. Found by its
 * command line, since `$!` inside the sandbox is a pid of its own namespace.
 */
async function sleeperPid(seconds: string): Promise<number> {
  const find = (): number | undefined => {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (readFileSync(`/proc/${entry}/cmdline`, 'utf8') === `sleep\0${seconds}\0`)
          return Number(entry);
      } catch {
        // Gone meanwhile.
      }
    }
    return undefined;
  };
  expect(await eventually(() => find() !== undefined)).toBe(true);
  return find() ?? -1;
}

describe('Bash.execute', () => {
  it('merges stdout and stderr in the order they were written', async () => {
    const result = await run('echo one; echo two >&2; echo three; echo four >&2');
    expect(result.text).toBe('one\ntwo\nthree\nfour\n');
    expect(result.state).toBe('success');
    expect(result.metadata).toMatchObject({
      exitCode: 0,
      timedOut: false,
      aborted: false,
      truncated: false,
    });
  });

  it('runs in the working directory with the given environment', async () => {
    const result = await run('pwd; echo "$PARLEY_TEST"');
    expect(result.text).toBe(`${directory.path}\nfrom-options\n`);
  });

  it('puts the exit code in the metadata and fails the result on a non-zero exit', async () => {
    const result = await run('echo partial; exit 3');
    expect(result.state).toBe('error');
    expect(result.metadata).toMatchObject({ exitCode: 3 });
    expect(result.text).toBe('partial\n\n[Exit code: 3]');
  });

  it('says so when there is no output', async () => {
    expect((await run('true')).text).toBe('(no output)');
  });

  it('streams output as it comes, in several chunks', async () => {
    const result = await run('echo first; sleep 0.3; echo second');
    expect(result.chunks).toBeGreaterThanOrEqual(3);
    expect(result.blocks[0]).toEqual({ type: 'text', text: 'first\n' });
  });

  it('cuts long output in the middle with a note of how much was cut', async () => {
    const result = await run('seq 1 20000');
    expect(result.metadata).toMatchObject({ truncated: true, outputChars: 108894 });
    expect(result.text).toMatch(/^1\n2\n3\n/);
    expect(result.text).toMatch(/\n19999\n20000\n$/);
    expect(result.text).toMatch(
      /\[\.\.\. output truncated: 78894 characters \(\d+ lines\) cut \.\.\.\]/,
    );
  });

  it('does not start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await run('echo should-not-matter; sleep 5', controller.signal);
    expect(result.metadata).toMatchObject({ aborted: true });
  });
});

describe.each(['auto', 'off'] as const)(
  'Bash.execute stops what it started (sandbox %s)',
  (mode) => {
    const tool = (): Bash => new Bash({ cwd: directory.path, sandbox: mode });
    const runWith = (command: string, signal?: AbortSignal, timeout?: number) =>
      collect(
        tool().execute(
          { command, ...(timeout === undefined ? {} : { timeout }) },
          toolContext(signal),
        ),
      );
    const seconds = (n: number): string => `${mode === 'auto' ? 40 : 50}${n}.5`;

    it('stops a command at its timeout, with its process group', async () => {
      const pending = runWith(`sleep ${seconds(1)} & wait`, undefined, 1000);
      const pid = await sleeperPid(seconds(1));
      const result = await pending;
      expect(result.state).toBe('error');
      expect(result.metadata).toMatchObject({ timedOut: true });
      expect(result.text).toContain('[Command timed out after 1000 ms and was stopped]');
      expect(await eventually(() => !alive(pid))).toBe(true);
    });

    it('kills the whole process group when the agent aborts', async () => {
      const controller = new AbortController();
      const pending = runWith(`sleep ${seconds(2)} & wait`, controller.signal);
      const pid = await sleeperPid(seconds(2));
      expect(alive(pid)).toBe(true);
      controller.abort();
      const result = await pending;
      expect(result.metadata).toMatchObject({ aborted: true });
      expect(result.text).toContain('[Command was interrupted and stopped]');
      expect(await eventually(() => !alive(pid))).toBe(true);
    });

    it('kills the process group when the reader stops early', async () => {
      const stream = tool().execute(
        { command: `sleep ${seconds(3)} & echo started; wait` },
        toolContext(),
      );
      const reader = stream[Symbol.asyncIterator]();
      expect(await reader.next()).toEqual({
        done: false,
        value: { type: 'text', text: 'started\n' },
      });
      const pid = await sleeperPid(seconds(3));
      await reader.return?.(undefined);
      expect(await eventually(() => !alive(pid))).toBe(true);
    });
  },
);
