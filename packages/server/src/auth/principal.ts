import { hasLoneSurrogate } from '@parley/core';
/**
 * Who is calling, as an authenticator established it. `id` is what owns
 * sessions and what audit records name as the approver; the role
 * `approver` lets a principal read every session and answer parked calls.
 */
export type Principal = { id: string; roles?: string[] };

/**
 * Finds the principal of a request from its credentials, or `null` when
 * there are none or they are not valid (the server answers 401). Any
 * function will do: `apiKeyAuth`, or your own over your sessions or tokens.
 */
export type Authenticate = (request: Request) => Principal | null | Promise<Principal | null>;

/** Whether the principal has the role `approver`. */
export function isApprover(principal: Principal): boolean {
  return principal.roles?.includes('approver') ?? false;
}

/**
 * `authenticate`, refusing (as no credentials, `null`) a principal whose id
 * is empty or not well-formed Unicode: such an id cannot be stored exactly
 * (SQLite and Postgres keep UTF-8, where a lone surrogate becomes U+FFFD),
 * so two different subjects could end up owning the same sessions.
 */
export function wellFormedPrincipals(authenticate: Authenticate): Authenticate {
  return async (request) => {
    const principal = await authenticate(request);
    if (principal === null) return null;
    if (typeof principal.id !== 'string' || principal.id === '') return null;
    return hasLoneSurrogate(principal.id) ? null : principal;
  };
}
