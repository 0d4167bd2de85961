import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Agent, Toolkit } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import {
  SessionFile,
  SessionFileError,
  decodeSession,
  defaultSessionPath,
  encodeSession,
} from './session-file.js';
import type { SessionSettings } from './session-file.js';

const settings: SessionSettings = { model: 'scripted:demo', tools: ['Read'], cwd: '/work' };

function freshState(): Agent['state'] {
  return new Agent({ model: new ScriptedModel([]), toolkit: new Toolkit() }).state;
}

describe('session file', () => {
  it('round-trips settings and state', () => {
    const state = freshState();
    const text = encodeSession({ settings, state }, '2026-01-01T00:00:00.000Z');
    expect(JSON.parse(text)).toMatchObject({ format: 'parley-chat-session', version: 1 });
    expect(decodeSession(text, 'f.json')).toEqual({ settings, state });
  });

  it('refuses files that are not sessions, saying which file', () => {
    expect(() => decodeSession('{', 'bad.json')).toThrow(SessionFileError);
    expect(() => decodeSession('{"format":"other"}', 'bad.json')).toThrow(/bad\.json/);
    const wrongState = encodeSession({ settings, state: freshState() }).replace(
      '"schemaVersion": 1',
      '"schemaVersion": 99',
    );
    expect(() => decodeSession(wrongState, 'old.json')).toThrow(
      /old\.json cannot be read: .*schemaVersion/,
    );
  });

  it('loads nothing from a missing file and saves atomically, in call order', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'parley-session-'));
    const file = new SessionFile(join(directory, 'nested', 's.json'));
    expect(await file.load()).toBeUndefined();
    const state = freshState();
    const first = file.save(state, settings);
    state.context.push({ id: 'm1', name: 'user', role: 'user', content: 'later' });
    await Promise.all([first, file.save(state, settings)]);
    expect((await file.load())?.state.context).toHaveLength(1);
    expect(await readdir(join(directory, 'nested'))).toEqual(['s.json']);
  });

  it('snapshots the state when save is called', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'parley-session-'));
    const file = new SessionFile(join(directory, 's.json'));
    const state = freshState();
    const saving = file.save(state, settings);
    state.context.push({ id: 'm1', name: 'user', role: 'user', content: 'after' });
    await saving;
    expect(JSON.parse(await readFile(file.path, 'utf8')).state.context).toEqual([]);
  });

  it('keeps a corrupt file as it is', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'parley-session-'));
    const path = join(directory, 's.json');
    await writeFile(path, 'garbage');
    await expect(new SessionFile(path).load()).rejects.toThrow(SessionFileError);
    expect(await readFile(path, 'utf8')).toBe('garbage');
  });

  it('puts sessions under PARLEY_HOME, else the XDG state directory', () => {
    expect(defaultSessionPath({ PARLEY_HOME: '/p' }, 'id')).toBe('/p/sessions/id.json');
    expect(defaultSessionPath({ XDG_STATE_HOME: '/x' }, 'id')).toBe('/x/parley/sessions/id.json');
  });
});
