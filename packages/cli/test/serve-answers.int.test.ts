// `parley serve` as a process, over real HTTP, against answers that try to
// do more than answer: a confirmation renamed into another tool (past the
// operator's deny rule), a rule that was never suggested, the revocation of
// the operator's rule, a subject that is not well-formed Unicode, and a
// malformed %-escape in the path.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteServerLog, createApiKey } from '@parley/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  call,
  hs256Jwt,
  readFrames,
  settles,
  startServeNode,
  stopServeNode,
} from './serve-node.js';
import type { ServeNode } from './serve-node.js';

const secret = 'a shared secret of at least thirty-two bytes';
const denyDelete = { toolName: 'delete_notes', ruleContent: null, behavior: 'deny' };

const waitingSchema = z.object({
  replyId: z.string(),
  toolCalls: z.array(
    z.object({
      type: z.literal('tool_call'),
      id: z.string(),
      name: z.string(),
      input: z.string(),
      state: z.string(),
      suggestedRules: z.array(z.record(z.string(), z.unknown())),
    }),
  ),
});
const problemSchema = z.object({ status: z.number(), code: z.string(), detail: z.string() });
const auditSchema = z.object({
  records: z.array(z.object({ decision: z.string(), toolName: z.string() })),
});

/** A JWT for `sub`, valid for a minute. */
function tokenFor(sub: string): string {
  const now = Math.floor(Date.now() / 1000);
  return hs256Jwt({ sub, iat: now, exp: now + 60 }, secret);
}

