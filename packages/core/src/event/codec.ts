import type { z } from 'zod';
import { InvalidEventError } from '../errors/index.js';
import type { InputEvent } from './input-events.js';
import type { AgentEvent } from './output-events.js';
import { describeSchemaProblem } from './schema-problem.js';
import {
  agentEventSchemas,
  agentEventTypes,
  inputEventSchemas,
  inputEventTypes,
  isAgentEventType,
  isInputEventType,
} from './schemas.js';

/**
 * `value` without `undefined`-valued keys, as a JSON round trip would give
 * (copied only when it has some): a JavaScript caller writing
 * `metadata: undefined` means "no metadata".
 */
function withoutUndefined(value: unknown): unknown {
  return hasUndefined(value) ? copyWithoutUndefined(value) : value;
}

/** Whether a plain object in `value` (or in its arrays) has an `undefined`-valued key. */
function hasUndefined(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasUndefined);
  if (!isPlainObject(value)) return false;
  for (const key of Object.keys(value)) {
    const entry = value[key];
    if (entry === undefined || hasUndefined(entry)) return true;
  }
  return false;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype
  );
}

function copyWithoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyWithoutUndefined);
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (entry !== undefined) copy[key] = copyWithoutUndefined(entry);
  }
  return copy;
}

/**
 * Encodes an event as JSON text (for SSE, a queue, a log). Events are plain
 * data, so this is `JSON.stringify`; `decodeEvent` reads it back.
 */
export function encodeEvent(event: AgentEvent | InputEvent): string {
  return JSON.stringify(event);
}

/**
 * Decodes an event of either direction from JSON text or an already parsed
 * value, validating it against the schema of its `type`.
 * Throws `InvalidEventError` whose `path` names the bad field ('' for text
 * that is not JSON or a value that is not an object, `type` for an unknown type).
 * @example decodeEvent(encodeEvent(event)) // deep-equals event
 */
export function decodeEvent(value: unknown): AgentEvent | InputEvent {
  const object = eventObject(value);
  const type = object['type'];
  if (isInputEventType(type)) return check<InputEvent>(inputEventSchemas[type], object);
  if (isAgentEventType(type)) return check<AgentEvent>(agentEventSchemas[type], object);
  throw unknownType(type, [...agentEventTypes, ...inputEventTypes]);
}

/**
 * Validates an input event (what resumes or ends a parked reply) given as an
 * object or as JSON text. `id`, `createdAt` and `metadata` may be absent;
 * unknown keys are refused so a misspelt field is not ignored.
 * Throws `InvalidEventError` naming the bad field.
 * @example parseInputEvent(await request.json())
 */
export function parseInputEvent(value: unknown): InputEvent {
  const object = eventObject(withoutUndefined(value));
  const type = object['type'];
  if (isInputEventType(type)) return check<InputEvent>(inputEventSchemas[type], object);
  throw unknownType(
    type,
    inputEventTypes,
    isAgentEventType(type) ? 'an output event, not an input event' : undefined,
  );
}

/**
 * Validates an output event (what `replyStream` yields) given as an object or
 * as JSON text, e.g. in a client reading the server's event stream.
 * Throws `InvalidEventError` naming the bad field.
 */
export function parseAgentEvent(value: unknown): AgentEvent {
  const object = eventObject(value);
  const type = object['type'];
  if (isAgentEventType(type)) return check<AgentEvent>(agentEventSchemas[type], object);
  throw unknownType(
    type,
    agentEventTypes,
    isInputEventType(type) ? 'an input event, not an output event' : undefined,
  );
}

/** The value as a plain object, parsing JSON text first. */
function eventObject(value: unknown): Record<string, unknown> {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new InvalidEventError('', `not valid JSON (${reason})`, { cause });
    }
  }
  if (!isRecord(parsed)) {
    const received = parsed === null ? 'null' : Array.isArray(parsed) ? 'array' : typeof parsed;
    throw new InvalidEventError('', `expected an event object, received ${received}`);
  }
  return parsed;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function check<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  // Parsing again with the received values in the issues, to name them in
  // the message; zod's parser is several times slower with `reportInput`.
  const result = schema.safeParse(value, { reportInput: true });
  const error = result.success ? parsed.error : result.error;
  const { path, problem } = describeSchemaProblem(error);
  throw new InvalidEventError(path, problem, { cause: error });
}

function unknownType(type: unknown, valid: readonly string[], hint?: string): InvalidEventError {
  const expected = `expected one of ${valid.join(', ')}`;
  if (type === undefined)
    return new InvalidEventError('type', `required field is missing (${expected})`);
  const received =
    typeof type === 'string' ? JSON.stringify(type) : type === null ? 'null' : typeof type;
  const note = hint === undefined ? '' : ` (${hint})`;
  return new InvalidEventError('type', `unknown event type ${received}${note}; ${expected}`);
}
