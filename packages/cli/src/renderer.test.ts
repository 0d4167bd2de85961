import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, Toolkit, tool, userConfirmResultEvent } from '@parley/core';
import type { AgentEvent, ChatChunk } from '@parley/core';
import { ScriptedModel } from '@parley/core/testing';
import type { ScriptedStep } from '@parley/core/testing';
import { EventRenderer } from './renderer.js';
import { Spinner } from './spinner.js';
import { plainColors } from './theme.js';

const writeNote = tool({
  name: 'write_note',
  description: 'Write a note.',
  input: z.object({ path: z.string() }),
  execute: async ({ path }) => `Wrote ${path}\nsecond line`,
});
const lookup = tool({
  name: 'lookup',
  description: 'Look up.',
  input: z.object({ key: z.string() }),
  readOnly: true,
  execute: async () => {
    throw new Error('no such key');
  },
});

function screen(width = 60): { text: () => string; renderer: EventRenderer } {
  let out = '';
  const target = { write: (text: string) => void (out += text), columns: () => width };
  const spinner = new Spinner(target, plainColors, false);
  const renderer = new EventRenderer(target, plainColors, spinner, { isExternal: () => false });
  return { text: () => out, renderer };
}

async function render(
  renderer: EventRenderer,
  stream: AsyncIterable<AgentEvent>,
): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    renderer.handle(event);
  }
  renderer.finish();
  return events;
}

function agentWith(steps: ScriptedStep[]): Agent {
  return new Agent({
    model: new ScriptedModel(steps, { chunkSize: 4 }),
    toolkit: new Toolkit([writeNote, lookup]),
  });
}

describe('EventRenderer', () => {
  it('shows a redacted thinking block as "reasoning (redacted)", one line per block', async () => {
    const model = {
      name: 'redacting',
      async *stream(): AsyncGenerator<ChatChunk> {
        yield { type: 'redacted_thinking', data: 'EmwKAhgBEgy3' };
        yield { type: 'redacted_thinking', data: 'EmwKAhgBEgy4' };
        yield { type: 'text_delta', delta: 'Done.' };
        yield { type: 'finish', finishedReason: 'stop' };
      },
    };
    const { text, renderer } = screen();
    await render(renderer, new Agent({ model }).replyStream('think'));
    expect(text()).toBe(['reasoning (redacted)', 'reasoning (redacted)', 'Done.', ''].join('\n'));
  });

  it('streams text, then one line per tool call and per result', async () => {
    const agent = agentWith([
      { text: 'Let me look.', toolCalls: [{ id: 'a', name: 'lookup', input: { key: 'k' } }] },
      { text: 'It is not there, sorry about that.' },
    ]);
    const { text, renderer } = screen(24);
    await render(renderer, agent.replyStream('find k'));
    expect(text()).toBe(
      [
        'Let me look.',
        '● lookup(key: "k")',
        '  ⎿ ✗ no such key',
        'It is not there, sorry',
        'about that.',
        '',
      ].join('\n'),
    );
  });

  it('names the tool on a result that is not right under its call', async () => {
    const agent = agentWith([
      { toolCalls: [{ id: 'w', name: 'write_note', input: { path: 'a.md' } }] },
      { text: 'done' },
    ]);
    const first = screen();
    const events = await render(first.renderer, agent.replyStream('write'));
    expect(first.text()).toBe('● write_note(path: "a.md")\n');
    const ask = events.find((event) => event.type === 'REQUIRE_USER_CONFIRM');
    if (ask?.type !== 'REQUIRE_USER_CONFIRM') throw new Error('no confirmation asked');
    const second = screen();
    await render(
      second.renderer,
      agent.replyStream(
        userConfirmResultEvent({
          replyId: ask.replyId,
          confirmResults: [{ confirmed: true, toolCall: ask.toolCalls[0]! }],
        }),
      ),
    );
    expect(second.text()).toBe('  ⎿ write_note ✓ Wrote a.md (+1 lines)\ndone\n');
  });

  it('says when a reply was interrupted', async () => {
    const agent = agentWith([{ text: 'a long answer that will be cut' }]);
    const { text, renderer } = screen();
    const controller = new AbortController();
    for await (const event of agent.replyStream('go', { signal: controller.signal })) {
      renderer.handle(event);
      if (event.type === 'TEXT_BLOCK_DELTA') controller.abort();
    }
    renderer.finish();
    expect(text()).toBe('a lo\n◼ Interrupted.\n');
  });
});
