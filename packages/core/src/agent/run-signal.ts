/**
 * What stops a run's model and tools: the caller's signal, and for a stream
 * a controller of the run's own, which follows the caller's signal and is
 * also aborted when the consumer leaves the stream early. A run read to its
 * end (`reply`) cannot be left, so it uses the caller's signal as it is.
 */
export class RunSignal {
  readonly signal: AbortSignal;
  private readonly own: AbortController | undefined;

  /** `leavable`: the run is a stream its consumer may leave early. */
  constructor(
    private readonly given: AbortSignal | undefined,
    leavable: boolean,
  ) {
    if (given !== undefined && !leavable) {
      this.own = undefined;
      this.signal = given;
      return;
    }
    const own = new AbortController();
    this.own = own;
    this.signal = own.signal;
    if (given === undefined) return;
    if (given.aborted) own.abort(given.reason);
    given.addEventListener('abort', this, { once: true });
  }

  /** The caller's signal aborted (this object is its listener). */
  handleEvent(): void {
    this.own?.abort(this.given?.reason);
  }

  /** The consumer left early: stops what still runs. */
  cancel(): void {
    this.own?.abort();
  }

  /** The run is over: stops following the caller's signal. */
  release(): void {
    if (this.own !== undefined) this.given?.removeEventListener('abort', this);
  }
}
