import { messageSchema, parseInputEvent } from '@parley/core';
import type { ReplyInput } from '@parley/core';
import { InvalidRequestError } from '../errors.js';

/** What a reply's `input` is: new input (a text or a message), or an answer to the parked reply. */
export type ParsedInput =
  { kind: 'message'; input: ReplyInput } | { kind: 'answer'; input: ReplyInput };

/**
 * Reads the `input` of a reply request: a string, an input event (an object
 * with a `type`, validated as an input event), or a `Msg`. A bad one is
 * refused with `InvalidEventError` or `InvalidRequestError`, whose `path`
 * says where.
 */
export function parseReplyInput(input: string | Record<string, unknown>): ParsedInput {
  if (typeof input === 'string') return { kind: 'message', input };
  if ('type' in input) return { kind: 'answer', input: parseInputEvent(input) };
  const message = messageSchema.safeParse(input);
  if (!message.success) {
    const issue = message.error.issues[0];
    const path = ['input', ...(issue?.path ?? [])].join('.');
    throw new InvalidRequestError(path, `${path}: ${issue?.message ?? 'not a message'}`);
  }
  return { kind: 'message', input: message.data };
}
