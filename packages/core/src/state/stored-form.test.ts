import { describe, expect, it } from 'vitest';
import { InvalidStateError } from '../errors/index.js';
import type { Msg, PermissionRule, ToolCallBlock } from '../message/index.js';
import type { PermissionContext } from '../permission/index.js';
import type { AgentState, ReplyState } from './index.js';
import { AGENT_STATE_VERSION, parseAgentState, serializeAgentState } from './index.js';
import { compactAgentState } from './stored-form.js';
import { thrownBy } from '../../test/thrown.js';

const userId = 'a9bd3c1e-5f27-4b8a-9e61-0c4d2f7a8b93';
const replyId = '92354e0b-7c1a-4d6f-8b2e-5a9c3d1f0e47';
const at = '2026-12-02T20:34:47.447Z';

const emptyPermission = (): PermissionContext => ({
  mode: 'default',
  workingDirectories: [],
  allowRules: [],
  denyRules: [],
  askRules: [],
});

const rule = (behavior: PermissionRule['behavior'], ruleContent: string): PermissionRule => ({
  toolName: 'Bash',
  ruleContent,
  behavior,
  source: 'user',
});

const toolCall = (id: string, name: string, state: ToolCallBlock['state']): ToolCallBlock => ({
  type: 'tool_call',
  id,
  name,
  input: '{"path":"notes/a.txt","content":"hello"}',
  state,
  suggestedRules:
    state === 'asking'
      ? [{ toolName: name, ruleContent: null, behavior: 'allow', source: 'suggested' }]
      : [],
});

const user: Msg = {
  id: userId,
  name: 'user',
  role: 'user',
  content: 'Write the note',
  createdAt: at,
};

const replyMessage = (calls: ToolCallBlock[]): Msg => ({
  id: replyId,
  name: 'assistant',
  role: 'assistant',
  content: calls,
  createdAt: at,
});

function state(calls: ToolCallBlock[], reply: Omit<ReplyState, 'replyId'> | null): AgentState {
  return {
    schemaVersion: AGENT_STATE_VERSION,
    sessionId: 'bytes',
    context: reply === null ? [user] : [user, replyMessage(calls)],
    permission: emptyPermission(),
    reply: reply === null ? null : { replyId, ...reply },
  };
}

const parked = (): Omit<ReplyState, 'replyId'> => ({
  status: 'parked',
  iterations: 1,
  turnStart: 0,
  executing: [],
  parkedAt: at,
});

/** A reply parked on one tool call waiting for confirmation (the measured example). */
const parkedOnConfirm = (): AgentState =>
  state([toolCall('call_1', 'write_file', 'asking')], parked());

const states: Record<string, () => AgentState> = {
  idle: () => state([], null),
  'parked on a confirmation': parkedOnConfirm,
  'parked on an external result': () =>
    state([toolCall('call_1', 'deploy', 'submitted')], { ...parked(), deadline: at }),
  'parked on AskUser': () => state([toolCall('call_ask', 'AskUser', 'submitted')], parked()),
  'running, between tool calls': () =>
    state([toolCall('call_1', 'Read', 'finished')], {
      status: 'running',
      iterations: 2,
      turnStart: 1,
      executing: [],
    }),
  'running, executing tool calls': () =>
    state([toolCall('call_1', 'Read', 'allowed'), toolCall('call_2', 'Grep', 'allowed')], {
      status: 'running',
      iterations: 1,
      turnStart: 0,
      executing: ['call_1', 'call_2'],
    }),
  'with rules and working directories': () => ({
    ...parkedOnConfirm(),
    permission: {
      mode: 'accept_edits',
      workingDirectories: ['/home/ana/notes', '/tmp'],
      allowRules: [rule('allow', 'git status:*')],
      denyRules: [rule('deny', 'git push:*')],
      askRules: [rule('ask', 'npm publish:*')],
    },
  }),
  'with application metadata': () => ({
    ...state([], null),
    metadata: { model: 'scripted:demo', executing: [], allowRules: [] },
  }),
};

const stateError = (run: () => unknown): InvalidStateError => thrownBy(InvalidStateError, run);

const roundTrip = (value: AgentState): AgentState =>
  parseAgentState(JSON.parse(serializeAgentState(value)));

