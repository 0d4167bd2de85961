import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InvalidStateError } from '../errors/index.js';
import type { AgentState } from './index.js';
import { agentStateSchema, parseAgentState, serializeAgentState } from './index.js';
import { thrownBy } from '../../test/thrown.js';

const fixtures = new URL('../../test/fixtures/state/', import.meta.url);
const readFixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(name, fixtures), 'utf8'));

const stateError = (run: () => unknown): InvalidStateError => thrownBy(InvalidStateError, run);

describe('parseAgentState: valid fixtures', () => {
  // The same cases as a released version-1 build wrote them (full form) and
  // as this build writes them (compact form).
  const cases = readdirSync(new URL('v2/', fixtures)).sort();

  it('has the idle and both parked fixtures, in both versions', () => {
    expect(cases).toEqual(['idle.json', 'parked-confirm.json', 'parked-external.json']);
    expect(readdirSync(new URL('v1/', fixtures)).sort()).toEqual(cases);
  });

  it.each(cases)('loads v2/%s, and writes it back as it is', (name) => {
    const value = readFixture(`v2/${name}`);
    const state = parseAgentState(value, 'sess');
    expect(state.schemaVersion).toBe(2);
    expect(JSON.parse(serializeAgentState(state))).toStrictEqual(value);
    expect(parseAgentState(JSON.parse(serializeAgentState(state)))).toStrictEqual(state);
  });

  it.each(cases)('migrates v1/%s to the state v2/%s gives', (name) => {
    const v1 = readFixture(`v1/${name}`);
    const state = parseAgentState(v1, 'sess');
    expect(state).toStrictEqual(parseAgentState(readFixture(`v2/${name}`)));
    expect(state).toStrictEqual({ ...(v1 as object), schemaVersion: 2 });
  });

  it('keeps the parked span context (traceParent) a traced park wrote; states without it load as before', () => {
    const value = readFixture('v2/parked-confirm.json');
    const parked = agentStateSchema.parse(value).reply;
    if (parked === null) throw new Error('the fixture is not parked');
    const traceParent = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
    const traced = { ...agentStateSchema.parse(value), reply: { ...parked, traceParent } };
    const state = parseAgentState(JSON.parse(serializeAgentState(traced)), 'sess');
    expect(state.reply?.traceParent).toBe(traceParent);
    expect(parseAgentState(value).reply).not.toHaveProperty('traceParent');
  });

  it('reads the parked reply of a fixture', () => {
    const state = parseAgentState(readFixture('v2/parked-external.json'));
    expect(state.reply?.status).toBe('parked');
    expect(state.reply?.executing).toEqual([]);
    expect(state.context.at(-1)?.id).toBe(state.reply?.replyId);
  });
});

describe('parseAgentState: thinking blocks (signature-only and redacted)', () => {
  // Written by this build: a parked reply whose turn began with a block that
  // has only a signature, two redacted blocks and a signed one. States
  // written before `redactedData` existed load unchanged (the v2 fixtures).
  it('loads them in order and writes them back byte for byte', () => {
    const value = readFixture('thinking/parked-redacted.json');
    const state = parseAgentState(value, 'sess');
    const blocks = state.context[1]?.content;
    expect(Array.isArray(blocks) && blocks.slice(0, 4).map((block) => block.type)).toEqual([
      'thinking',
      'thinking',
      'thinking',
      'thinking',
    ]);
    expect(JSON.parse(serializeAgentState(state))).toStrictEqual(value);
  });

  it('refuses a redacted block whose data is not text', () => {
    const value = readFixture('thinking/parked-redacted.json');
    const broken = JSON.parse(
      JSON.stringify(value).replace(/"redactedData":"[^"]*"/, '"redactedData":7'),
    );
    expect(stateError(() => parseAgentState(broken)).message).toContain(
      'at context.1.content.1.redactedData:',
    );
  });
});

