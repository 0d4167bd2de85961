import { InvalidToolNameError } from '../errors/index.js';

/**
 * What a tool name may be: 1 to 64 letters, digits, `_` and `-`. It is the
 * rule of OpenAI's function names and of Anthropic's tool names, so a name
 * that passes is sent to every provider as it is, and the model's calls come
 * back under the same name. `tool()` and `Toolkit` refuse any other name.
 */
export const TOOL_NAME_PATTERN: RegExp = /^[a-zA-Z0-9_-]{1,64}$/;

/** Whether `name` is a tool name every provider takes (`TOOL_NAME_PATTERN`). */
export function isValidToolName(name: string): boolean {
  return TOOL_NAME_PATTERN.test(name);
}

/** Throws `InvalidToolNameError` unless `name` matches `TOOL_NAME_PATTERN`. */
export function assertValidToolName(name: string): void {
  if (!isValidToolName(name)) throw new InvalidToolNameError(name);
}
