import { describe, expect, it } from 'vitest';
import { UsageError, parseCommandLine } from './args.js';
import { ModelSpecError, defaultModelSpec, formatModelSpec, parseModelSpec } from './model-spec.js';
import { ToolListError, builtInToolNames, parseToolList } from './tool-set.js';

describe('command line', () => {
  it('parses parley chat and its options', () => {
    expect(
      parseCommandLine([
        'chat',
        '--model',
        'ollama:qwen3',
        '--mode',
        'accept_edits',
        '--tools',
        'read,grep',
        '--cwd',
        '/tmp',
        '--session',
        's.json',
      ]),
    ).toEqual({
      kind: 'chat',
      args: {
        model: 'ollama:qwen3',
        mode: 'accept_edits',
        tools: 'read,grep',
        cwd: '/tmp',
        session: 's.json',
      },
    });
    expect(parseCommandLine(['chat'])).toEqual({ kind: 'chat', args: {} });
    expect(parseCommandLine([])).toEqual({ kind: 'help' });
    expect(parseCommandLine(['chat', '-h'])).toEqual({ kind: 'help' });
  });

  it('refuses what it cannot run, saying why', () => {
    expect(() => parseCommandLine(['chat', '--mode', 'yolo'])).toThrow(/choose one of default/);
    expect(() => parseCommandLine(['serve'])).toThrow(UsageError);
    expect(() => parseCommandLine(['chat', '--colour'])).toThrow(UsageError);
    expect(() => parseCommandLine(['chat', 'extra'])).toThrow(/Unexpected argument/);
  });
});

describe('model specs', () => {
  it('parses every documented form and prints it back', () => {
    const forms = [
      'openai:gpt-4.1-mini',
      'anthropic:claude-sonnet-4-5',
      'ollama:qwen3',
      'openai-compatible:http://localhost:8000/v1#qwen3',
      'scripted:demo',
    ];
    for (const form of forms) expect(formatModelSpec(parseModelSpec(form))).toBe(form);
    expect(parseModelSpec('openai-compatible:https://h/v1#m')).toEqual({
      provider: 'openai-compatible',
      baseURL: 'https://h/v1',
      model: 'm',
    });
  });

  it('refuses unknown providers and incomplete specs', () => {
    for (const bad of ['gpt-4', 'openai:', 'scripted:other', 'openai-compatible:localhost#m']) {
      expect(() => parseModelSpec(bad)).toThrow(ModelSpecError);
    }
  });

  it('picks the first provider with a key', () => {
    expect(defaultModelSpec({})).toBeUndefined();
    expect(defaultModelSpec({ ANTHROPIC_API_KEY: 'k' })).toBe('anthropic:claude-sonnet-4-5');
    expect(defaultModelSpec({ OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' })).toBe(
      'openai:gpt-4.1-mini',
    );
    expect(defaultModelSpec({ OPENAI_API_KEY: ' ' })).toBeUndefined();
  });
});

describe('tool lists', () => {
  it('takes all, none, or names in any case', () => {
    expect(parseToolList('all')).toEqual([...builtInToolNames]);
    expect(parseToolList('none')).toEqual([]);
    expect(parseToolList('read, GREP,read')).toEqual(['Read', 'Grep']);
    expect(() => parseToolList('read,rm')).toThrow(ToolListError);
  });
});
