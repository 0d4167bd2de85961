// The web UI in a real Chromium (Debian's, through playwright-core) against
// a real `parley serve` running the scripted demo: every flow a person
// goes through, found by the roles and names HTTP.md fixes, with axe-core
// on each screen and screenshots at desktop and phone widths.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  browserDescribe,
  createKey,
  expectFreshBuild,
  expectAccessible,
  launchChromium,
  saveScreenshots,
  startServe,
  stopServe,
} from './browser.js';
import type { Served } from './browser.js';
import { shortId } from '../src/components/short-id.js';

const data = mkdtempSync(join(tmpdir(), 'parley-web-'));
const slowData = mkdtempSync(join(tmpdir(), 'parley-web-slow-'));
let served: Served | undefined;
let browser: Browser | undefined;
let approver = '';
let viewer = '';
const contexts: BrowserContext[] = [];

/** A new page in a new browser context (its own storage: another tab or person). */
async function newPage(): Promise<Page> {
  if (browser === undefined) throw new Error('no browser');
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  return page;
}

function server(): Served {
  if (served === undefined) throw new Error('parley serve did not start');
  return served;
}

/** Opens the UI as `/?token=…`, creates a session and sends "hello" from its message box. */
async function startSession(page: Page, origin = server()): Promise<string> {
  await page.goto(`${origin.url}/?token=${origin.token}`);
  await page.getByRole('button', { name: 'New session' }).click();
  await page.waitForURL(/#\/sessions\//);
  const id = decodeURIComponent(page.url().split('#/sessions/')[1] ?? '');
  await page.getByRole('textbox', { name: 'Message' }).fill('hello');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  return id;
}

async function auditOf(
  id: string,
): Promise<{ decision: string; approver: string | null; detail?: unknown }[]> {
  const response = await fetch(`${server().url}/v1/sessions/${id}/audit`, {
    headers: { authorization: `Bearer ${server().token}` },
  });
  const body = (await response.json()) as {
    records: { decision: string; approver: string | null; detail?: unknown }[];
  };
  return body.records;
}

/** The accessible name of the focused element: its label, or its own text. */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.activeElement;
    if (element === null) return '';
    const labelled =
      element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement
        ? element.labels?.[0]?.textContent
        : undefined;
    return (labelled ?? element.getAttribute('aria-label') ?? element.textContent ?? '').trim();
  });
}

/** Waits until the element named `name` has the focus. */
async function expectFocus(page: Page, name: string): Promise<void> {
  await expect.poll(() => focused(page), { timeout: 30_000 }).toBe(name);
}

/** Presses Tab until the focused element is named `name` (at most 25 times). */
async function tabTo(page: Page, name: string): Promise<void> {
  for (let step = 0; step < 25; step += 1) {
    if ((await focused(page)) === name) return;
    await page.keyboard.press('Tab');
  }
  expect(await focused(page), `Tab never reached ${name}`).toBe(name);
}

const suite = browserDescribe('the browser tests of the web UI (the web UI in Chromium)');

