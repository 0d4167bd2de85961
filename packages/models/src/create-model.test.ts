import { afterEach, describe, expect, it, vi } from 'vitest';
import * as root from '@parley/models';
import * as anthropicEntry from '@parley/models/anthropic';
import * as ollamaEntry from '@parley/models/ollama';
import * as openaiEntry from '@parley/models/openai';
import {
  AnthropicChatModel,
  InvalidModelSpecError,
  OllamaChatModel,
  OpenAIChatModel,
  createModel,
} from './index.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('createModel', () => {
  it('builds each provider from its spec', () => {
    vi.stubEnv('OPENAI_API_KEY', 'test');
    vi.stubEnv('ANTHROPIC_API_KEY', 'test');
    const openai = createModel('openai:gpt-4.1-mini');
    expect(openai).toBeInstanceOf(OpenAIChatModel);
    expect(openai.name).toBe('openai:gpt-4.1-mini');
    const anthropic = createModel('anthropic:claude-sonnet-4-6');
    expect(anthropic).toBeInstanceOf(AnthropicChatModel);
    expect(anthropic.name).toBe('anthropic:claude-sonnet-4-6');
    const ollama = createModel('ollama:qwen3:8b');
    expect(ollama).toBeInstanceOf(OllamaChatModel);
    expect(ollama.name).toBe('ollama:qwen3:8b');
  });

  it('builds an OpenAI-compatible model from URL#model, with no key needed', () => {
    vi.stubEnv('OPENAI_API_KEY', undefined);
    const model = createModel('openai-compatible:http://localhost:8000/v1#Qwen/Qwen3-8B');
    expect(model).toBeInstanceOf(OpenAIChatModel);
    expect(model.name).toBe('openai-compatible:Qwen/Qwen3-8B');
  });

  it.each([
    ['gpt-4.1-mini', /expected openai:MODEL/],
    ['openai:', /expected openai:MODEL/],
    ['mistral:large', /unknown provider 'mistral'/],
    ['openai-compatible:http://localhost:8000/v1', /the model after #/],
    ['openai-compatible:not a url#m', /is not a URL/],
    ['scripted:demo', /ScriptedModel from @parley\/core\/testing/],
  ])('refuses %s', (spec, reason) => {
    expect(() => createModel(spec)).toThrow(InvalidModelSpecError);
    expect(() => createModel(spec)).toThrow(reason);
  });

  it('fails with a typed error when a key is missing', () => {
    vi.stubEnv('OPENAI_API_KEY', undefined);
    expect(() => createModel('openai:gpt-4.1-mini')).toThrow(
      expect.objectContaining({ code: 'model_configuration' }),
    );
  });
});

describe('entry points', () => {
  it('export the adapters by name from the root and from each subpath', () => {
    expect(Object.keys(root).sort()).toEqual([
      'AnthropicChatModel',
      'InvalidModelSpecError',
      'MalformedChunkError',
      'ModelApiError',
      'OllamaChatModel',
      'OpenAIChatModel',
      'createModel',
    ]);
    expect(openaiEntry.OpenAIChatModel).toBe(root.OpenAIChatModel);
    expect(anthropicEntry.AnthropicChatModel).toBe(root.AnthropicChatModel);
    expect(ollamaEntry.OllamaChatModel).toBe(root.OllamaChatModel);
    expect(openaiEntry.ModelApiError).toBe(root.ModelApiError);
  });
});
