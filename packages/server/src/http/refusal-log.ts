import type { Logger } from '@parley/core';
import type { Context } from 'hono';
import type { Principal } from '../auth/principal.js';
import type { Problem } from './problem.js';
import type { ServerEnv } from './server-context.js';

/**
 * The statuses of refusals a security team wants a record of: no or bad
 * credentials (401), a refused answer or act (403), a lost race or busy
 * session (409), an expired reply (410), a limit reached (429).
 */
const refusals = new Set([401, 403, 409, 410, 429]);

/**
 * Logs a refused request through the server's logger (never the
 * session's audit trail: a refused request changes nothing stored, so
 * the trail of what was done stays exactly that): its principal (if one
 * was found), session, code and detail.
 */
export function logRefusal(logger: Logger, c: Context<ServerEnv>, problem: Problem): void {
  if (!refusals.has(problem.status)) return;
  const principal: Principal | undefined = c.get('principal');
  const sessionId = /^\/v1\/sessions\/([^/]+)/.exec(c.req.path)?.[1];
  logger.warn('A request was refused.', {
    status: problem.status,
    code: problem.code,
    reason: problem.detail,
    principal: principal?.id ?? null,
    sessionId: sessionId === undefined ? null : decodedOrRaw(sessionId),
    method: c.req.method,
    path: c.req.path,
  });
}

/** `text` decoded from %-escapes, or as it is when they are malformed (`%ZZ`). */
function decodedOrRaw(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
