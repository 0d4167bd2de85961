import type { ChatRequest, Msg } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { commandsTurn } from './commands-script.js';

const request = (messages: Msg[]): ChatRequest => ({ systemPrompt: '', messages, tools: [] });
const user = (text: string): Msg => ({ id: 'u', name: 'user', role: 'user', content: text });
const reply = (content: Msg['content']): Msg => ({
  id: 'r',
  name: 'assistant',
  role: 'assistant',
  content,
});

describe('the scripted commands model', () => {
  it('turns each command into its tool calls', () => {
    const calls = (text: string) =>
      commandsTurn(request([user(text), reply([])])).toolCalls?.map((call) => [
        call.name,
        call.input,
      ]);
    expect(calls('note a.md some text')).toEqual([
      ['write_note', { path: 'a.md', content: 'some text' }],
    ]);
    expect(calls('publish x y')).toEqual([
      ['publish', { path: 'x' }],
      ['publish', { path: 'y' }],
    ]);
    expect(calls('deploy production')).toEqual([['deploy', { environment: 'production' }]]);
    expect(calls('use greet {"name":"Ada"}')).toEqual([['greet', '{"name":"Ada"}']]);
    expect(calls('ask')?.[0]?.[0]).toBe('AskUser');
    expect(commandsTurn(request([user('hi'), reply([])]))).toEqual({ text: 'You said: hi' });
  });

  it('reports the results once the calls of its turn have them', () => {
    const turn = commandsTurn(
      request([
        user('delete'),
        reply([
          {
            type: 'tool_call',
            id: 'c',
            name: 'delete_notes',
            input: '{}',
            state: 'finished',
            suggestedRules: [],
          },
          { type: 'tool_result', id: 'c', name: 'delete_notes', output: 'no', state: 'denied' },
        ]),
      ]),
    );
    expect(turn).toEqual({ text: 'Results:\ndelete_notes denied: no' });
  });
});
