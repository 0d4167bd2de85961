/**
 * Readers for provider payloads whose shape is only promised, not checked:
 * the SDKs type parsed stream chunks, but at run time they are whatever
 * JSON the server sent. Each reader narrows `unknown` or throws a
 * `ShapeError` naming the bad field; the stream readers turn that into a
 * `MalformedChunkError`.
 */

/** A field of a provider payload does not have the documented type. */
export class ShapeError extends Error {
  readonly path: string;
  readonly problem: string;
  constructor(path: string, problem: string) {
    super(`${path}: ${problem}`);
    this.name = 'ShapeError';
    this.path = path;
    this.problem = problem;
  }
}

/** True for a plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** `value` as an object, or a `ShapeError` at `path`. */
export function readObject(value: unknown, path: string): Record<string, unknown> {
  if (!isRecord(value)) throw new ShapeError(path, `expected an object, got ${describe(value)}`);
  return value;
}

/** `object[key]` as an object; missing or null gives `undefined`. */
export function readOptionalObject(
  object: Record<string, unknown>,
  key: string,
  path: string,
): Record<string, unknown> | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  return readObject(value, `${path}.${key}`);
}

/** `object[key]` as a string; anything else is a `ShapeError`. */
export function readString(object: Record<string, unknown>, key: string, path: string): string {
  const value = object[key];
  if (typeof value !== 'string') {
    throw new ShapeError(`${path}.${key}`, `expected a string, got ${describe(value)}`);
  }
  return value;
}

/** `object[key]` as a string; missing or null gives `undefined`. */
export function readOptionalString(
  object: Record<string, unknown>,
  key: string,
  path: string,
): string | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  return readString(object, key, path);
}

/** `object[key]` as a finite number; anything else is a `ShapeError`. */
export function readNumber(object: Record<string, unknown>, key: string, path: string): number {
  const value = object[key];
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ShapeError(`${path}.${key}`, `expected a number, got ${describe(value)}`);
  }
  return value;
}

/** `object[key]` as a finite number; missing or null gives `undefined`. */
export function readOptionalNumber(
  object: Record<string, unknown>,
  key: string,
  path: string,
): number | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  return readNumber(object, key, path);
}

/** `object[key]` as a boolean; missing or null gives `undefined`. */
export function readOptionalBoolean(
  object: Record<string, unknown>,
  key: string,
  path: string,
): boolean | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') {
    throw new ShapeError(`${path}.${key}`, `expected a boolean, got ${describe(value)}`);
  }
  return value;
}

function isArray(value: unknown): value is unknown[] {
  return Array.isArray(value);
}

/** `object[key]` as an array; missing or null gives `undefined`. */
export function readOptionalArray(
  object: Record<string, unknown>,
  key: string,
  path: string,
): unknown[] | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  if (!isArray(value)) {
    throw new ShapeError(`${path}.${key}`, `expected an array, got ${describe(value)}`);
  }
  return value;
}
