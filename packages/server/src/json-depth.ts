import type { MiddlewareHandler } from 'hono';
import { InvalidRequestError } from './errors.js';

/**
 * Whether the JSON text `text` nests arrays and objects more than `max`
 * deep, found in one pass over the text, with no parse and no recursion:
 * brackets inside strings (escapes included) are not counted. Malformed
 * text is left to the parser; only its depth is judged here.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c)
        index += 1; // a backslash: the next character is escaped
      else if (char === 0x22) inString = false;
      continue;
    }
    if (char === 0x22) {
      inString = true;
    } else if (char === 0x5b || char === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (char === 0x5d || char === 0x7d) {
      depth -= 1;
    }
  }
  return false;
}

/**
 * Refuses a request body that nests arrays and objects more than
 * `maxDepth` deep with 400 `invalid_request`, before any route reads it:
 * deep enough, such a body overflows the stack of whatever walks it
 * (`JSON.stringify`, a schema, a store). The body is read as text once;
 * the routes parse it from the text kept (hono caches a request's body).
 */
export function jsonDepthLimit(maxDepth: number): MiddlewareHandler {
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 1) {
    throw new RangeError('maxJsonDepth must be a whole number of at least 1.');
  }
  return async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.raw.body === null) {
      return next();
    }
    if (nestsDeeperThan(await c.req.text(), maxDepth)) {
      throw new InvalidRequestError(
        '(body)',
        `(body): arrays and objects nest more than ${maxDepth} deep.`,
      );
    }
    return next();
  };
}
