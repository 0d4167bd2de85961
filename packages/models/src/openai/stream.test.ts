import { describe, expect, it } from 'vitest';
import type { ChatChunk } from '@parley/core';
import { ShapeError } from '../shared/read.js';
import { OpenAIStreamTranslator } from './stream.js';

/** A chunk whose choice 0 carries `delta` and `finish_reason`. */
function chunk(delta: Record<string, unknown>, finishReason: string | null = null): unknown {
  return {
    id: 'c',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}

function run(events: unknown[]): ChatChunk[] {
  const translator = new OpenAIStreamTranslator();
  return [...events.flatMap((event) => translator.accept(event)), ...translator.finish()];
}

describe('OpenAIStreamTranslator', () => {
  it('holds argument fragments that arrive before the function name', () => {
    const chunks = run([
      chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { arguments: '{"a"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: ': 1}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(chunks).toEqual([
      { type: 'tool_call_start', id: 'call_1', name: 'f' },
      { type: 'tool_call_delta', id: 'call_1', delta: '{"a": 1}' },
      { type: 'tool_call_end', id: 'call_1' },
      { type: 'finish', finishedReason: 'tool_calls' },
    ]);
  });

  it('generates an id when a compatible server sends none', () => {
    const chunks = run([
      chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: '{}' } }] }),
      chunk({}, 'function_call'),
    ]);
    const start = chunks[0];
    expect(start).toMatchObject({ type: 'tool_call_start', name: 'f' });
    expect(start?.type === 'tool_call_start' && start.id.startsWith('call_')).toBe(true);
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishedReason: 'tool_calls' });
  });

  it('reads usage from a chunk whose choices are null (some compatible servers)', () => {
    const chunks = run([
      chunk({ content: 'hi' }, 'stop'),
      { id: 'c', choices: null, usage: { prompt_tokens: 3, completion_tokens: 1 } },
    ]);
    expect(chunks.slice(-2)).toEqual([
      { type: 'usage', inputTokens: 3, outputTokens: 1 },
      { type: 'finish', finishedReason: 'stop' },
    ]);
  });

  it('treats a tool call that never gets a name as malformed', () => {
    const translator = new OpenAIStreamTranslator();
    translator.accept(
      chunk({ tool_calls: [{ index: 0, id: 'x', function: { arguments: '{}' } }] }),
    );
    expect(() => translator.accept(chunk({}, 'tool_calls'))).toThrow(ShapeError);
  });

  it('treats a tool call delta without an index as malformed', () => {
    const translator = new OpenAIStreamTranslator();
    expect(() => translator.accept(chunk({ tool_calls: [{ id: 'x' }] }))).toThrow(
      'chunk.choices[0].delta.tool_calls[0].index',
    );
  });
});
