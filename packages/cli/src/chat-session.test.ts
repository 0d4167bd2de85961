import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Agent, Toolkit, userConfirmResultEvent } from '@parley/core';
import type { AgentEvent, SessionAgentOptions } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import { SqliteSessionStore } from '@parley/store-sqlite';
import {
  ChatSession,
  chatSessionId,
  defaultSessionPath,
  isJsonSessionFile,
  migrateJsonSession,
  settingsOf,
} from './chat-session.js';
import type { ChatSettings } from './chat-session.js';
import { confirmResult } from './confirm-prompt.js';
import { demoModel } from './demo-script.js';
import { demoTools } from './demo-tools.js';
import { SessionFileError, encodeSession } from './session-file.js';
import { waitingCalls } from './waiting-calls.js';

const settings: ChatSettings = {
  model: 'scripted:demo',
  tools: ['Read'],
  cwd: '/work',
  mode: 'default',
};

async function directory(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'parley-session-'));
}

function demoAgent(notes: string): SessionAgentOptions {
  return {
    model: demoModel({ chunkMs: 0, firstChunkMs: 0 }),
    toolkit: new Toolkit(demoTools(notes)),
  };
}

async function drain(stream: AsyncIterable<AgentEvent>): Promise<void> {
  for await (const _ of stream) {
    // the stored state is what the tests look at
  }
}

async function stored(path: string): Promise<Agent['state']> {
  const store = new SqliteSessionStore({ path });
  try {
    const loaded = await store.load(chatSessionId);
    if (loaded === undefined) throw new Error(`no session in ${path}`);
    return loaded.state;
  } finally {
    await store.close();
  }
}

describe('the console session in SQLite', () => {
  it('creates the session under the id "chat", with the settings in its metadata', async () => {
    const path = join(await directory(), 'nested', 's.sqlite');
    const session = await ChatSession.open(path);
    expect(session.existed).toBe(false);
    expect(session.storedSettings()).toBeUndefined();
    await session.start({ agent: demoAgent(path), settings, approver: 'ada' });
    await session.close();

    const state = await stored(path);
    expect(state.sessionId).toBe('chat');
    expect(state.metadata).toEqual({ parleyChat: settings });
    expect(state.permission.workingDirectories).toEqual(['/work']);

    const reopened = await ChatSession.open(path);
    expect(reopened.existed).toBe(true);
    expect(reopened.storedSettings()).toEqual(settings);
    await reopened.close();
  });

  it('stores changed settings and mode in the existing session, with the version check', async () => {
    const path = join(await directory(), 's.sqlite');
    const first = await ChatSession.open(path);
    await first.start({ agent: demoAgent(path), settings, approver: 'ada' });
    const second = await ChatSession.open(path);
    const changed: ChatSettings = { ...settings, mode: 'explore', tools: [] };
    await second.start({ agent: demoAgent(path), settings: changed, approver: 'ada' });
    await Promise.all([first.close(), second.close()]);
    const state = await stored(path);
    expect(settingsOf(state, path)).toEqual(changed);
    expect(state.permission.mode).toBe('explore');
  });

  it('saves every step, parks at a prompt, and audits the confirmation with the approver', async () => {
    const path = join(await directory(), 's.sqlite');
    const session = await ChatSession.open(path);
    await session.start({ agent: demoAgent(path), settings, approver: 'ada' });
    await drain(session.replyStream('hi', new AbortController().signal));
    const parked = await stored(path);
    expect(parked.reply?.status).toBe('parked');
    expect(parked.metadata).toEqual({ parleyChat: settings });

    const waiting = waitingCalls(session.state)[0];
    if (waiting === undefined) throw new Error('expected a waiting call');
    const answer = userConfirmResultEvent({
      replyId: waiting.replyId,
      confirmResults: [confirmResult('yes', waiting.toolCall)],
    });
    await drain(session.replyStream(answer, new AbortController().signal));
    expect(waitingCalls(await stored(path))[0]?.toolCall.name).toBe('delete_notes');

    const audit = await session.audit();
    await session.close();
    expect(audit.find((record) => record.decision === 'confirmed')).toMatchObject({
      sessionId: 'chat',
      toolCallId: waiting.toolCall.id,
      toolName: 'write_note',
      approver: 'ada',
    });
    expect(audit.some((r) => r.decision === 'executed' && r.toolCallId === 'demo-1')).toBe(true);
  });

  it('refuses settings in the metadata that are not the console’s', async () => {
    const path = join(await directory(), 's.sqlite');
    const store = new SqliteSessionStore({ path });
    const state = new Agent({ model: new ScriptedModel([]), sessionId: 'chat' }).state;
    await store.save('chat', { ...state, metadata: { parleyChat: { model: 1 } } }, 0);
    await store.close();
    const session = await ChatSession.open(path);
    expect(() => session.storedSettings()).toThrow(SessionFileError);
    await session.close();
  });

  it('puts sessions under PARLEY_HOME, else the XDG state directory', () => {
    expect(defaultSessionPath({ PARLEY_HOME: '/p' }, 'id')).toBe('/p/sessions/id.sqlite');
    expect(defaultSessionPath({ XDG_STATE_HOME: '/x' }, 'id')).toBe('/x/parley/sessions/id.sqlite');
  });
});

describe('JSON session files given to --session', () => {
  it('are recognized by their name or their first bytes', async () => {
    const dir = await directory();
    const unnamed = join(dir, 'session');
    await writeFile(unnamed, '\n {"format":"parley-chat-session"}');
    expect(await isJsonSessionFile(unnamed)).toBe(true);
    expect(await isJsonSessionFile(join(dir, 'new.json'))).toBe(true);
    expect(await isJsonSessionFile(join(dir, 'missing.sqlite'))).toBe(false);
    const sqlite = join(dir, 's.sqlite');
    await (await ChatSession.open(sqlite)).close();
    expect(await isJsonSessionFile(sqlite)).toBe(false);
  });

  it('are copied into a SQLite file beside them, which is reused later', async () => {
    const dir = await directory();
    const json = join(dir, 'old.json');
    const state = new Agent({ model: new ScriptedModel([]), permission: { mode: 'explore' } });
    state.state.context.push({ id: 'm1', name: 'user', role: 'user', content: 'hello' });
    const text = encodeSession({
      settings: { model: 'scripted:demo', tools: ['Read'], cwd: '/work' },
      state: state.state,
    });
    await writeFile(json, text);
    const target = await migrateJsonSession(json);
    expect(target).toBe(join(dir, 'old.sqlite'));
    const migrated = await stored(target);
    expect(migrated.sessionId).toBe('chat');
    expect(migrated.context).toEqual(state.state.context);
    expect(settingsOf(migrated, target)).toEqual({ ...settings, mode: 'explore' });
    expect(await readFile(json, 'utf8')).toBe(text);

    await writeFile(json, 'no longer read');
    expect(await migrateJsonSession(json)).toBe(target);
  });
});
