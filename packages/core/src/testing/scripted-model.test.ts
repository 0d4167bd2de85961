import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../model/index.js';
import { ScriptedModel } from './scripted-model.js';

const request: ChatRequest = {
  systemPrompt: '',
  messages: [{ id: 'm1', name: 'user', role: 'user', content: 'hi', createdAt: '' }],
  tools: [],
};

async function play(model: ScriptedModel): Promise<string[]> {
  const types: string[] = [];
  for await (const chunk of model.stream(request)) types.push(chunk.type);
  return types;
}

describe('ScriptedModel requests', () => {
  it('keeps a deep copy of each request by default', async () => {
    const model = new ScriptedModel([{ text: 'a' }]);
    await play(model);
    expect(model.requests).toEqual([request]);
    expect(model.requests[0]).not.toBe(request);
  });

  it('keeps none with record: false, and plays the same chunks', async () => {
    const model = new ScriptedModel([{ text: 'a' }], { record: false });
    expect(await play(model)).toEqual(['text_delta', 'usage', 'finish']);
    expect(model.requests).toEqual([]);
  });
});