describe('parseAgentState: malformed fixtures', () => {
  // Each malformed fixture and the field its error must name.
  const expected: Record<string, string> = {
    'bad-tool-call-state.json': 'context.1.content.1.state',
    'duplicate-tool-call-id.json': 'context.1.content.1.id',
    'executing-unknown-call.json': 'reply.executing.0',
    'future-version.json': 'schemaVersion',
    'missing-schema-version.json': 'schemaVersion',
    'negative-iterations.json': 'reply.iterations',
    'not-an-object.json': '',
    'null-list.json': 'reply.executing',
    'reply-id-mismatch.json': 'reply.replyId',
    'reply-without-message.json': 'reply.replyId',
    'result-block-without-text.json': 'context.1.content.2.output.0.text',
    'truncated.json': 'permission',
    'unknown-key.json': 'context.1.finishReason',
    'unknown-key-compact.json': 'permission.allowRule',
  };
  const malformed = readdirSync(new URL('malformed/', fixtures));

  it('has an expected path for every malformed fixture', () => {
    expect(malformed.sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))('refuses %s at "%s"', (name, path) => {
    const error = stateError(() => parseAgentState(readFixture(`malformed/${name}`), 'sess-9'));
    expect(error.code).toBe('invalid_state');
    expect(error.sessionId).toBe('sess-9');
    const where = path === '' ? ':' : ` at ${path}:`;
    expect(error.message).toMatch(
      new RegExp(`^Invalid agent state of session 'sess-9'${escape(where)}`),
    );
  });

  it('says what is wrong, not only where', () => {
    const messages = Object.fromEntries(
      Object.keys(expected).map((name) => [
        name,
        stateError(() => parseAgentState(readFixture(`malformed/${name}`))).message,
      ]),
    );
    expect(messages['future-version.json']).toContain(
      'version 3 is newer than this build reads (up to 2)',
    );
    expect(messages['bad-tool-call-state.json']).toContain('received string "waiting"');
    expect(messages['duplicate-tool-call-id.json']).toContain(
      'duplicate tool call id "call_ask_1"',
    );
    expect(messages['reply-id-mismatch.json']).toContain('expected the id of the last message');
    expect(messages['reply-without-message.json']).toContain('the last message is a user message');
    expect(messages['truncated.json']).toContain('required field is missing');
    expect(messages['unknown-key.json']).toContain('unknown key "finishReason"');
    expect(messages['unknown-key-compact.json']).toContain('unknown key "allowRule"');
    expect(messages['null-list.json']).toContain('received null');
    expect(messages['not-an-object.json']).toContain('received array');
    expect(messages['negative-iterations.json']).toContain('>=0, received number -1');
  });

  it('names no session when none is given', () => {
    const error = stateError(() => parseAgentState(readFixture('malformed/truncated.json')));
    expect(error.sessionId).toBeUndefined();
    expect(error.message).toMatch(/^Invalid agent state at permission:/);
  });
});

describe('parseAgentState: invariants and edge cases', () => {
  const parked = (): AgentState => parseAgentState(readFixture('v2/parked-confirm.json'));

  it('refuses null, text and numbers', () => {
    for (const value of [null, undefined, 'state', 3]) {
      expect(stateError(() => parseAgentState(value)).message).toContain(
        'expected an agent state object',
      );
    }
  });

  it('refuses a context that is not a list without tripping over the invariants', () => {
    const state = { ...parked(), context: 'nope' };
    expect(stateError(() => parseAgentState(state)).message).toContain('at context:');
  });

  it('allows the same tool call id in two different messages', () => {
    const state = parked();
    const reply = state.context[1]!;
    state.context.splice(1, 0, { ...reply, id: 'older-reply', finishedReason: 'completed' });
    expect(() => parseAgentState(state)).not.toThrow();
  });

  it('refuses a reply whose message is not the last one', () => {
    const state = parked();
    state.context.push({ id: 'late', name: 'user', role: 'user', content: 'and another thing' });
    expect(stateError(() => parseAgentState(state)).message).toContain('at reply.replyId:');
  });

  it('refuses a non-integer turnStart', () => {
    const state = { ...parked(), reply: { ...parked().reply, turnStart: 0.5 } };
    expect(stateError(() => parseAgentState(state)).message).toContain('at reply.turnStart:');
  });

  it('refuses an optional field stored as null', () => {
    const state = { ...parked(), reply: { ...parked().reply, deadline: null } };
    expect(stateError(() => parseAgentState(state)).message).toContain('at reply.deadline:');
  });

  it('keeps the zod error as the cause of a shape problem', () => {
    const error = stateError(() => parseAgentState({ ...parked(), sessionId: 7 }));
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('is what agentStateSchema accepts', () => {
    expect(agentStateSchema.safeParse(parked()).success).toBe(true);
    expect(
      agentStateSchema.safeParse({ ...parked(), reply: { ...parked().reply, replyId: 'x' } })
        .success,
    ).toBe(false);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('parseAgentState: application metadata', () => {
  it('keeps metadata the application stored with the state, and refuses a non-object', () => {
    const idle = readFixture('v2/idle.json') as AgentState;
    const withMetadata = { ...idle, metadata: { model: 'scripted:demo', tools: ['Bash'] } };
    expect(parseAgentState(withMetadata).metadata).toEqual({
      model: 'scripted:demo',
      tools: ['Bash'],
    });
    expect(stateError(() => parseAgentState({ ...idle, metadata: 'x' })).message).toMatch(
      /metadata/,
    );
  });
});
