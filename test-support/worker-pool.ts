// Spawns test workers as real OS processes and talks to them in JSON lines:
// used by the exactly-once tests of both durable stores. A worker script is bundled once with
// esbuild (tsx's own compiler) into plain JavaScript, because twenty
// processes each compiling the TypeScript sources on start take ten times
// longer than the test itself on a two-core runner.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { z } from 'zod';

/**
 * Bundles `entry` (a TypeScript worker) into an .mjs file under the repo's
 * node_modules/.cache, where the native packages it leaves out still
 * resolve. Returns its path and a function that removes it.
 */
export async function bundleWorker(entry: string): Promise<{ file: string; remove: () => void }> {
  const directory = fileURLToPath(new URL('../node_modules/.cache/parley-tests/', import.meta.url));
  mkdirSync(directory, { recursive: true });
  const file = join(directory, `worker-${globalThis.crypto.randomUUID()}.mjs`);
  await build({
    entryPoints: [entry],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['better-sqlite3', 'pg', 'pg-native'],
    conditions: ['@parley/source'],
    logLevel: 'warning',
  });
  return { file, remove: () => rmSync(file, { force: true }) };
}

const outcomeLine = z.object({ sessionId: z.string(), outcome: z.string() });

/** One answer a worker reported. */
export type WorkerOutcome = { worker: number; sessionId: string; outcome: string };

/** A pool of worker processes that answer `go` lines with outcome lines. */
export class WorkerPool {
  private readonly children: ChildProcess[] = [];
  private readonly waiting = new Map<string, (outcome: WorkerOutcome) => void>();

  private constructor() {}

  /** Starts `count` workers of `script` (JavaScript) with `args(index)`; waits until each says "ready". */
  static async start(
    script: string,
    count: number,
    args: (index: number) => string[],
  ): Promise<WorkerPool> {
    const pool = new WorkerPool();
    const ready = Array.from({ length: count }, (_, index) =>
      pool.spawn(script, index, args(index)),
    );
    await Promise.all(ready);
    return pool;
  }

  private spawn(script: string, index: number, args: string[]): Promise<void> {
    const child = spawn(process.execPath, [script, ...args], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.children.push(child);
    return new Promise((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`worker ${index} exited with ${code}`)));
      const lines = createInterface({ input: child.stdout });
      lines.on('line', (line) => {
        if (line === 'ready') {
          resolve();
          return;
        }
        const { sessionId, outcome } = outcomeLine.parse(JSON.parse(line));
        this.waiting.get(`${index}:${sessionId}`)?.({ worker: index, sessionId, outcome });
      });
    });
  }

  /**
   * Tells the first `count` workers to answer `event` on `sessionId` at the
   * same moment (a start time a little ahead, so all have read the line),
   * and gives back what each reported.
   */
  async race(sessionId: string, event: unknown, count: number): Promise<WorkerOutcome[]> {
    const startAt = Date.now() + 150;
    const line = `${JSON.stringify({ sessionId, event, startAt })}\n`;
    const answers = this.children.slice(0, count).map(
      (child, index) =>
        new Promise<WorkerOutcome>((resolve) => {
          this.waiting.set(`${index}:${sessionId}`, resolve);
          child.stdin!.write(line);
        }),
    );
    return Promise.all(answers);
  }

  /** Closes every worker's input and waits for them to exit. */
  async stop(): Promise<void> {
    await Promise.all(
      this.children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.removeAllListeners('exit');
            child.once('exit', () => resolve());
            child.stdin!.end();
          }),
      ),
    );
  }
}
