import { describe, expect, it } from 'vitest';
import { SessionBusyError, Toolkit } from '../../index.js';
import type { AgentEvent } from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';
import { Sessions } from './sessions.js';
import { RecordingStore, writeFileTool } from './test-fixtures.js';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const HOUR = 3_600_000;

function sessionsOf(onExpire: 'deny' | 'interrupt') {
  const store = new RecordingStore();
  const model = new ScriptedModel([
    { toolCalls: [{ id: 'tc1', name: 'write_file', input: { path: 'a', content: 'b' } }] },
    { text: 'Nobody answered.' },
  ]);
  const runs = new Map<string, number>();
  const agent = { model, toolkit: new Toolkit([writeFileTool(runs)]), parkTimeout: HOUR, onExpire };
  return { store, runs, sessions: new Sessions({ store, clock: () => new Date(T0), agent }) };
}

async function all(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const seen: AgentEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe('Sessions.expireStream', () => {
  it('yields nothing before the deadline and leaves the reply parked', async () => {
    const { sessions, store } = sessionsOf('deny');
    await sessions.reply('s1', 'write');
    expect(await all(sessions.expireStream('s1', new Date(T0 + HOUR - 1)))).toEqual([]);
    expect((await store.load('s1'))?.state.reply?.status).toBe('parked');
    expect(await all(sessions.expireStream('nobody', new Date(T0 + HOUR)))).toEqual([]);
  });

  it('deny: yields the call closed as denied and the rest of the reply, as expireDue settles it', async () => {
    const { sessions, store, runs } = sessionsOf('deny');
    await sessions.reply('s1', 'write');
    const events = await all(sessions.expireStream('s1', new Date(T0 + HOUR)));
    const types = events.map((event) => event.type);
    expect(types).toContain('TOOL_RESULT_END');
    expect(types.at(-1)).toBe('REPLY_END');
    expect(events.at(-1)).toMatchObject({ finishedReason: 'completed' });
    expect(runs.size).toBe(0);
    expect((await store.load('s1'))?.state.reply).toBeNull();
    expect(await sessions.audit('s1')).toMatchObject([
      { decision: 'asked' },
      { decision: 'expired' },
    ]);
  });

  it('interrupt: the reply ends interrupted', async () => {
    const { sessions } = sessionsOf('interrupt');
    await sessions.reply('s1', 'write');
    const events = await all(sessions.expireStream('s1', new Date(T0 + HOUR)));
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishedReason: 'interrupted' });
  });

  it('refuses a session this Sessions is running', async () => {
    const { sessions } = sessionsOf('deny');
    const running = sessions.replyStream('s1', 'write');
    await running.next();
    await expect(all(sessions.expireStream('s1', new Date(T0 + HOUR)))).rejects.toBeInstanceOf(
      SessionBusyError,
    );
    await running.return();
  });
});
