import { describe, expect, it } from 'vitest';
import { InMemorySessionStore } from '../session/index.js';
import { ScriptedModel } from '../testing/index.js';
import { Sessions } from '../session/runner/index.js';
import { StaleSessionError } from '../errors/index.js';
import { memoryTracing } from '../../test/trace-fixtures.js';
import { traceAttributes as attr } from './index.js';
import { tracedStore } from './store-trace.js';

describe('tracedStore', () => {
  it('a span per load and save; a failed save is an error span and still rejects', async () => {
    const { exporter, tracer } = memoryTracing();
    const store = tracedStore(new InMemorySessionStore(), tracer);
    const sessions = new Sessions({ store, agent: { model: new ScriptedModel([{ text: 'hi' }]) } });
    await sessions.reply('s1', 'hello');
    const names = exporter.getFinishedSpans().map((span) => span.name);
    expect(names).toContain('session_store load');
    expect(names).toContain('session_store save');
    const loaded = await store.load('s1');
    if (loaded === undefined) throw new Error('not saved');
    await expect(store.save('s1', loaded.state, loaded.version + 5)).rejects.toBeInstanceOf(
      StaleSessionError,
    );
    const failed = exporter.getFinishedSpans().at(-1);
    expect(failed?.name).toBe('session_store save');
    expect(failed?.status.code).toBe(2);
    expect(failed?.attributes[attr.conversationId]).toBe('s1');
  });

  it('keeps the optional methods the store has, and only those', () => {
    const bare = tracedStore({
      load: () => Promise.resolve(undefined),
      save: () => Promise.resolve(1),
    });
    expect('listDue' in bare).toBe(false);
    expect('listAudit' in bare).toBe(false);
    const full = tracedStore(new InMemorySessionStore());
    expect('listDue' in full && 'listAudit' in full && 'renewLease' in full).toBe(true);
  });
});