suite('the web UI in Chromium', () => {
  beforeAll(async () => {
    // The server serves packages/server/dist/public: build it from this source.
    expectFreshBuild();
    approver = createKey(data, 'carol', ['approver']);
    viewer = createKey(data, 'victor');
    served = await startServe(data, 1);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await stopServe(served);
    rmSync(data, { recursive: true, force: true });
    rmSync(slowData, { recursive: true, force: true });
  });

  it('takes the token from the address, then: confirm, deny with a reason, always allow, an external result, AskUser with a preview and Other', async () => {
    const page = await newPage();
    const hosts = new Set<string>();
    page.on('request', (request) => hosts.add(new URL(request.url()).origin));
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${server().url}/?token=${server().token}`);
    await expect.poll(() => page.url(), { timeout: 30_000 }).not.toContain('token=');
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    await expectAccessible(page, 'the sessions list');

    await page.getByRole('button', { name: 'New session' }).click();
    await page.getByRole('textbox', { name: 'Message' }).fill('hello');
    await page.keyboard.press('Enter');

    const note = page.getByRole('group', { name: /^write_note: .*welcome\.md/ });
    await note.waitFor();
    await expectFocus(page, 'Allow');
    await expectAccessible(page, 'a confirmation');
    await saveScreenshots(page, 'confirm');
    await note.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.getByText('The note is written.').waitFor();

    const deletion = page.getByRole('group', { name: /^delete_notes: / });
    await deletion.getByRole('button', { name: 'Deny' }).click();
    await deletion.getByRole('textbox', { name: 'Reason' }).fill('keep my notes');
    await deletion.getByRole('button', { name: 'Send denial' }).click();
    await page.getByText('Your reason reached me: "keep my notes"').waitFor();
    // The denial, its reason and who gave it: in the transcript (not in green) and the audit trail.
    const transcript = page.getByRole('list', { name: 'Transcript' });
    const denial = transcript.getByText(`Denied by ${server().login}: keep my notes`);
    await denial.waitFor();
    expect(await denial.getAttribute('class')).toContain('decision-denied');
    await page
      .getByRole('complementary', { name: 'Permissions and audit' })
      .getByText('“keep my notes”', { exact: false })
      .waitFor();

    const todo = page.getByRole('group', { name: /^write_note: .*todo\.md/ });
    await todo.getByText('Always allow every write_note call in this session').waitFor();
    await todo.getByRole('button', { name: 'Always allow' }).click();
    await page.getByText('Both notes are in; the rule let the second one through.').waitFor();
    expect(await page.getByRole('group', { name: /^write_note: .*ideas\.md/ }).count()).toBe(0);

    const deploy = page.getByRole('group', { name: /^deploy: / });
    await deploy.getByRole('textbox', { name: 'Result' }).fill('deployed fine');
    await expectAccessible(page, 'an external call');
    await saveScreenshots(page, 'external');
    await deploy.getByRole('button', { name: 'Send result' }).click();
    await page.getByText('Deployed; you reported: "deployed fine".').waitFor();

    const next = page.getByRole('group', { name: 'What should the notebook get next?' });
    await next.waitFor();
    await next.getByRole('radio', { name: 'Tags' }).check();
    await next.getByText('tags: #work #soon').waitFor();
    const formats = page.getByRole('group', { name: 'Which formats should an export support?' });
    await formats.getByRole('checkbox', { name: 'HTML' }).check();
    await formats.getByRole('textbox', { name: 'Other' }).fill('EPUB');
    await expectAccessible(page, 'an AskUser question');
    await saveScreenshots(page, 'ask-user');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(page, 'an AskUser question, dark');
    await saveScreenshots(page, 'ask-user-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('button', { name: 'Send answers' }).click();
    await page.getByText('You chose: Tags; HTML + EPUB.').waitFor();
    await transcript.getByText(`Result sent by ${server().login}`).waitFor();
    await transcript.getByText(`Answered by ${server().login}`, { exact: true }).waitFor();

    const side = page.getByRole('complementary', { name: 'Permissions and audit' });
    await side.getByText('Always allow every write_note call in this session').waitFor();
    await side.getByText('allowed by rule', { exact: false }).first().waitFor();
    await expectAccessible(page, 'a finished session');
    await saveScreenshots(page, 'session');
    expect([...hosts]).toEqual([server().url]);
    expect(errors, 'console errors (a CSP violation shows here)').toEqual([]);
  }, 180_000);

  it('edits a call through the form made from its schema, checked before it is sent', async () => {
    const page = await newPage();
    const id = await startSession(page);
    const note = page.getByRole('group', { name: /^write_note: / });
    await note.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit write_note' });
    await dialog.getByRole('textbox', { name: 'path' }).fill('');
    await dialog.getByRole('textbox', { name: 'content' }).fill('Edited in the browser.');
    await dialog.getByRole('button', { name: 'Allow edited' }).click();
    await dialog.getByRole('alert').getByText('Fix this field before sending: path.').waitFor();
    // The problem in words next to its field, which takes the focus.
    await dialog.getByText('Fill this in: it cannot be empty.').waitFor();
    await expectFocus(page, 'path');
    expect(await auditOf(id)).not.toContainEqual(
      expect.objectContaining({ decision: 'input_edited' }),
    );
    await expectAccessible(page, 'the edit dialog');
    await saveScreenshots(page, 'edit');
    await dialog.getByRole('textbox', { name: 'path' }).fill('edited.md');
    await dialog.getByRole('button', { name: 'Allow edited' }).click();
    await page.getByText('The note is written.').waitFor();
    expect(await auditOf(id)).toContainEqual(
      expect.objectContaining({ decision: 'input_edited', approver: server().login }),
    );
    // The transcript shows the input that ran, and the model's proposal as a diff.
    const transcript = page.getByRole('list', { name: 'Transcript' });
    const edited = transcript.getByText(`Edited and allowed by ${server().login}`);
    await edited.click();
    const diff = transcript.getByRole('figure', {
      name: "Changes to the model's proposal, as edited",
    });
    expect(await diff.textContent()).toContain('+   "content": "Edited in the browser."');
  }, 60_000);

  it('shows the same waiting call after a reload, and "answered by" in a second tab once the first answers', async () => {
    const page = await newPage();
    const id = await startSession(page);
    await page.getByRole('group', { name: /^write_note: / }).waitFor();
    await page.reload();
    const note = page.getByRole('group', { name: /^write_note: / });
    await note.waitFor();
    await expect
      .poll(() => page.getByText('First, a note.', { exact: false }).count(), { timeout: 30_000 })
      .toBe(1);
    const reloaded = (await page.getByRole('list', { name: 'Transcript' }).textContent()) ?? '';
    expect(reloaded.split('First, a note.')).toHaveLength(2);
    expect(await page.getByText('hello', { exact: true }).count()).toBe(1);
    // The person's message, labelled "you" after a reload too, above the reply it started.
    expect(reloaded).not.toContain('user');
    expect(reloaded.indexOf('youhello')).toBeGreaterThanOrEqual(0);
    expect(reloaded.indexOf('hello')).toBeLessThan(reloaded.indexOf('First, a note.'));
    await page.getByRole('list', { name: 'Transcript' }).getByText('waiting for you').waitFor();

    const other = await newPage();
    await other.goto(`${server().url}/?token=${server().token}#/sessions/${id}`);
    const mirrored = other.getByRole('group', { name: /^write_note: / });
    await mirrored.getByRole('button', { name: 'Allow', exact: true }).waitFor();
    await note.getByRole('button', { name: 'Allow', exact: true }).click();
    // The answered card leaves "Waiting for you"; the page says who answered.
    await other.getByRole('status').getByText(`Answered by ${server().login}: allowed`).waitFor();
    expect(await mirrored.count()).toBe(0);
    await other
      .getByRole('list', { name: 'Transcript' })
      .getByText(`Allowed by ${server().login}`)
      .waitFor();
    await other.getByText('The note is written.').waitFor();
  }, 60_000);

  it('lets an approver who is not the owner answer from the inbox, and refuses a viewer', async () => {
    const owner = await newPage();
    const id = await startSession(owner);
    await owner.getByRole('group', { name: /^write_note: / }).waitFor();

    const carol = await newPage();
    await carol.goto(`${server().url}/?token=${approver}#/approvals`);
    await expect.poll(() => carol.title(), { timeout: 30_000 }).toMatch(/^\(\d+\) Parley$/);
    const item = carol.getByRole('listitem').filter({ hasText: shortId(id) });
    await item.getByRole('group', { name: /^write_note: / }).waitFor();
    await expectAccessible(carol, 'the approvals inbox');
    await saveScreenshots(carol, 'inbox');
    await item.getByRole('button', { name: 'Allow', exact: true }).click();
    await owner.getByText('The note is written.').waitFor();
    expect(await auditOf(id)).toContainEqual(
      expect.objectContaining({ decision: 'confirmed', approver: 'carol' }),
    );

    await owner.getByRole('link', { name: 'Sessions' }).click();
    await owner
      .getByRole('list')
      .getByRole('link', { name: shortId(id) })
      .waitFor();
    await expectAccessible(owner, 'the sessions list, with sessions');
    await saveScreenshots(owner, 'sessions');

    const victor = await newPage();
    await victor.goto(`${server().url}/?token=${viewer}#/sessions/${id}`);
    await victor.getByRole('alert').getByText('No such session, or you may not see it.').waitFor();
    expect(await victor.getByRole('button', { name: 'Allow', exact: true }).count()).toBe(0);
    await victor.getByRole('link', { name: 'Approvals' }).click();
    await victor.getByText('Nothing is waiting for you.').waitFor();
  }, 60_000);

  it('is driven by the keyboard alone: focus moves to each new question, Enter sends', async () => {
    const page = await newPage();
    await page.goto(`${server().url}/?token=${server().token}`);
    await tabTo(page, 'New session');
    await page.keyboard.press('Enter');
    await expectFocus(page, 'Message');
    await page.keyboard.type('hello');
    await page.keyboard.press('Enter');

    await expectFocus(page, 'Allow');
    await page.keyboard.press('Enter');
    await page.getByText('The note is written.').waitFor();

    await page.getByRole('group', { name: /^delete_notes: / }).waitFor();
    await expectFocus(page, 'Allow');
    await tabTo(page, 'Deny');
    await page.keyboard.press('Enter');
    await expectFocus(page, 'Reason');
    await page.keyboard.type('typed, not clicked');
    await page.keyboard.press('Enter');
    await page.getByText('Your reason reached me: "typed, not clicked"').waitFor();

    // Right after a denial the next card takes the focus, not its "Allow":
    // a second Enter approves nothing.
    const todo = page.getByRole('group', { name: /^write_note: .*todo\.md/ });
    await todo.waitFor();
    await expect.poll(() => focused(page), { timeout: 30_000 }).toMatch(/^write_note: .*todo\.md/);
    await page.keyboard.press('Enter');
    expect(await todo.getByRole('button', { name: 'Allow', exact: true }).count()).toBe(1);
    await tabTo(page, 'Always allow');
    await page.keyboard.press('Enter');

    await expectFocus(page, 'Result');
    await page.keyboard.type('done by hand');
    await page.keyboard.press('Enter');
    await page.getByText('Deployed; you reported: "done by hand".').waitFor();

    await expectFocus(page, 'Search (Recommended)');
    await page.keyboard.press('ArrowDown');
    await expectFocus(page, 'Tags');
    await tabTo(page, 'Markdown');
    await page.keyboard.press('Space');
    await tabTo(page, 'Other');
    await page.keyboard.type('EPUB');
    await page.keyboard.press('Enter');
    await page.getByText('You chose: Tags; Markdown + EPUB.').waitFor();
  }, 180_000);

  it('resumes the stream after the server went away and came back, without showing anything twice', async () => {
    const restartData = mkdtempSync(join(tmpdir(), 'parley-web-restart-'));
    const key = createKey(restartData, 'carol', ['approver']);
    let first: Served | undefined = await startServe(restartData, 1);
    let second: Served | undefined;
    try {
      const port = Number(new URL(first.url).port);
      const page = await newPage();
      const id = await startSession(page, first);
      await page.getByRole('group', { name: /^write_note: / }).waitFor();
      // A page on an API key: the login token changes when the server restarts, a key does not.
      const carol = await newPage();
      await carol.goto(`${first.url}/?token=${key}#/sessions/${id}`);
      await carol.getByRole('group', { name: /^write_note: / }).waitFor();
      await stopServe(first);
      first = undefined;
      await carol.getByText('reconnecting…').waitFor();
      second = await startServe(restartData, 1, port);
      await expect
        .poll(() => carol.getByText('reconnecting…').count(), { timeout: 30_000 })
        .toBe(0);
      await carol
        .getByRole('group', { name: /^write_note: / })
        .getByRole('button', { name: 'Allow', exact: true })
        .click();
      await carol.getByText('The note is written.').waitFor();
      const transcript =
        (await carol.getByRole('list', { name: 'Transcript' }).textContent()) ?? '';
      expect(transcript.split('First, a note.')).toHaveLength(2);
      expect(transcript.split('The note is written.')).toHaveLength(2);
    } finally {
      await stopServe(first);
      await stopServe(second);
      rmSync(restartData, { recursive: true, force: true });
    }
  }, 180_000);

  it('gets out of a pause: a message denies the waiting call with it as the reason, Dismiss interrupts', async () => {
    const page = await newPage();
    const id = await startSession(page);
    const note = page.getByRole('group', { name: /^write_note: .*welcome\.md/ });
    await note.waitFor();
    await page.getByRole('textbox', { name: 'Message' }).fill('Not now, thanks');
    await page
      .getByRole('note')
      .getByText('Sending will deny the 1 waiting call and tell the agent: “Not now, thanks”')
      .waitFor();
    await expectAccessible(page, 'a message over a waiting call');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText('Fine, no note then.').waitFor();
    const deletion = page.getByRole('group', { name: /^delete_notes: / });
    await deletion.waitFor();
    const denied = (await auditOf(id)).find((record) => record.decision === 'denied');
    expect(denied).toMatchObject({ detail: { reason: 'Not now, thanks' } });

    await page.getByRole('button', { name: 'Dismiss' }).click();
    await expect
      .poll(() => page.getByRole('button', { name: 'Deny' }).count(), { timeout: 30_000 })
      .toBe(0);
    await expect
      .poll(async () => (await auditOf(id)).map((record) => record.decision), { timeout: 30_000 })
      .toContain('interrupted');
    await expect
      .poll(() => page.getByRole('button', { name: 'Dismiss' }).count(), { timeout: 30_000 })
      .toBe(0);
    expect(await page.getByRole('alert').count()).toBe(0);
  }, 90_000);

  it('stops a running reply', async () => {
    const slow = await startServe(slowData, 150);
    try {
      const page = await newPage();
      await startSession(page, slow);
      // The message shows at once, labelled "you", above the reply it started.
      const entries = page.getByRole('list', { name: 'Transcript' }).getByRole('listitem');
      await page.getByText('working…').waitFor();
      expect(await entries.first().textContent()).toBe('youhello');
      expect(await entries.count()).toBe(2);
      await page.getByRole('button', { name: 'Stop' }).click();
      await page.getByText('Stopped.').waitFor();
      await expect
        .poll(() => page.getByRole('button', { name: 'Stop' }).count(), { timeout: 30_000 })
        .toBe(0);
    } finally {
      await stopServe(slow);
    }
  }, 60_000);
});
