import { createSecretKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { JWTPayload, JWTVerifyOptions, JWTVerifyResult } from 'jose';
import { bearerToken } from './api-key-auth.js';
import type { Authenticate, Principal } from './principal.js';

/**
 * Options of `jwtAuth`. What signatures are checked against: either `key`,
 * a shared secret (a string or bytes, for HS256/384/512) or a public key
 * (`KeyObject`, e.g. from `createPublicKey`), or `jwksUrl`, the address of
 * a JSON Web Key Set whose keys are fetched, cached and picked by the
 * token's `kid` (jose's `createRemoteJWKSet`). `algorithms`: the accepted
 * `alg` values (default: every one `jose` supports for that kind of key).
 * `issuer` and `audience`: when given, the token's `iss` and `aud` must
 * match. `rolesClaim`: the claim that carries the principal's roles, an
 * array of strings or one space-separated string (default `roles`).
 * `clockTolerance`: seconds of leeway on `exp` and `nbf` (default 0).
 * `requireExp`: refuse a token without `exp` (default true: a token that
 * never expires cannot be taken back; `false` for an issuer that leaves it
 * out). `maxTokenAge`: the longest lifetime accepted, in seconds (default
 * 86 400, a day; `Infinity` for none): a token whose `exp` lies further
 * than that after its `iat`, or after now without an `iat`, is refused.
 */
export type JwtAuthOptions = JwtKeySource & {
  algorithms?: string[];
  issuer?: string | string[];
  audience?: string | string[];
  rolesClaim?: string;
  clockTolerance?: number;
  requireExp?: boolean;
  maxTokenAge?: number;
};

/** The longest token lifetime `jwtAuth` accepts by default: a day, in seconds. */
const DEFAULT_MAX_TOKEN_AGE = 86_400;

/**
 * Whether a verified token lives no longer than `maxTokenAge` seconds:
 * from its `iat` (or from `now`, in seconds, without one) to its `exp`.
 * A token without `exp` (accepted only with `requireExp: false`) passes.
 */
function withinLifetime(payload: JWTPayload, maxTokenAge: number, now: number): boolean {
  if (payload.exp === undefined) return true;
  return payload.exp - (payload.iat ?? now) <= maxTokenAge;
}

/** Where `jwtAuth` gets its verification key: one key, or a remote JWKS. */
export type JwtKeySource =
  | { key: string | Uint8Array | KeyObject; jwksUrl?: never }
  | { jwksUrl: string | URL; key?: never };

function keyOf(key: string | Uint8Array | KeyObject): KeyObject {
  if (typeof key === 'string') return createSecretKey(Buffer.from(key, 'utf8'));
  if (key instanceof Uint8Array) return createSecretKey(key);
  return key;
}

/** The roles a claim carries: an array of strings, or a space-separated string. */
function rolesOf(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter((role) => role !== '');
  if (Array.isArray(value)) {
    return value.filter((role): role is string => typeof role === 'string');
  }
  return [];
}

/**
 * The principal a verified token names: `sub` is the id, the roles claim
 * the roles; `null` without a `sub`.
 */
export function principalOfClaims(payload: JWTPayload, rolesClaim = 'roles'): Principal | null {
  if (typeof payload.sub !== 'string' || payload.sub === '') return null;
  return { id: payload.sub, roles: rolesOf(payload[rolesClaim]) };
}

/** A verifier of tokens against the configured key or key set. */
function verifierOf(
  source: JwtKeySource,
  verify: JWTVerifyOptions,
): (token: string) => Promise<JWTVerifyResult> {
  if (source.jwksUrl !== undefined) {
    const keySet = createRemoteJWKSet(new URL(source.jwksUrl));
    return (token) => jwtVerify(token, keySet, verify);
  }
  const key = keyOf(source.key);
  return (token) => jwtVerify(token, key, verify);
}

/**
 * An authenticator over JSON Web Tokens in `Authorization: Bearer <token>`:
 * the signature must verify against `options.key` or a key of the set at
 * `options.jwksUrl`, `exp` must be there (unless `requireExp: false`) and
 * no further ahead than `maxTokenAge`, `exp` and `nbf` must hold, and
 * `iss` and `aud` must match when configured. The subject is the
 * principal's id; the roles claim (e.g. `["approver"]`) its roles. Any
 * failure is `null`, which the server answers with 401.
 *
 * @example
 * const server = createServer({
 *   ...,
 *   authenticate: jwtAuth({ key: process.env.JWT_SECRET ?? '', issuer: 'https://id.example', audience: 'parley' }),
 * });
 * // or, with the identity provider's published keys:
 * jwtAuth({ jwksUrl: 'https://id.example/.well-known/jwks.json', issuer: 'https://id.example', audience: 'parley' });
 */
export function jwtAuth(options: JwtAuthOptions): Authenticate {
  const verify: JWTVerifyOptions = {
    ...(options.algorithms === undefined ? {} : { algorithms: options.algorithms }),
    ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
    ...(options.audience === undefined ? {} : { audience: options.audience }),
    ...(options.clockTolerance === undefined ? {} : { clockTolerance: options.clockTolerance }),
    ...(options.requireExp === false ? {} : { requiredClaims: ['exp'] }),
  };
  const maxTokenAge = options.maxTokenAge ?? DEFAULT_MAX_TOKEN_AGE;
  if (!(maxTokenAge > 0)) throw new RangeError('jwtAuth: maxTokenAge must be over 0 seconds.');
  const verifyToken = verifierOf(options, verify);
  return async (request: Request): Promise<Principal | null> => {
    const token = bearerToken(request);
    if (token === undefined) return null;
    try {
      const { payload } = await verifyToken(token);
      if (!withinLifetime(payload, maxTokenAge, Math.floor(Date.now() / 1000))) return null;
      return principalOfClaims(payload, options.rolesClaim);
    } catch {
      return null;
    }
  };
}
