// What the browser tests share: `parley serve` as a process on a temporary
// data folder, Debian's Chromium through playwright-core, axe-core, and
// screenshots into test/screenshots/ (git-ignored).
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { describe, expect } from 'vitest';

/** The newest modification time of the files under `folder` that go into the build, in milliseconds. */
function newest(folder: string): number {
  return Math.max(
    0,
    ...readdirSync(folder, { recursive: true, encoding: 'utf8' })
      .filter((name) => !name.includes('.test.'))
      .map((name) => statSync(join(folder, name)))
      .filter((stats) => stats.isFile())
      .map((stats) => stats.mtimeMs),
  );
}

/**
 * Fails unless the server's built UI (packages/server/dist/public, made by
 * `npm run build` and so by `npm ci`) is newer than the web UI's source:
 * the tests run what a user gets, and never rebuild it under a server
 * that another test may be reading it from.
 */
export function expectFreshBuild(): void {
  const built = fileURLToPath(new URL('../../server/dist/public/index.html', import.meta.url));
  const builtAt = (() => {
    try {
      return statSync(built).mtimeMs;
    } catch {
      return 0;
    }
  })();
  const source = newest(fileURLToPath(new URL('../src/', import.meta.url)));
  expect(
    builtAt,
    'the web UI is not built or older than its source: run npm run build',
  ).toBeGreaterThanOrEqual(source);
}

/** Debian's `chromium` package (installed by .ci/services). */
export const chromiumPath = '/usr/bin/chromium';

/**
 * Why the browser tests skip here, or undefined when they run: they skip
 * when Chromium is missing, except in CI (`CI` set), where they must run
 * (and fail if it is missing), as the tmux tests of the CLI do.
 */
export function browserSkipReason(
  env: NodeJS.ProcessEnv,
  installed: boolean,
  path = chromiumPath,
): string | undefined {
  if (installed || env['CI'] !== undefined) return undefined;
  return `Chromium is not at ${path} (apt-get install -y chromium; in CI these tests run)`;
}

/** `describe` for a browser suite, or `describe.skip` with the reason printed. */
export function browserDescribe(suite: string): typeof describe | typeof describe.skip {
  const reason = browserSkipReason(process.env, existsSync(chromiumPath));
  if (reason === undefined) return describe;
  console.log(`Skipping ${suite}: ${reason}.`);
  return describe.skip;
}

const parleySource = fileURLToPath(new URL('../../cli/test/parley-source.js', import.meta.url));
const parley = ['--conditions=@parley/source', parleySource];

/** A running `parley serve`. */
export type Served = { url: string; token: string; login: string; child: ChildProcess };

/** `parley keys create NAME [--role ROLE]` on `data`; returns the token. */
export function createKey(data: string, principal: string, roles: string[] = []): string {
  const run = spawnSync(
    process.execPath,
    [
      ...parley,
      'keys',
      'create',
      principal,
      '--data',
      data,
      ...roles.flatMap((role) => ['--role', role]),
    ],
    { encoding: 'utf8' },
  );
  const token = run.stdout.split('\n').find((line) => line.startsWith('pk_'));
  if (run.status !== 0 || token === undefined) throw new Error(`keys create failed: ${run.stderr}`);
  return token;
}

/**
 * Starts `parley serve --model scripted:demo` (or `model`) and resolves once
 * it printed its web UI address.
 */
export function startServe(
  data: string,
  paceMs: number,
  port = 0,
  model = 'scripted:demo',
): Promise<Served> {
  const child = spawn(
    process.execPath,
    [...parley, 'serve', '--model', model, '--port', String(port), '--data', data],
    {
      env: { ...process.env, PARLEY_DEMO_PACE_MS: String(paceMs) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const [, login] = /\(as (\S+), this run only\)/.exec(output) ?? [];
      const [, url, token] =
        /web UI: (http:\/\/127\.0\.0\.1:\d+)\/\?token=(\S+)/.exec(output) ?? [];
      if (url !== undefined && token !== undefined && login !== undefined) {
        resolve({ url, token, login, child });
      }
    });
    child.once('exit', (code) => reject(new Error(`parley serve exited (${code}): ${output}`)));
  });
}

/** Stops a `parley serve` started by `startServe`. */
export async function stopServe(served: Served | undefined): Promise<void> {
  const child = served?.child;
  if (child === undefined || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Headless Chromium as the tests launch it: no network of its own, a fresh profile per launch. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Runs axe-core on the page and fails on any serious or critical violation. */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  // Evaluated through the DevTools protocol, so the page's CSP does not block it.
  await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => ({
        id: violation.id,
        impact: violation.impact,
        targets: violation.nodes.map((node) => node.target.join(' ')),
      }));
  });
  expect(violations, `axe on ${where}`).toEqual([]);
}

const screenshots = fileURLToPath(new URL('./screenshots/', import.meta.url));

/** Saves the page at desktop and phone widths as screenshots/<name>-desktop.png and -phone.png. */
export async function saveScreenshots(page: Page, name: string): Promise<void> {
  mkdirSync(screenshots, { recursive: true });
  const size = page.viewportSize() ?? { width: 1280, height: 860 };
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.screenshot({ path: `${screenshots}${name}-desktop.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${screenshots}${name}-phone.png`, fullPage: true });
  await page.setViewportSize(size);
}

declare global {
  interface Window {
    axe: typeof axe;
  }
}
