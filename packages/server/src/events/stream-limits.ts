import { TooManyStreamsError } from './stream-errors.js';

/**
 * How many event streams may be open at once: `perPrincipal` for one
 * principal (default 32), `total` in the whole server (default 4096).
 * `retryAfterSeconds` is what a refusal's `Retry-After` says (default 5).
 */
export type StreamLimitOptions = {
  perPrincipal?: number | undefined;
  total?: number | undefined;
  retryAfterSeconds?: number | undefined;
};

/** One admitted stream: `release` gives its place back (once; later calls do nothing). */
export type StreamSlot = { release(): void };

/**
 * Counts the open event streams of each principal and of the server, and
 * refuses one over either limit with `TooManyStreamsError` (429). A stream
 * is admitted before anything of its request runs, and released when it
 * ends, so a refused request changes nothing.
 */
export class StreamLimits {
  readonly perPrincipal: number;
  readonly total: number;
  private readonly retryAfter: number;
  private readonly open = new Map<string, number>();
  private openTotal = 0;

  constructor(options: StreamLimitOptions = {}) {
    this.perPrincipal = options.perPrincipal ?? 32;
    this.total = options.total ?? 4096;
    this.retryAfter = options.retryAfterSeconds ?? 5;
    for (const [name, value] of [
      ['perPrincipal', this.perPrincipal],
      ['total', this.total],
      ['retryAfterSeconds', this.retryAfter],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new RangeError(`streamLimits.${name} must be a whole number of at least 1.`);
      }
    }
  }

  /** The streams `principal` holds open now. */
  openOf(principal: string): number {
    return this.open.get(principal) ?? 0;
  }

  /**
   * Admits a stream of `principal`, or throws `TooManyStreamsError`;
   * `force` counts it whatever the limits (a stream that opened without
   * being admitted first must still be counted).
   */
  admit(principal: string, { force = false }: { force?: boolean } = {}): StreamSlot {
    const held = this.openOf(principal);
    if (!force && held >= this.perPrincipal) {
      throw new TooManyStreamsError('principal', this.perPrincipal, this.retryAfter);
    }
    if (!force && this.openTotal >= this.total) {
      throw new TooManyStreamsError('total', this.total, this.retryAfter);
    }
    this.open.set(principal, held + 1);
    this.openTotal += 1;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.openTotal -= 1;
        const left = this.openOf(principal) - 1;
        if (left > 0) this.open.set(principal, left);
        else this.open.delete(principal);
      },
    };
  }
}
