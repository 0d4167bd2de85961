import { describe, expect, it } from 'vitest';
import { AGENT_STATE_VERSION, Agent, Toolkit } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import { SessionFileError, decodeSession, encodeSession } from './session-file.js';
import type { JsonSessionSettings } from './session-file.js';

const settings: JsonSessionSettings = { model: 'scripted:demo', tools: ['Read'], cwd: '/work' };

function freshState(): Agent['state'] {
  return new Agent({ model: new ScriptedModel([]), toolkit: new Toolkit() }).state;
}

describe('JSON session files of earlier versions', () => {
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
      `"schemaVersion": ${AGENT_STATE_VERSION}`,
      '"schemaVersion": 99',
    );
    expect(() => decodeSession(wrongState, 'old.json')).toThrow(
      /old\.json cannot be read: .*schemaVersion/,
    );
  });
});
