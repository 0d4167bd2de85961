import type { Logger } from '@parley/core';
import { isApprover } from './principal.js';
import type { Authenticate, Principal } from './principal.js';

/**
 * What `watchCredentials` checks: `request`'s credentials, through
 * `authenticate`, every `everyMs` (0: never), against the `principal` they
 * named when the request began; `lost` is called once when they stop naming it.
 */
export type CredentialWatch = {
  authenticate: Authenticate;
  request: Request;
  principal: Principal;
  everyMs: number;
  logger: Logger;
  lost: () => void;
};

/** Whether `now` still stands for `before`: the same id, and an approver still one. */
function stillNames(before: Principal, now: Principal | null): boolean {
  if (now === null || now.id !== before.id) return false;
  return !isApprover(before) || isApprover(now);
}

/**
 * Checks a long request's credentials again and again while it runs (an
 * event stream may stay open for hours; a key revoked or a token expired
 * meanwhile must not keep reading). An authenticator that throws counts as
 * a refusal: the stream fails closed, and the error is logged. Returns the
 * function that stops the checks.
 */
export function watchCredentials(watch: CredentialWatch): () => void {
  if (watch.everyMs <= 0) return () => undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const check = async (): Promise<void> => {
    let now: Principal | null;
    try {
      now = await watch.authenticate(watch.request);
    } catch (error) {
      watch.logger.warn('Could not check the credentials of an open event stream; closing it.', {
        principal: watch.principal.id,
        error: String(error),
      });
      now = null;
    }
    if (stopped) return;
    if (stillNames(watch.principal, now)) {
      schedule();
      return;
    }
    stopped = true;
    watch.lost();
  };
  const schedule = (): void => {
    timer = setTimeout(() => void check(), watch.everyMs);
  };
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
