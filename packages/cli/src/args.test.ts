import { describe, expect, it } from 'vitest';
import { UsageError, keysUsage, parseCommandLine, serveUsage, usage } from './args.js';
import { InvalidModelSpecError } from '@parley/models';
import {
  ModelSpecError,
  createChatModel,
  defaultModelSpec,
  modelSpecForms,
  parseModelChoice,
} from './model-spec.js';
import { ToolListError, builtInToolNames, createTools, parseToolList } from './tool-set.js';

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
    expect(parseCommandLine([])).toEqual({ kind: 'help', text: usage });
    expect(parseCommandLine(['chat', '-h'])).toEqual({ kind: 'help', text: usage });
  });

  it('gives each command its own help', () => {
    expect(parseCommandLine(['serve', '--help'])).toEqual({ kind: 'help', text: serveUsage });
    expect(parseCommandLine(['serve', '-h', '--port', '0'])).toEqual({
      kind: 'help',
      text: serveUsage,
    });
    expect(parseCommandLine(['help', 'serve'])).toEqual({ kind: 'help', text: serveUsage });
    expect(parseCommandLine(['keys', '--help'])).toEqual({ kind: 'help', text: keysUsage });
    expect(serveUsage).toMatch(/^Usage: parley serve /);
    expect(serveUsage).toContain('--park-timeout MS');
    expect(serveUsage).not.toContain('--session');
  });

  it('reads serve and keys', () => {
    expect(
      parseCommandLine(['serve', '--model', 'scripted:demo', '--mode', 'explore', '--port', '0']),
    ).toEqual({ kind: 'serve', args: { model: 'scripted:demo', mode: 'explore', port: 0 } });
    expect(parseCommandLine(['keys', 'create', 'ada', '--role', 'approver'])).toEqual({
      kind: 'keys',
      args: { action: 'create', principal: 'ada', roles: ['approver'] },
    });
    expect(parseCommandLine(['keys', 'revoke', 'k1', '--data', 'd'])).toEqual({
      kind: 'keys',
      args: { action: 'revoke', id: 'k1', data: 'd' },
    });
  });

  it('refuses what it cannot run, saying why', () => {
    expect(() => parseCommandLine(['chat', '--mode', 'yolo'])).toThrow(/choose one of default/);
    expect(() => parseCommandLine(['server'])).toThrow(UsageError);
    expect(() => parseCommandLine(['chat', '--port', '80'])).toThrow(/--port/);
    expect(() => parseCommandLine(['serve', '--port', 'http'])).toThrow(/--port/);
    expect(() => parseCommandLine(['serve', '--session', 'x'])).toThrow(/--session/);
    expect(parseCommandLine(['serve', '--park-timeout', '60000'])).toEqual({
      kind: 'serve',
      args: { parkTimeout: 60_000 },
    });
    expect(() => parseCommandLine(['serve', '--park-timeout', '0'])).toThrow(/--park-timeout/);
    expect(() => parseCommandLine(['serve', '--park-timeout', '1h'])).toThrow(/--park-timeout/);
    expect(() => parseCommandLine(['chat', '--park-timeout', '5'])).toThrow(/--park-timeout/);
    expect(() => parseCommandLine(['keys', 'create'])).toThrow(UsageError);
    expect(() => parseCommandLine(['keys', 'drop', 'k1'])).toThrow(UsageError);
    expect(() => parseCommandLine(['chat', '--colour'])).toThrow(UsageError);
    expect(() => parseCommandLine(['chat', 'extra'])).toThrow(/Unexpected argument/);
  });
});

describe('model specs', () => {
  it('tells the demo from specs for createModel, and refuses other scripts', () => {
    expect(parseModelChoice('scripted:demo')).toEqual({ kind: 'demo' });
    expect(parseModelChoice('ollama:qwen3:8b')).toEqual({ kind: 'model', spec: 'ollama:qwen3:8b' });
    expect(() => parseModelChoice('scripted:other')).toThrow(ModelSpecError);
  });

  it('builds every documented real-model form through createModel', async () => {
    const env = { ...process.env };
    process.env['OPENAI_API_KEY'] ??= 'test-key';
    process.env['ANTHROPIC_API_KEY'] ??= 'test-key';
    try {
      for (const form of modelSpecForms.filter((form) => !form.startsWith('scripted:'))) {
        expect(typeof (await createChatModel(form)).stream).toBe('function');
      }
      await expect(createChatModel('gpt-4')).rejects.toThrow(InvalidModelSpecError);
    } finally {
      process.env = env;
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

describe('built-in tools', () => {
  it('builds the chosen tools of @parley/tools, working in the given directory', async () => {
    const tools = await createTools(['Read', 'Bash'], '/tmp');
    expect(tools.map((item) => item.name)).toEqual(['Read', 'Bash']);
    expect(await createTools([], '/tmp')).toEqual([]);
  });
});
