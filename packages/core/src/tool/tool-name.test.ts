import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InvalidToolNameError, ParleyError } from '../errors/index.js';
import { AskUser } from './ask-user.js';
import { tool } from './tool.js';
import { Toolkit } from './toolkit.js';
import { TOOL_NAME_PATTERN, isValidToolName } from './tool-name.js';
import type { AnyTool } from './types.js';
import { thrownBy } from '../../test/thrown.js';

const define = (name: string) =>
  tool({ name, description: 'x', input: z.object({}), execute: () => 'ok' });

// OpenAI function names and Anthropic tool names: ^[a-zA-Z0-9_-]{1,64}$.
const valid = ['write_note', 'AskUser', 'a', 'get-weather_2', 'x'.repeat(64)];
const invalid = ['', 'notes.write', 'write note', 'x'.repeat(65), 'café', 'a/b', 'mcp:tool', 'n\n'];

describe('tool names', () => {
  it.each(valid)('takes %j', (name) => {
    expect(isValidToolName(name)).toBe(true);
    expect(define(name).name).toBe(name);
  });

  it.each(invalid)('tool() refuses %j with InvalidToolNameError', (name) => {
    expect(isValidToolName(name)).toBe(false);
    const error = thrownBy(InvalidToolNameError, () => define(name));
    expect(error).toBeInstanceOf(ParleyError);
    expect(error.code).toBe('invalid_tool_name');
    expect(error.toolName).toBe(name);
    expect(error.message).toContain(JSON.stringify(name));
    expect(error.message).toContain('1 to 64 characters');
  });

  it('Toolkit refuses a bad name on a tool built without tool()', () => {
    const built: AnyTool = { ...define('ok_name'), name: 'notes.write' };
    const error = thrownBy(InvalidToolNameError, () => new Toolkit([built]));
    expect(error.toolName).toBe('notes.write');
    const toolkit = new Toolkit();
    expect(() => toolkit.add(built)).toThrow(InvalidToolNameError);
    expect(toolkit.list()).toEqual([]);
  });

  it('the pattern is the documented one, and the built-in AskUser passes it', () => {
    expect(TOOL_NAME_PATTERN.source).toBe('^[a-zA-Z0-9_-]{1,64}$');
    expect(new Toolkit([AskUser]).get('AskUser')).toBe(AskUser);
  });
});
