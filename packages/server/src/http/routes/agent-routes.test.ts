import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenAPIHono } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { InMemorySessionStore } from '@parley/core';
import { callAsAlice, noteAgent, testServer } from '../../../test/support.js';
import type { ServerEnv } from '../server-context.js';
import { registerStaticAssets } from '../../node/static-assets.js';

const toolsSchema = (body: unknown) =>
  typeof body === 'object' && body !== null && 'tools' in body && Array.isArray(body.tools)
    ? body.tools.map((item: unknown) =>
        typeof item === 'object' && item !== null && 'name' in item ? item.name : undefined,
      )
    : undefined;

describe('the routes the web UI reads a session with', () => {
  it("lists the session's tools with their input schemas, and its mode and added rules", async () => {
    const server = testServer(new Map());
    const { id } = (await (await callAsAlice(server, 'POST', '/v1/sessions')).json()) as {
      id: string;
    };
    const tools = await callAsAlice(server, 'GET', `/v1/sessions/${id}/tools`);
    expect(tools.status).toBe(200);
    const body: unknown = await tools.json();
    expect(toolsSchema(body)).toEqual(['write_note']);
    expect(JSON.stringify(body)).toContain('"properties"');

    const permission = await callAsAlice(server, 'GET', `/v1/sessions/${id}/permission`);
    expect(await permission.json()).toEqual({ mode: 'default', rules: [] });
    await server.close();
  });

  it('answers 404 for a session the caller may not see', async () => {
    const server = testServer(new Map());
    const { id } = (await (await callAsAlice(server, 'POST', '/v1/sessions')).json()) as {
      id: string;
    };
    for (const path of ['tools', 'permission']) {
      const response = await server.fetch(
        new Request(`http://parley.test/v1/sessions/${id}/${path}`, {
          headers: { authorization: 'Bearer bob' },
        }),
      );
      expect(response.status).toBe(404);
    }
    await server.close();
  });
});

describe('POST /v1/sessions/:id/permission/revoke', () => {
  const allowNotes = { toolName: 'write_note', ruleContent: null, behavior: 'allow' as const };
  const as = (token: string, path: string, body?: unknown) =>
    new Request(`http://parley.test${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });

  it('lets the owner or an approver revoke a rule, refuses others and unknown rules, storing nothing', async () => {
    const runs = new Map<string, number>();
    const store = new InMemorySessionStore();
    const rule = { ...allowNotes, source: 'user' };
    const server = testServer(runs, {
      store,
      agent: { ...noteAgent(runs), permission: { rules: [rule] } },
    });
    const { id } = (await (await callAsAlice(server, 'POST', '/v1/sessions')).json()) as {
      id: string;
    };
    const done = await server.fetch(
      as('alice', `/v1/sessions/${id}/replies`, { input: 'write a note' }),
    );
    expect(done.status).toBe(200);
    expect([...runs.values()]).toEqual([1]);
    const path = `/v1/sessions/${id}/permission/revoke`;
    const version = (await store.load(id))?.version;

    const stranger = await server.fetch(as('bob', path, allowNotes));
    expect(stranger.status).toBe(404);
    const unknown = await server.fetch(as('alice', path, { ...allowNotes, behavior: 'deny' }));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: 'unknown_rule' });
    const bad = await server.fetch(as('alice', path, { toolName: 'write_note' }));
    expect(bad.status).toBe(400);
    expect((await store.load(id))?.version).toBe(version);
    expect(await (await server.fetch(as('alice', `/v1/sessions/${id}/permission`))).json()).toEqual(
      { mode: 'default', rules: [rule] },
    );

    const revoked = await server.fetch(as('ann', path, allowNotes));
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toEqual({ mode: 'default', rules: [] });
    const audit = await server.fetch(as('alice', `/v1/sessions/${id}/audit`));
    const records = ((await audit.json()) as { records: { decision: string; approver: unknown }[] })
      .records;
    expect(records.at(-1)).toMatchObject({ decision: 'rule_revoked', approver: 'ann' });
    const again = await server.fetch(as('alice', path, allowNotes));
    expect(again.status).toBe(404);
    await server.close();
  });
});

describe("POST /v1/sessions/:id/permission/revoke: the operator's rules stay", () => {
  it("answers 403 for a rule whose source is 'policy', to the owner and to an approver, storing nothing", async () => {
    const runs = new Map<string, number>();
    const store = new InMemorySessionStore();
    const denyWipe = { toolName: 'wipe', ruleContent: null, behavior: 'deny' as const };
    const server = testServer(runs, {
      store,
      agent: { ...noteAgent(runs), permission: { rules: [{ ...denyWipe, source: 'policy' }] } },
    });
    const { id } = (await (await callAsAlice(server, 'POST', '/v1/sessions')).json()) as {
      id: string;
    };
    await callAsAlice(server, 'POST', `/v1/sessions/${id}/replies`, { input: 'write a note' });
    const version = (await store.load(id))?.version;
    for (const token of ['alice', 'ann']) {
      const refused = await server.fetch(
        new Request(`http://parley.test/v1/sessions/${id}/permission/revoke`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(denyWipe),
        }),
      );
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
      const problem = (await refused.json()) as { code: string; detail: string };
      expect(problem.code).toBe('fixed_rule');
      expect(problem.detail).toContain('set by the operator');
    }
    expect((await store.load(id))?.version).toBe(version);
    expect((await store.load(id))?.state.permission?.denyRules).toEqual([
      { ...denyWipe, source: 'policy' },
    ]);
    await server.close();
  });
});

describe('the web UI at /', () => {
  it('serves index.html at / and the bundles under /assets/, with a CSP that allows only this origin', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'parley-public-'));
    mkdirSync(join(folder, 'assets'));
    writeFileSync(join(folder, 'index.html'), '<!doctype html><title>Parley</title>');
    writeFileSync(join(folder, 'assets', 'index-abc.js'), 'console.log(1)');
    const app = new OpenAPIHono<ServerEnv>();
    registerStaticAssets(app, folder);
    const page = await app.request('/');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>Parley</title>');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const bundle = await app.request('/assets/index-abc.js');
    expect(bundle.headers.get('cache-control')).toContain('immutable');
    expect((await app.request('/secret.txt')).status).toBe(404);
    expect((await app.request('/assets/../index.html')).status).not.toBe(500);
    rmSync(folder, { recursive: true, force: true });
  });

  it('says how to build it when there is no build', async () => {
    const app = new OpenAPIHono<ServerEnv>();
    registerStaticAssets(app, join(tmpdir(), 'parley-no-such-folder'));
    const page = await app.request('/');
    expect(page.status).toBe(503);
    expect(await page.text()).toContain('npm run build');
  });

  it('is left out with web: false', async () => {
    const server = testServer(new Map(), { web: false });
    expect((await server.fetch(new Request('http://parley.test/'))).status).toBe(404);
    await server.close();
  });
});
