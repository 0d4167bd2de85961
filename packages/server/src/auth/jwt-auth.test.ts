import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { testServer } from '../../test/support.js';
import { jwtAuth, principalOfClaims } from './jwt-auth.js';

const secret = 'a-shared-secret-of-at-least-32-bytes!!';
const key = new TextEncoder().encode(secret);
const base = 'http://parley.test';

type Claims = { sub?: string; roles?: unknown; aud?: string; exp?: number; nbf?: number };

async function token(claims: Claims, signWith: Uint8Array = key): Promise<string> {
  const jwt = new SignJWT({ ...(claims.roles === undefined ? {} : { roles: claims.roles }) })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('https://id.parley.test')
    .setAudience(claims.aud ?? 'parley')
    .setIssuedAt()
    .setExpirationTime(claims.exp ?? '5m');
  if (claims.sub !== undefined) jwt.setSubject(claims.sub);
  if (claims.nbf !== undefined) jwt.setNotBefore(claims.nbf);
  return jwt.sign(signWith);
}

const bearer = (value: string): Request =>
  new Request(`${base}/v1/sessions`, { headers: { authorization: `Bearer ${value}` } });

const options = { key: secret, issuer: 'https://id.parley.test', audience: 'parley' };
const now = (): number => Math.floor(Date.now() / 1000);

describe('jwtAuth', () => {
  it('maps the subject to the id and the roles claim to the roles', async () => {
    const authenticate = jwtAuth(options);
    expect(await authenticate(bearer(await token({ sub: 'ada', roles: ['approver'] })))).toEqual({
      id: 'ada',
      roles: ['approver'],
    });
    expect(await authenticate(bearer(await token({ sub: 'bo' })))).toEqual({ id: 'bo', roles: [] });
    const grouped = await new SignJWT({ groups: 'approver auditor' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('cy')
      .setIssuer('https://id.parley.test')
      .setAudience('parley')
      .setExpirationTime('5m')
      .sign(key);
    const scoped = jwtAuth({ ...options, rolesClaim: 'groups' });
    expect(await scoped(bearer(grouped))).toEqual({
      id: 'cy',
      roles: ['approver', 'auditor'],
    });
  });

  it('refuses an expired, early, wrongly signed, wrong-audience or subject-less token', async () => {
    const authenticate = jwtAuth(options);
    const other = new TextEncoder().encode('another-secret-of-at-least-32-bytes!!!');
    const refused = [
      await token({ sub: 'ada', exp: now() - 60 }),
      await token({ sub: 'ada', nbf: now() + 600 }),
      await token({ sub: 'ada' }, other),
      await token({ sub: 'ada', aud: 'someone-else' }),
      await token({}),
      'not.a.jwt',
    ];
    for (const value of refused) expect(await authenticate(bearer(value))).toBeNull();
    expect(await authenticate(new Request(`${base}/v1/sessions`))).toBeNull();
    expect(principalOfClaims({ sub: '' })).toBeNull();
  });

  it('verifies against a public key', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const signed = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256' })
      .setSubject('ada')
      .setExpirationTime('5m')
      .sign(privateKey);
    expect(await jwtAuth({ key: publicKey })(bearer(signed))).toEqual({ id: 'ada', roles: [] });
    expect(await jwtAuth({ key: secret })(bearer(signed))).toBeNull();
  });

  it('gets 401 problems from the server for bad tokens, and nothing is stored', async () => {
    const server = testServer(new Map(), { authenticate: jwtAuth(options) });
    const other = new TextEncoder().encode('another-secret-of-at-least-32-bytes!!!');
    const bad = [
      await token({ sub: 'ada', exp: now() - 60 }),
      await token({ sub: 'ada' }, other),
      await token({ sub: 'ada', aud: 'someone-else' }),
    ];
    for (const value of bad) {
      const response = await server.fetch(
        new Request(`${base}/v1/sessions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${value}` },
        }),
      );
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(await response.json()).toMatchObject({ status: 401, code: 'unauthenticated' });
    }
    const good = await token({ sub: 'ada' });
    const listed = await server.fetch(bearer(good));
    expect(listed.status).toBe(200);
    expect(await listed.json()).toMatchObject({ sessions: [] });
    const made = await server.fetch(
      new Request(`${base}/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${good}` },
      }),
    );
    expect(made.status).toBe(201);
    expect(await made.json()).toMatchObject({ owner: 'ada' });
  });

  it('requires exp unless told not to, and caps the lifetime it accepts', async () => {
    const claims = (exp?: number, iat?: number) => {
      const jwt = new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('ada')
        .setIssuer('https://id.parley.test')
        .setAudience('parley');
      if (iat !== undefined) jwt.setIssuedAt(iat);
      if (exp !== undefined) jwt.setExpirationTime(exp);
      return jwt.sign(key);
    };
    const forever = await claims();
    expect(await jwtAuth(options)(bearer(forever))).toBeNull();
    expect(await jwtAuth({ ...options, requireExp: false })(bearer(forever))).toEqual({
      id: 'ada',
      roles: [],
    });
    // A day by default: a token living a year is refused, from its iat or, without one, from now.
    const year = 365 * 86_400;
    expect(await jwtAuth(options)(bearer(await claims(now() + year, now())))).toBeNull();
    expect(await jwtAuth(options)(bearer(await claims(now() + year)))).toBeNull();
    expect(await jwtAuth(options)(bearer(await claims(now() + 3_600, now())))).not.toBeNull();
    const hour = jwtAuth({ ...options, maxTokenAge: 3_600 });
    expect(await hour(bearer(await claims(now() + 3_601, now())))).toBeNull();
    expect(await hour(bearer(await claims(now() + 3_600, now())))).toEqual({
      id: 'ada',
      roles: [],
    });
    expect(() => jwtAuth({ ...options, maxTokenAge: 0 })).toThrow(RangeError);
  });
});
