/**
 * Base class of every error Parley throws. `code` is stable and meant for
 * programs (switch on it); `message` is meant for people.
 */
export class ParleyError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Compile-time exhaustiveness check for discriminated unions. */
export function assertNever(value: never, what = 'value'): never {
  throw new ParleyError('internal', `Unexpected ${what}: ${JSON.stringify(value)}`);
}
