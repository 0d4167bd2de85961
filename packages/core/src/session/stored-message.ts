import { InvalidStateError } from '../errors/index.js';
import type { Msg } from '../message/index.js';
import { sha256Hex } from './runner/sha256.js';

/**
 * The digest a store writes next to a message row: the first 128 bits of
 * the SHA-256 of the session id, the position and the text, as 32 hex
 * digits. A row whose digest does not match was not written there by a
 * Parley store (changed by hand, damaged, moved from another place or
 * session) and is refused on load. 128 bits make an accidental match
 * impossible in practice; the digest is no signature either way (whoever
 * can write the database can compute it), so the other half of SHA-256
 * would add bytes to every row and nothing else.
 */
export function messageDigest(sessionId: string, position: number, text: string): string {
  return sha256Hex(digestInput(sessionId, position, text)).slice(0, DIGEST_LENGTH);
}

/**
 * Whether `digest` is the digest of that text at that place of that session:
 * `messageDigest`'s, or the whole 64-digit SHA-256 that rows written
 * before it was shortened carry. One SHA-256 either way.
 */
export function digestMatches(
  sessionId: string,
  position: number,
  text: string,
  digest: unknown,
): boolean {
  if (typeof digest !== 'string') return false;
  const whole = sha256Hex(digestInput(sessionId, position, text));
  return digest.length === DIGEST_LENGTH ? whole.startsWith(digest) : digest === whole;
}

/** Hex digits of a digest `messageDigest` writes. */
const DIGEST_LENGTH = 32;

const digestInput = (sessionId: string, position: number, text: string): string =>
  `${sessionId}\n${position}\n${text}`;

/**
 * A stored message's text parsed, or `InvalidStateError`. Its digest (or
 * the store's own write) says a Parley store validated this text as a
 * message before writing it, so only the top level is looked at (an object
 * with an id, a role and content); a digest does not make damaged JSON whole.
 */
export function parseStored(sessionId: string, position: number, text: string): Msg {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new InvalidStateError(
      `Stored message ${position} of session '${sessionId}' is not valid JSON.`,
      { sessionId, cause },
    );
  }
  if (!looksLikeMessage(value)) {
    throw new InvalidStateError(
      `Stored message ${position} of session '${sessionId}' is no message.`,
      {
        sessionId,
      },
    );
  }
  return value;
}

/** The top level of a message: what a row that passed its digest is still checked for. */
function looksLikeMessage(value: unknown): value is Msg {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (!('id' in value) || !('role' in value) || !('content' in value)) return false;
  const { id, role, content } = value;
  return (
    typeof id === 'string' &&
    (role === 'user' || role === 'assistant' || role === 'system') &&
    (typeof content === 'string' || Array.isArray(content))
  );
}
