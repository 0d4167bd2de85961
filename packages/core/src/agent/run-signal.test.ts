import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedModel } from '../testing/index.js';
import { Toolkit, tool } from '../tool/index.js';
import { Agent } from './agent.js';
import { RunSignal } from './run-signal.js';

describe('RunSignal', () => {
  it('a run read to its end uses the caller signal as it is', () => {
    const caller = new AbortController();
    expect(new RunSignal(caller.signal, false).signal).toBe(caller.signal);
  });

  it('a stream has a signal of its own that follows the caller until released', () => {
    const caller = new AbortController();
    const followed = new RunSignal(caller.signal, true);
    expect(followed.signal).not.toBe(caller.signal);
    caller.abort('stop');
    expect(followed.signal.aborted).toBe(true);
    expect(followed.signal.reason).toBe('stop');

    const other = new AbortController();
    const released = new RunSignal(other.signal, true);
    released.release();
    other.abort();
    expect(released.signal.aborted).toBe(false);
  });

  it('starts aborted when the caller signal already is, and cancels on its own', () => {
    const caller = new AbortController();
    caller.abort('early');
    expect(new RunSignal(caller.signal, true).signal.reason).toBe('early');
    const alone = new RunSignal(undefined, false);
    expect(alone.signal.aborted).toBe(false);
    alone.cancel();
    expect(alone.signal.aborted).toBe(true);
  });

  it('reply(): a tool sees the caller abort it, and the reply ends interrupted', async () => {
    const caller = new AbortController();
    const waits = tool({
      name: 'wait',
      description: 'Runs until cancelled.',
      input: z.object({}),
      readOnly: true,
      execute: (_input, context) =>
        new Promise<string>((_resolve, reject) => {
          context.signal.addEventListener('abort', () => reject(new Error('stopped')));
          caller.abort();
        }),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'wait', input: {} }] }]);
    const agent = new Agent({ model, toolkit: new Toolkit([waits]) });
    const message = await agent.reply('go', { signal: caller.signal });
    expect(message.finishedReason).toBe('interrupted');
    expect(agent.state.context.at(-1)?.finishedReason).toBe('interrupted');
  });
});
