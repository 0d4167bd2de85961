import { createServer as createHttpServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import type { CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer } from '../../test/support.js';
import { jwtAuth } from './jwt-auth.js';

const issuer = 'https://id.parley.test';
const base = 'http://parley.test';

let jwksServer: Server;
let jwksUrl: string;
let signingKey: CryptoKey;
let strangerKey: CryptoKey;
let fetches = 0;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  signingKey = pair.privateKey;
  strangerKey = (await generateKeyPair('ES256')).privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const body = JSON.stringify({ keys: [jwk] });
  jwksServer = createHttpServer((_, response) => {
    fetches += 1;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(body);
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  const address: AddressInfo | string | null = jwksServer.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  jwksUrl = `http://127.0.0.1:${address.port}/.well-known/jwks.json`;
});

afterAll(async () => {
  await new Promise<void>((resolve, reject) =>
    jwksServer.close((error) => (error === undefined ? resolve() : reject(error))),
  );
});

type Signing = { kid?: string; key?: CryptoKey; audience?: string; issuer?: string };

function token(sub: string, signing: Signing = {}): Promise<string> {
  return new SignJWT({ roles: ['approver'] })
    .setProtectedHeader({ alg: 'ES256', kid: signing.kid ?? 'k1' })
    .setSubject(sub)
    .setIssuer(signing.issuer ?? issuer)
    .setAudience(signing.audience ?? 'parley')
    .setExpirationTime('5m')
    .sign(signing.key ?? signingKey);
}

const bearer = (value: string): Request =>
  new Request(`${base}/v1/sessions`, { headers: { authorization: `Bearer ${value}` } });

describe('jwtAuth with jwksUrl', () => {
  it('verifies against the key set served at the address, fetched once', async () => {
    const before = fetches;
    const authenticate = jwtAuth({ jwksUrl, issuer, audience: 'parley' });
    expect(await authenticate(bearer(await token('ada')))).toEqual({
      id: 'ada',
      roles: ['approver'],
    });
    expect(await authenticate(bearer(await token('bo')))).toEqual({
      id: 'bo',
      roles: ['approver'],
    });
    expect(fetches - before).toBe(1);
  });

  it('refuses a token signed by a key not in the set, an unknown kid, or another issuer or audience', async () => {
    const authenticate = jwtAuth({ jwksUrl: new URL(jwksUrl), issuer, audience: 'parley' });
    const refused = [
      await token('ada', { key: strangerKey }),
      await token('ada', { kid: 'k2', key: strangerKey }),
      await token('ada', { issuer: 'https://elsewhere.test' }),
      await token('ada', { audience: 'someone-else' }),
    ];
    for (const value of refused) expect(await authenticate(bearer(value))).toBeNull();
  });

  it('refuses every token when the key set cannot be fetched', async () => {
    const authenticate = jwtAuth({ jwksUrl: jwksUrl.replace(/:\d+\//, ':1/'), issuer });
    expect(await authenticate(bearer(await token('ada')))).toBeNull();
  });

  it('lets the server answer a JWKS-verified caller and 401 a stranger', async () => {
    const server = testServer(new Map(), {
      authenticate: jwtAuth({ jwksUrl, issuer, audience: 'parley' }),
    });
    const made = await server.fetch(
      new Request(`${base}/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await token('ada')}` },
      }),
    );
    expect(made.status).toBe(201);
    expect(await made.json()).toMatchObject({ owner: 'ada' });
    const stranger = await server.fetch(bearer(await token('ada', { key: strangerKey })));
    expect(stranger.status).toBe(401);
  });
});