describe('serializeAgentState: the compact stored form', () => {
  it.each(Object.keys(states))('round-trips a state %s', (name) => {
    const original = states[name]!();
    expect(roundTrip(original)).toStrictEqual(original);
  });

  it('stores a reply parked on one tool call in at most 774 bytes, without the empty lists', () => {
    const full = JSON.stringify(parkedOnConfirm());
    const text = serializeAgentState(parkedOnConfirm());
    expect(Buffer.byteLength(full)).toBe(821);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(774);
    for (const name of ['workingDirectories', 'allowRules', 'denyRules', 'askRules', 'executing']) {
      expect(text).not.toContain(name);
    }
    expect(text).toContain('"schemaVersion":2');
  });

  it('writes the lists that are not empty', () => {
    const stored = JSON.parse(serializeAgentState(states['with rules and working directories']!()));
    expect(stored.permission).toStrictEqual({
      mode: 'accept_edits',
      workingDirectories: ['/home/ana/notes', '/tmp'],
      allowRules: [rule('allow', 'git status:*')],
      denyRules: [rule('deny', 'git push:*')],
      askRules: [rule('ask', 'npm publish:*')],
    });
    const running = JSON.parse(serializeAgentState(states['running, executing tool calls']!()));
    expect(running.reply.executing).toEqual(['call_1', 'call_2']);
  });

  it('keeps empty lists of the same names elsewhere, such as in metadata', () => {
    const stored = JSON.parse(serializeAgentState(states['with application metadata']!()));
    expect(stored.metadata).toStrictEqual({
      model: 'scripted:demo',
      executing: [],
      allowRules: [],
    });
    expect(stored.permission).toStrictEqual({ mode: 'default' });
  });

  it('never changes the state it is given', () => {
    const original = parkedOnConfirm();
    const copy = structuredClone(original);
    serializeAgentState(original);
    expect(original).toStrictEqual(copy);
  });
});

describe('compactAgentState', () => {
  it('reuses the sub-objects it leaves whole rather than copying them', () => {
    const original = states['with rules and working directories']!();
    const stored = compactAgentState(original);
    expect(stored.context).toBe(original.context);
    expect(stored.permission).toBe(original.permission);
    expect(stored.reply).not.toBe(original.reply);
    expect(stored.reply).not.toHaveProperty('executing');
  });
});

describe('parseAgentState: the compact stored form', () => {
  it('fills each left-out list with a list of its own', () => {
    const text = serializeAgentState(parkedOnConfirm());
    const first = parseAgentState(JSON.parse(text));
    const second = parseAgentState(JSON.parse(text));
    expect(first.permission).toStrictEqual(emptyPermission());
    expect(first.reply?.executing).toEqual([]);
    first.permission.allowRules.push(rule('allow', 'ls'));
    expect(second.permission.allowRules).toEqual([]);
    expect(first.permission.denyRules).toEqual([]);
  });

  it('still reads the full form of the current version', () => {
    const original = parkedOnConfirm();
    expect(parseAgentState(JSON.parse(JSON.stringify(original)))).toStrictEqual(original);
  });

  it('refuses an unknown key in a compact state, naming it', () => {
    const stored = JSON.parse(serializeAgentState(parkedOnConfirm()));
    stored.reply.executin = ['call_1'];
    const error = stateError(() => parseAgentState(stored, 's1'));
    expect(error.sessionId).toBe('s1');
    expect(error.message).toMatch(/^Invalid agent state of session 's1' at reply\.executin: /);
    expect(error.message).toContain('unknown key "executin"');
  });

  it('refuses a compact state of a newer version as newer', () => {
    const stored = { ...JSON.parse(serializeAgentState(parkedOnConfirm())), schemaVersion: 3 };
    const error = stateError(() => parseAgentState(stored));
    expect(error.message).toBe(
      'Invalid agent state at schemaVersion: version 3 is newer than this build reads (up to 2); upgrade Parley to load it',
    );
  });

  it('refuses a left-out field that has no default', () => {
    const stored = JSON.parse(serializeAgentState(parkedOnConfirm()));
    delete stored.permission.mode;
    expect(stateError(() => parseAgentState(stored)).message).toContain('at permission.mode:');
  });
});
