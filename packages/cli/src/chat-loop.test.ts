import { describe, expect, it, vi } from 'vitest';
import type * as prompts from '@inquirer/prompts';
import { AGENT_STATE_VERSION, Toolkit, createPermissionContext } from '@parley/core';
import type { AgentEvent, AgentState, ReplyInput } from '@parley/core';
import { runChatLoop } from './chat-loop.js';
import type { ChatRunner } from './chat-loop.js';
import { EventRenderer } from './renderer.js';
import { Spinner } from './spinner.js';
import { plainColors } from './theme.js';

// The person types "/exit" at the message prompt.
vi.mock('@inquirer/prompts', async (original) => ({
  ...(await original<typeof prompts>()),
  input: vi.fn(() => Promise.resolve('/exit')),
}));

/** A session saved while a reply was running, as a killed console leaves it. */
function runningState(): AgentState {
  return {
    schemaVersion: AGENT_STATE_VERSION,
    sessionId: 'chat',
    context: [
      {
        id: 'u1',
        name: 'user',
        role: 'user',
        content: 'hi',
        createdAt: '2030-01-01T00:00:00.000Z',
      },
      {
        id: 'r1',
        name: 'assistant',
        role: 'assistant',
        content: [],
        createdAt: '2030-01-01T00:00:00.000Z',
      },
    ],
    permission: createPermissionContext(),
    reply: { replyId: 'r1', status: 'running', iterations: 0, turnStart: 0, executing: [] },
  };
}

/** A runner whose lease reads `leaseUntil` until refreshed; its replies end the running one. */
class KilledConsoleSession implements ChatRunner {
  state = runningState();
  readonly events: string[] = [];
  constructor(public leaseUntil: string | undefined) {}

  async refresh(): Promise<void> {
    this.events.push('refresh');
    this.leaseUntil = undefined;
  }

  async *replyStream(input: ReplyInput | undefined): AsyncGenerator<AgentEvent> {
    this.events.push(input === undefined ? 'continue' : 'reply');
    this.state = { ...this.state, reply: null };
    yield* [];
  }
}

async function loopOn(session: ChatRunner): Promise<string> {
  let out = '';
  const screen = { write: (text: string) => void (out += text), columns: () => 80 };
  await runChatLoop({
    session,
    toolkit: new Toolkit(),
    screen,
    colors: plainColors,
    renderer: new EventRenderer(screen, plainColors, new Spinner(screen, plainColors, false), {
      isExternal: () => false,
    }),
    interrupts: () => () => undefined,
  });
  return out;
}

describe('chat loop: a reply left running by a killed console', () => {
  it('waits out the lease, reads the session again, then continues the reply', async () => {
    const session = new KilledConsoleSession(new Date(Date.now() + 30).toISOString());
    const out = await loopOn(session);
    expect(out).toContain('The console that was running this reply holds the session until');
    expect(out.indexOf('holds the session')).toBeLessThan(out.indexOf('Continuing the reply'));
    expect(session.events).toStrictEqual(['refresh', 'continue']);
  });

  it('continues at once when the lease has run out', async () => {
    const session = new KilledConsoleSession(new Date(Date.now() - 1_000).toISOString());
    const out = await loopOn(session);
    expect(out).not.toContain('holds the session');
    expect(out).toContain('Continuing the reply');
    expect(session.events).toStrictEqual(['continue']);
  });
});
