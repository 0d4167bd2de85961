// The web UI in Chromium against `parley serve --model scripted:commands`,
// whose commands make exactly the calls a flow needs: a rule added with
// "Always allow" and revoked from the side panel, and a batch of two
// parallel calls answered at once with "Allow all" / "Deny all".
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  expectAccessible,
  expectFreshBuild,
  launchChromium,
  startServe,
  stopServe,
  browserDescribe,
} from './browser.js';
import type { Served } from './browser.js';

const data = mkdtempSync(join(tmpdir(), 'parley-web-commands-'));
let served: Served | undefined;
let browser: Browser | undefined;
let context: BrowserContext | undefined;

function server(): Served {
  if (served === undefined) throw new Error('parley serve did not start');
  return served;
}

/** Opens the UI, creates a session, and returns the page and the session id. */
async function openSession(): Promise<{ page: Page; id: string }> {
  if (browser === undefined) throw new Error('no browser');
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  await page.goto(`${server().url}/?token=${server().token}`);
  await page.getByRole('button', { name: 'New session' }).click();
  await page.waitForURL(/#\/sessions\//);
  return { page, id: decodeURIComponent(page.url().split('#/sessions/')[1] ?? '') };
}

/** Sends `command` from the session's message box. */
async function send(page: Page, command: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(command);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

/** The decisions of the session's audit trail, read over HTTP. */
async function decisionsOf(id: string): Promise<string[]> {
  const response = await fetch(`${server().url}/v1/sessions/${id}/audit`, {
    headers: { authorization: `Bearer ${server().token}` },
  });
  const body = (await response.json()) as { records: { decision: string }[] };
  return body.records.map((record) => record.decision);
}

/** The status of the session as the server summarizes it. */
async function statusOf(id: string): Promise<string> {
  const response = await fetch(`${server().url}/v1/sessions/${id}`, {
    headers: { authorization: `Bearer ${server().token}` },
  });
  const body = (await response.json()) as { status: string };
  return body.status;
}

const suite = browserDescribe(
  'the browser tests of the web UI (the web UI with scripted commands)',
);

suite('the web UI with scripted commands', () => {
  beforeAll(async () => {
    expectFreshBuild();
    served = await startServe(data, 1, 0, 'scripted:commands');
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await browser?.close();
    await stopServe(served);
    rmSync(data, { recursive: true, force: true });
  });

  it('always allows a call, revokes the rule from the side panel, and the same command asks again', async () => {
    const { page, id } = await openSession();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await send(page, 'publish x.md');
    const card = page.getByRole('group', { name: /^publish: .*x\.md/ });
    await card.getByRole('button', { name: 'Always allow' }).click();
    await expect
      .poll(async () => (await decisionsOf(id)).includes('executed'), { timeout: 30_000 })
      .toBe(true);
    const side = page.getByRole('complementary', { name: 'Permissions and audit' });
    const words = 'Always allow publish on `x.md` in this session';
    await side.getByText(words).waitFor();
    await expect.poll(() => statusOf(id), { timeout: 30_000 }).not.toBe('running');

    await send(page, 'publish x.md');
    await expect
      .poll(async () => (await decisionsOf(id)).filter((d) => d === 'allowed_by_rule').length, {
        timeout: 30_000,
      })
      .toBe(1);
    await expect.poll(() => statusOf(id), { timeout: 30_000 }).not.toBe('running');

    await expectAccessible(page, 'a session with a rule');
    await side.getByRole('button', { name: `Revoke rule ${words}` }).click();
    await side.getByText('No rules added yet.').waitFor();
    expect((await decisionsOf(id)).at(-1)).toBe('rule_revoked');

    await send(page, 'publish x.md');
    const again = page.getByRole('group', { name: /^publish: .*x\.md/ });
    await again.getByRole('button', { name: 'Allow', exact: true }).waitFor();
    expect((await decisionsOf(id)).at(-1)).toBe('asked');
    await again.getByRole('button', { name: 'Allow', exact: true }).click();
    await expect.poll(() => statusOf(id), { timeout: 30_000 }).not.toBe('running');
    expect(errors, 'console errors').toEqual([]);
  }, 120_000);

  it('answers a batch of two parallel calls with "Allow all", then another with "Deny all"', async () => {
    const { page, id } = await openSession();
    await send(page, 'publish a.md b.md');
    const batch = page.getByRole('group', { name: 'The whole batch' });
    await page.getByRole('group', { name: /^publish: .*a\.md/ }).waitFor();
    await page.getByRole('group', { name: /^publish: .*b\.md/ }).waitFor();
    await expectAccessible(page, 'a batch of two asks');
    await batch.getByRole('button', { name: 'Allow all' }).click();
    await expect.poll(() => statusOf(id), { timeout: 30_000 }).toBe('idle');
    const allowed = await decisionsOf(id);
    expect(allowed.filter((d) => d === 'confirmed')).toHaveLength(2);
    expect(allowed.filter((d) => d === 'executed')).toHaveLength(2);

    await send(page, 'publish c.md d.md');
    await page.getByRole('group', { name: /^publish: .*d\.md/ }).waitFor();
    await page
      .getByRole('group', { name: 'The whole batch' })
      .getByRole('button', { name: 'Deny all' })
      .click();
    await expect
      .poll(async () => (await decisionsOf(id)).filter((d) => d === 'denied').length, {
        timeout: 30_000,
      })
      .toBe(2);
    await expect.poll(() => statusOf(id), { timeout: 30_000 }).not.toBe('running');
    const all = await decisionsOf(id);
    expect(all.filter((d) => d === 'executed')).toHaveLength(2);
    // The page learns of the settled reply from its event stream, a moment after the server.
    await expect
      .poll(() => page.getByRole('group', { name: 'The whole batch' }).count(), {
        timeout: 30_000,
      })
      .toBe(0);
  }, 120_000);
});