describe('parley serve: an answer confirms, denies or edits the call it names, nothing more', () => {
  const folder = mkdtempSync(join(tmpdir(), 'parley-serve-answers-'));
  let node: ServeNode | undefined;
  let approver = '';
  const alice = tokenFor('alice');

  beforeAll(async () => {
    const config = join(folder, 'parley.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        data: 'data',
        model: 'scripted:demo',
        jwt: { key: secret },
        rules: [denyDelete],
      }),
    );
    mkdirSync(join(folder, 'data'));
    const keys = new SqliteServerLog({ path: join(folder, 'data', 'parley.sqlite') });
    approver = (await createApiKey(keys, 'ann', ['approver'])).token;
    keys.close();
    node = await startServeNode(['--config', config, '--port', '0'], process.env);
  }, 60_000);

  afterAll(async () => {
    await stopServeNode(node);
    rmSync(folder, { recursive: true, force: true });
  }, 30_000);

  /** A session of alice's parked on the demo's first call (write_note). */
  async function parked(serve: ServeNode) {
    const created = await call(serve, 'POST', '/v1/sessions', { token: alice });
    const { id } = z.object({ id: z.string() }).parse(await created.json());
    const reply = await call(serve, 'POST', `/v1/sessions/${id}/replies`, {
      token: alice,
      body: { input: 'hello' },
      headers: { accept: 'text/event-stream' },
    });
    const frames = await readFrames(reply, settles);
    const last = frames.at(-1);
    expect(last?.event).toBe('REQUIRE_USER_CONFIRM');
    const waiting = waitingSchema.parse(JSON.parse(last?.data ?? ''));
    const [toolCall] = waiting.toolCalls;
    if (toolCall === undefined) throw new Error('no waiting call');
    expect(toolCall.name).toBe('write_note');
    return { id, replyId: waiting.replyId, toolCall };
  }

  const stateOf = async (serve: ServeNode, id: string) =>
    Promise.all([
      (await call(serve, 'GET', `/v1/sessions/${id}`, { token: alice })).json(),
      (await call(serve, 'GET', `/v1/sessions/${id}/messages`, { token: alice })).json(),
    ]);

  it("refuses a confirmation renamed into another tool (the operator's denied one, or Bash), by owner or approver", async () => {
    if (node === undefined) throw new Error('not started');
    const { id, replyId, toolCall } = await parked(node);
    const before = await stateOf(node, id);
    for (const [token, name, input] of [
      [approver, 'delete_notes', '{"suffix":""}'],
      [alice, 'delete_notes', '{"suffix":""}'],
      [approver, 'Bash', '{"command":"id > approver-ran-this.txt"}'],
    ] as const) {
      const answer = await call(node, 'POST', `/v1/sessions/${id}/replies`, {
        token,
        body: {
          input: {
            type: 'USER_CONFIRM_RESULT',
            replyId,
            confirmResults: [{ confirmed: true, toolCall: { ...toolCall, name, input } }],
          },
        },
      });
      expect(answer.status).toBe(400);
      const problem = problemSchema.parse(await answer.json());
      expect(problem.code).toBe('invalid_event');
      expect(problem.detail).toContain(`cannot change it to '${name}'`);
    }
    expect(await stateOf(node, id)).toEqual(before);
    const audit = auditSchema.parse(
      await (await call(node, 'GET', `/v1/sessions/${id}/audit`, { token: alice })).json(),
    );
    expect(audit.records.map((record) => record.decision)).toEqual(['asked']);
  }, 60_000);

  it('refuses a rule that was not suggested with the call; the suggested one is kept under its call', async () => {
    if (node === undefined) throw new Error('not started');
    const { id, replyId, toolCall } = await parked(node);
    const before = await stateOf(node, id);
    const extra = { toolName: 'delete_notes', ruleContent: null, behavior: 'allow', source: 'x' };
    const refused = await call(node, 'POST', `/v1/sessions/${id}/replies`, {
      token: approver,
      body: {
        input: {
          type: 'USER_CONFIRM_RESULT',
          replyId,
          confirmResults: [{ confirmed: true, toolCall, rules: [extra] }],
        },
      },
    });
    expect(refused.status).toBe(400);
    expect(problemSchema.parse(await refused.json()).code).toBe('invalid_event');
    expect(await stateOf(node, id)).toEqual(before);
    const kept = await call(node, 'POST', `/v1/sessions/${id}/replies`, {
      token: approver,
      body: {
        input: {
          type: 'USER_CONFIRM_RESULT',
          replyId,
          confirmResults: [{ confirmed: true, toolCall, rules: toolCall.suggestedRules }],
        },
      },
    });
    expect(kept.status).toBe(200);
    const audit = auditSchema.parse(
      await (await call(node, 'GET', `/v1/sessions/${id}/audit`, { token: alice })).json(),
    );
    const added = audit.records.filter((record) => record.decision === 'rule_added');
    expect(added.map((record) => record.toolName)).toEqual(
      toolCall.suggestedRules.map(() => 'write_note'),
    );
  }, 60_000);

  it("refuses to revoke the operator's rule with 403, to the owner and to an approver", async () => {
    if (node === undefined) throw new Error('not started');
    const { id } = await parked(node);
    for (const token of [alice, approver]) {
      const refused = await call(node, 'POST', `/v1/sessions/${id}/permission/revoke`, {
        token,
        body: denyDelete,
      });
      expect(refused.status).toBe(403);
      expect(problemSchema.parse(await refused.json()).code).toBe('fixed_rule');
    }
    const permission = z
      .object({ rules: z.array(z.object({ toolName: z.string(), source: z.string() })) })
      .parse(
        await (await call(node, 'GET', `/v1/sessions/${id}/permission`, { token: alice })).json(),
      );
    expect(permission.rules).toContainEqual(
      expect.objectContaining({ toolName: 'delete_notes', source: 'policy' }),
    );
  }, 60_000);

  it('refuses a subject with a lone surrogate (401); its look-alike sees none of its sessions', async () => {
    if (node === undefined) throw new Error('not started');
    const lone = await call(node, 'POST', '/v1/sessions', { token: tokenFor('eve\ud800') });
    expect(lone.status).toBe(401);
    const lookalike = tokenFor('eve\ufffd');
    const listed = z
      .object({ sessions: z.array(z.unknown()) })
      .parse(await (await call(node, 'GET', '/v1/sessions', { token: lookalike })).json());
    expect(listed.sessions).toEqual([]);
  }, 30_000);

  it('answers a malformed %-escape with 401 without credentials and 400 with them, never 500', async () => {
    if (node === undefined) throw new Error('not started');
    const anonymous = await fetch(`${node.url}/v1/sessions/%ZZ`);
    expect(anonymous.status).toBe(401);
    const named = await call(node, 'GET', '/v1/sessions/%ZZ', { token: alice });
    expect(named.status).toBe(400);
    expect(node.output()).toContain('A request was refused');
  }, 30_000);
});
