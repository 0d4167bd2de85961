import type { MiddlewareHandler } from 'hono';
import { InvalidRequestError } from '../../errors.js';

/** The index of the quote that ends the JSON string opened at `open`, or -1 if none does. */
function stringEnd(text: string, open: number): number {
  let end = text.indexOf('"', open + 1);
  while (end !== -1) {
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes += 1;
    // An even run of backslashes escapes itself, not the quote.
    if (slashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return -1;
}

/**
 * Whether the JSON text `text` nests arrays and objects more than `max`
 * deep, found in one pass over the text, with no parse and no recursion:
 * strings are skipped whole (`indexOf` to their closing quote), so
 * brackets inside them are not counted. Malformed text is left to the
 * parser; only its depth is judged here.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (char === 0x22) {
      index = stringEnd(text, index);
      if (index === -1) return false;
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
