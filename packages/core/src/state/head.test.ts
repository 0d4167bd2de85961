import { sampleState } from '@parley/core/conformance';
import { describe, expect, it } from 'vitest';
import { InMemorySessionStore, emptySessionTables } from '../session/in-memory-session-store.js';
import { messageDigest } from '../session/stored-message.js';
import { joinStateHead, parseStateHead, serializeStateHead } from './head.js';
import { compactAgentState } from './stored-form.js';
import type { AgentState } from './types.js';

/** `state` with the default permission context. */
function withDefaultPermission(state: AgentState): AgentState {
  state.permission = {
    mode: 'default',
    workingDirectories: [],
    allowRules: [],
    denyRules: [],
    askRules: [],
  };
  return state;
}

/** The head as stores wrote it before: the compact state without `context`, nothing else left out. */
function fullFormHead(state: AgentState): string {
  const { context: _context, ...head } = compactAgentState(state);
  return JSON.stringify(head);
}

describe('the stored head', () => {
  it('leaves out a default permission context and the replyId of the last message', () => {
    const state = withDefaultPermission(sampleState('s'));
    const head: unknown = JSON.parse(serializeStateHead(state));
    expect(head).not.toHaveProperty('permission');
    expect(head).not.toHaveProperty('reply.replyId');
    expect(head).toHaveProperty('reply.status', 'parked');
    const joined = joinStateHead(parseStateHead(head, 's'), state.context);
    expect(joined).toStrictEqual(state);
  });

  it('keeps a permission context that is not the default, and no reply as null', () => {
    const state = sampleState('s');
    state.reply = null;
    const head: unknown = JSON.parse(serializeStateHead(state));
    expect(head).toHaveProperty('permission.workingDirectories', ['/project']);
    expect(head).toHaveProperty('reply', null);
    expect(joinStateHead(parseStateHead(head, 's'), state.context)).toStrictEqual(state);
  });

  it('keeps a replyId that is not the last message’s, so the load refuses it as before', () => {
    const state = sampleState('s');
    if (state.reply !== null) state.reply.replyId = 'another';
    const head: unknown = JSON.parse(serializeStateHead(state));
    expect(head).toHaveProperty('reply.replyId', 'another');
    expect(() => joinStateHead(parseStateHead(head, 's'), state.context)).toThrow(
      expect.objectContaining({ code: 'invalid_state' }),
    );
  });

  it('refuses a head without replyId whose context does not end with an assistant message', () => {
    const state = withDefaultPermission(sampleState('s'));
    const head: unknown = JSON.parse(serializeStateHead(state));
    const parsed = parseStateHead(head, 's');
    expect(() => joinStateHead(parsed, state.context.slice(0, 1))).toThrow(
      /the last message is a user message/,
    );
    expect(() => joinStateHead(parsed, [])).toThrow(/the context is empty/);
  });

  it('loads heads and rows written in the full form, before fields were left out', async () => {
    for (const state of [withDefaultPermission(sampleState('old')), sampleState('old')]) {
      const tables = emptySessionTables();
      tables.sessions.set('old', {
        state: fullFormHead(state),
        version: 3,
        messageCount: state.context.length,
      });
      tables.messages.set(
        'old',
        new Map(
          state.context.map((message, position) => {
            const text = JSON.stringify(message);
            const digest = messageDigest('old', position, text);
            return [position, { text, digest, writtenVersion: 3 }];
          }),
        ),
      );
      const store = new InMemorySessionStore({ tables });
      const loaded = await store.load('old');
      expect(loaded).toStrictEqual({ state, version: 3 });
      // The next save writes the head in the compact form, and it loads the same.
      if (loaded === undefined) throw new Error('not loaded');
      await store.save('old', loaded.state, 3);
      expect(tables.sessions.get('old')?.state).not.toContain('"replyId"');
      const again = await new InMemorySessionStore({ tables }).load('old');
      expect(again).toStrictEqual({ state, version: 4 });
    }
  });
});
