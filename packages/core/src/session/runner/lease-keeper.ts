import type { AgentState } from '../../state/index.js';
import type { Logger } from '../../tool/index.js';
import type { SessionStore } from '../session-store.js';

/** What a `LeaseKeeper` holds a session with. */
export type LeaseSettings = {
  store: SessionStore;
  sessionId: string;
  /** How long (ms) a lease lasts unless renewed; 0 takes none. */
  lease: number;
  clock: () => Date;
  logger: Logger | undefined;
};

/**
 * Holds one runner call's session by lease while the reply it saved is
 * running: says which lease a save carries, and renews it every third of
 * its length between saves, from a timer that does not keep the process
 * alive. Without `renewLease` in the store, or with a lease of 0, it takes
 * none. A renewal that finds a newer version does nothing: a save renewed
 * the lease, or another process took the session over and the next save of
 * this call will fail.
 */
export class LeaseKeeper {
  private readonly settings: LeaseSettings;
  private timer: ReturnType<typeof setInterval> | undefined;
  /** The version the last save made; renewals name it. */
  private version = 0;
  /** A save is on its way: renewals wait for the next tick. */
  private saving = false;

  constructor(settings: LeaseSettings) {
    this.settings = settings;
  }

  /**
   * A save of `state` begins (renewals wait until it ends); returns the
   * lease it carries: one while the reply runs.
   */
  beginSave(state: AgentState): string | undefined {
    this.saving = true;
    const { lease, store } = this.settings;
    if (lease <= 0 || store.renewLease === undefined || state.reply?.status !== 'running') {
      return undefined;
    }
    return this.until();
  }

  /**
   * The save ended: it made `version` (`undefined` when it failed) and
   * carried a lease or not. Renews while the last save carried one.
   */
  endSave(version: number | undefined, leased: boolean): void {
    this.saving = false;
    if (version === undefined || !leased) {
      this.stop();
      return;
    }
    this.version = version;
    this.start();
  }

  /** Stops renewing (the call is over). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private until(): string {
    return new Date(this.settings.clock().getTime() + this.settings.lease).toISOString();
  }

  private start(): void {
    const { store, sessionId, lease, logger } = this.settings;
    if (this.timer !== undefined || store.renewLease === undefined) return;
    const renew = store.renewLease.bind(store);
    this.timer = setInterval(() => {
      if (this.saving) return;
      renew(sessionId, this.version, this.until()).catch((error: unknown) => {
        logger?.warn('Could not renew the lease of a running reply.', {
          sessionId,
          error: error instanceof Error ? error.message : String(error),
        });
      });
    }, lease / 3);
    // Node's timers can be told not to keep the process alive; others are plain ids.
    const timer: unknown = this.timer;
    if (typeof timer === 'object' && timer !== null && 'unref' in timer) {
      const unref: unknown = timer.unref;
      if (typeof unref === 'function') unref.call(timer);
    }
  }
}
