import { ConcurrentResumeError, SessionBusyError, StaleSessionError } from '@parley/core';
import type { ExpirySweep } from '@parley/core';
import type { ServerContext } from '../http/server-context.js';
import { indexWaiting } from '../http/server-context.js';

/** A running expiry timer: `stop` ends it and waits for a sweep in progress. */
export type ExpiryTimer = { stop(): Promise<void> };

/** How many due sessions one sweep settles at most; the rest wait for the next tick. */
const SWEEP_LIMIT = 100;

/**
 * Settles the parked replies of `context.store` past their deadline at
 * `now`, each through `Sessions.expireStream` and the event feed, so the
 * events it makes (the calls closed, and with `deny` the rest of the reply)
 * are numbered, stored and shown to followers like any reply's; then
 * refreshes the approvals index of each session it settled. A session
 * answered, running or settled elsewhere meanwhile is skipped.
 */
export async function sweepExpired(context: ServerContext, now: Date): Promise<ExpirySweep> {
  const sweep: ExpirySweep = { expired: [], skipped: [], failed: [] };
  const due = (await context.store.listDue?.(now.toISOString(), SWEEP_LIMIT)) ?? [];
  for (const sessionId of due) {
    try {
      let lastType: string | undefined;
      const events = context.feed.record(sessionId, context.sessions.expireStream(sessionId, now));
      for await (const event of events) lastType = event.type;
      if (lastType !== undefined) {
        await indexWaiting(context, sessionId);
        sweep.expired.push(sessionId);
      } else {
        sweep.skipped.push(sessionId);
      }
    } catch (error) {
      if (
        error instanceof SessionBusyError ||
        error instanceof ConcurrentResumeError ||
        error instanceof StaleSessionError
      ) {
        sweep.skipped.push(sessionId);
      } else {
        sweep.failed.push({ sessionId, error });
      }
    }
  }
  return sweep;
}

/**
 * Sweeps (`sweepExpired`) every `everyMs` milliseconds, so that parked
 * replies past their deadline are settled as their agent's `onExpire` says
 * even when nobody touches them. Sweeps never overlap; the timer is
 * `unref`'d, so it does not keep the process alive. A sweep or a session
 * that fails is told to `context.logger` and tried again on the next tick
 * (a reply is also settled when next touched). `onSweep` sees each sweep's
 * outcome.
 */
export function startExpiryTimer(
  context: ServerContext,
  everyMs: number,
  onSweep?: (sweep: ExpirySweep) => void,
): ExpiryTimer {
  let sweeping: Promise<void> | undefined;
  const sweep = async (): Promise<void> => {
    try {
      const outcome = await sweepExpired(context, context.clock());
      for (const { sessionId, error } of outcome.failed) {
        context.logger.error('Could not settle an expired reply.', {
          sessionId,
          error: String(error),
        });
      }
      onSweep?.(outcome);
    } catch (error) {
      context.logger.error('The expiry sweep failed.', { error: String(error) });
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
