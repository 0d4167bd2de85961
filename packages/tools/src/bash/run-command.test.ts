import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
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

async function backgroundPid(file: string): Promise<number> {
  expect(await eventually(() => existsSync(file) && readFileSync(file, 'utf8').trim() !== '')).toBe(
    true,
  );
  return Number(readFileSync(file, 'utf8').trim());
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

  it('stops a command at its timeout, with its process group', async () => {
    const pidFile = path.join(directory.path, 'timeout.pid');
    const result = await run(`sleep 30 & echo $! > ${pidFile}; wait`, undefined, 300);
    expect(result.state).toBe('error');
    expect(result.metadata).toMatchObject({ timedOut: true });
    expect(result.text).toContain('[Command timed out after 300 ms and was stopped]');
    const pid = await backgroundPid(pidFile);
    expect(await eventually(() => !alive(pid))).toBe(true);
  });

  it('kills the whole process group when the agent aborts', async () => {
    const pidFile = path.join(directory.path, 'abort.pid');
    const controller = new AbortController();
    const pending = run(`sleep 30 & echo $! > ${pidFile}; wait`, controller.signal);
    const pid = await backgroundPid(pidFile);
    expect(alive(pid)).toBe(true);
    controller.abort();
    const result = await pending;
    expect(result.metadata).toMatchObject({ aborted: true });
    expect(result.text).toContain('[Command was interrupted and stopped]');
    expect(await eventually(() => !alive(pid))).toBe(true);
  });

  it('does not start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await run('echo should-not-matter; sleep 5', controller.signal);
    expect(result.metadata).toMatchObject({ aborted: true });
  });

  it('kills the process group when the reader stops early', async () => {
    const pidFile = path.join(directory.path, 'early.pid');
    const stream = bash.execute(
      { command: `sleep 30 & echo $! > ${pidFile}; echo started; wait` },
      toolContext(),
    );
    for await (const chunk of stream) {
      expect(chunk).toEqual({ type: 'text', text: 'started\n' });
      break;
    }
    const pid = await backgroundPid(pidFile);
    expect(await eventually(() => !alive(pid))).toBe(true);
  });
});
