import type { ExpirySweep } from '@parley/core';
import type { ServerContext } from './server-context.js';
import { indexWaiting } from './server-context.js';

/** A running expiry timer: `stop` ends it and waits for a sweep in progress. */
export type ExpiryTimer = { stop(): Promise<void> };

/**
 * Sweeps `context.sessions.expireDue` every `everyMs` milliseconds, so that
 * parked replies past their deadline are settled as their agent's
 * `onExpire` says even when nobody touches them, and refreshes the
 * approvals index of each session it settled. Sweeps never overlap; the
 * timer is `unref`'d, so it does not keep the process alive. A sweep that
 * fails is tried again on the next tick (the reply is also settled when
 * next touched). `onSweep` sees each sweep's outcome.
 */
export function startExpiryTimer(
  context: ServerContext,
  everyMs: number,
  onSweep?: (sweep: ExpirySweep) => void,
): ExpiryTimer {
  let sweeping: Promise<void> | undefined;
  const sweep = async (): Promise<void> => {
    try {
      const outcome = await context.sessions.expireDue(context.clock());
      await Promise.all(outcome.expired.map((id) => indexWaiting(context, id)));
      onSweep?.(outcome);
    } catch {
      // Left for the next tick; a reply is also settled when it is next touched.
    }
  };
  const timer = setInterval(() => {
    if (sweeping !== undefined) return;
    sweeping = sweep().finally(() => {
      sweeping = undefined;
    });
  }, everyMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await sweeping;
    },
  };
}
