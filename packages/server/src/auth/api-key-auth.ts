import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Authenticate, Principal } from './principal.js';
import type { ApiKeyRecord, ApiKeyStore } from '../log/session-log.js';

/** A key as `createApiKey` made it: `token` is shown once and never stored. */
export type CreatedApiKey = { record: ApiKeyRecord; token: string };

const tokenPattern = /^pk_([0-9a-f]{16})_([0-9A-Za-z_-]{43})$/;

function hashOf(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/**
 * Makes a new API key for `principal` with `roles` and stores its hash in
 * `keys`. The token (`pk_<id>_<secret>`) is returned once; only the SHA-256
 * of its 256-bit random secret is kept (a slow hash buys nothing for a
 * random secret of that size).
 */
export async function createApiKey(
  keys: ApiKeyStore,
  principal: string,
  roles: string[] = [],
  now: Date = new Date(),
): Promise<CreatedApiKey> {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  const record: ApiKeyRecord = {
    id,
    principal,
    roles,
    secretHash: hashOf(secret),
    createdAt: now.toISOString(),
    revokedAt: null,
  };
  await keys.addKey(record);
  return { record, token: `pk_${id}_${secret}` };
}

/** The bearer token of a request: `Authorization: Bearer <token>`, else `undefined`. */
export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get('authorization');
  const match = header === null ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * An authenticator over API keys kept hashed in `keys`: the request's
 * bearer token must name a key that exists, is not revoked, and whose
 * secret hashes to the stored hash (compared in constant time).
 *
 * @example
 * const server = createServer({ ..., authenticate: apiKeyAuth(log) });
 */
export function apiKeyAuth(keys: ApiKeyStore): Authenticate {
  return async (request: Request): Promise<Principal | null> => {
    const token = bearerToken(request);
    const match = token === undefined ? null : tokenPattern.exec(token);
    if (match === null) return null;
    const [, id = '', secret = ''] = match;
    const record = await keys.findKey(id);
    if (record === undefined || record.revokedAt !== null) return null;
    const given = Buffer.from(hashOf(secret), 'hex');
    const stored = Buffer.from(record.secretHash, 'hex');
    if (given.length !== stored.length || !timingSafeEqual(given, stored)) return null;
    return { id: record.principal, roles: record.roles };
  };
}
