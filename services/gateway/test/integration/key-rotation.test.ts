import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@gfts/platform';
import { client, eventually, listen, TEST_INTERNAL_SECRET, unsignedToken, type Call, testLogLevel } from '@gfts/testkit';
import { createSigner } from 'fast-jwt';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildGateway } from '../../src/app.ts';
import { readGatewayConfig } from '../../src/config.ts';

/** A signing key of the identity provider, generated for the test. */
interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: KeyObject;
  publicKey: KeyObject;
}

function signingKey(kid: string, alg: 'RS256' | 'ES256'): SigningKey {
  const pair = alg === 'RS256' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { kid, alg, ...pair };
}

function jwks(...keys: SigningKey[]): { keys: unknown[] } {
  return { keys: keys.map((key) => ({ ...key.publicKey.export({ format: 'jwk' }), kid: key.kid, alg: key.alg, use: 'sig' })) };
}

function claims(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { sub: randomUUID(), app: randomUUID(), exp: Math.floor(Date.now() / 1000) + 300, ...extra };
}

/** A token as the identity provider signs it: `kid` in the header unless told otherwise. */
function tokenOf(key: SigningKey, opts: { kid?: string | null; payload?: Record<string, unknown> } = {}): string {
  const kid = opts.kid === undefined ? key.kid : opts.kid;
  const sign = createSigner({ key: key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), algorithm: key.alg, ...(kid !== null ? { kid } : {}) });
  return sign(opts.payload ?? claims());
}

/** The identity provider's JWKS endpoint: what it serves can change, fail or hang. */
class JwksEndpoint {
  document: unknown = { keys: [] };
  mode: 'serve' | 'fail' | 'hang' | 'endless' | 'bom' = 'serve';
  hits = 0;
  /** bytes written by 'endless' answers */
  streamed = 0;
  private readonly server: Server = createServer((request, response) => {
    this.hits += 1;
    if (this.mode === 'hang') return;
    if (this.mode === 'endless') {
      // chunked, no length: as much as the reader takes, until it hangs up
      response.writeHead(200, { 'content-type': 'application/jwk-set+json' });
      const chunk = Buffer.alloc(64 * 1024, ' ');
      const pump = () => {
        while (!response.destroyed && this.mode === 'endless') {
          this.streamed += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      pump();
      return;
    }
    if (this.mode === 'fail') {
      response.writeHead(503).end('down for maintenance');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end((this.mode === 'bom' ? '\uFEFF' : '') + JSON.stringify(this.document));
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/.well-known/jwks.json`;
  }

  /** Resolves once `count` more loads have reached the endpoint. */
  async loads(count: number): Promise<void> {
    const target = this.hits + count;
    await eventually(async () => this.hits >= target);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

async function echoUpstream(): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify();
  app.get('/readyz', async () => ({ status: 'ok' }));
  app.all('/*', async () => ({ ok: true }));
  return { app, url: await listen(app) };
}

describe('gateway key rotation (JWKS)', () => {
  const oldKey = signingKey('2026-01-rsa', 'RS256');
  const newKey = signingKey('2026-04-ec', 'ES256');
  const newerKey = signingKey('2026-07-rsa', 'RS256');
  const endpoint = new JwksEndpoint();
  let jwksUrl: string;
  let upstream: { app: FastifyInstance; url: string };
  const gateways: FastifyInstance[] = [];

  async function gatewayWith(env: Record<string, string>): Promise<Call> {
    const gateway = await buildGateway(
      readGatewayConfig({ FRIENDSHIP_URL: upstream.url, TASKS_URL: upstream.url, INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: testLogLevel(), ...env }),
    );
    gateways.push(gateway);
    return client(await listen(gateway));
  }

  const statusOf = async (api: Call, token: string) => (await api('GET', '/api/v1/tasks', { headers: { authorization: `Bearer ${token}` } })).status;

  beforeAll(async () => {
    upstream = await echoUpstream();
    jwksUrl = await endpoint.start();
  });
  afterEach(async () => {
    await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
    endpoint.mode = 'serve';
  });
  afterAll(async () => {
    await endpoint.stop();
    await upstream?.app.close();
  });

  it('accepts tokens of the old and the new key during a rotation (RS256 and ES256)', async () => {
    endpoint.document = jwks(oldKey, newKey);
    const api = await gatewayWith({ JWT_JWKS_URL: jwksUrl });
    expect(await statusOf(api, tokenOf(oldKey))).toBe(200);
    expect(await statusOf(api, tokenOf(newKey))).toBe(200);
  });

  it('refuses an unknown kid, a token without kid among several keys, and a kid pointing at another key', async () => {
    endpoint.document = jwks(oldKey, newKey);
    const api = await gatewayWith({ JWT_JWKS_URL: jwksUrl });
    const unknown = await api('GET', '/api/v1/tasks', { headers: { authorization: `Bearer ${tokenOf(newerKey)}` } });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(unknown.body).toMatchObject({ status: 401, code: 'UNAUTHORIZED', title: 'Unauthorized', detail: 'unknown signing key (kid)' });
    expect(await statusOf(api, tokenOf(oldKey, { kid: null }))).toBe(401);
    // signed by a key outside the set, claiming to be the old one: the old key's signature check fails
    expect(await statusOf(api, tokenOf(newerKey, { kid: oldKey.kid }))).toBe(401);
    // signed by the new (EC) key under the old (RSA) key's kid: ES256 is not the old key's algorithm
    expect(await statusOf(api, tokenOf(newKey, { kid: oldKey.kid }))).toBe(401);
  });

  it('accepts a token without kid when the set has exactly one key', async () => {
    endpoint.document = jwks(newKey);
    const api = await gatewayWith({ JWT_JWKS_URL: jwksUrl });
    expect(await statusOf(api, tokenOf(newKey, { kid: null }))).toBe(200);
  });

  it('keeps refusing alg none, algorithm confusion and tokens without exp or with a wrong iss/aud', async () => {
    endpoint.document = jwks(oldKey, newKey);
    const api = await gatewayWith({ JWT_JWKS_URL: jwksUrl, JWT_ISSUER: 'https://id.example', JWT_AUDIENCE: 'gfts' });
    const good = claims({ iss: 'https://id.example', aud: 'gfts' });
    expect(await statusOf(api, tokenOf(oldKey, { payload: good }))).toBe(200);

    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const none = `${b64({ alg: 'none', typ: 'JWT', kid: oldKey.kid })}.${b64(good)}.`;
    expect(await statusOf(api, none)).toBe(401);
    expect(await statusOf(api, unsignedToken(good))).toBe(401);

    const publicPem = oldKey.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const confused = createSigner({ key: publicPem, algorithm: 'HS256', kid: oldKey.kid })(good);
    expect(await statusOf(api, confused)).toBe(401);

    const { exp: _exp, ...noExp } = good;
    expect(await statusOf(api, tokenOf(oldKey, { payload: noExp }))).toBe(401);
    expect(await statusOf(api, tokenOf(oldKey, { payload: { ...good, iss: 'https://evil.example' } }))).toBe(401);
    expect(await statusOf(api, tokenOf(oldKey, { payload: { ...good, aud: 'other' } }))).toBe(401);
  });

  it('follows a rotation of the served key set: after a refresh the added key passes and the removed one fails', async () => {
    endpoint.document = jwks(oldKey, newKey);
    const api = await gatewayWith({ JWT_JWKS_URL: jwksUrl, JWT_JWKS_REFRESH_MS: '200' });
    expect(await statusOf(api, tokenOf(newerKey))).toBe(401);

    endpoint.document = jwks(newKey, newerKey);
    await eventually(async () => (await statusOf(api, tokenOf(newerKey))) === 200);
    expect(await statusOf(api, tokenOf(oldKey))).toBe(401);
    expect(await statusOf(api, tokenOf(newKey))).toBe(200);
  });

  it('refuses a token it has verified (and cached) before, once its key leaves the set', async () => {
    endpoint.document = jwks(oldKey, newKey);
    const api = await gatewayWith({ JWT_JWKS_URL: jwksUrl, JWT_JWKS_REFRESH_MS: '200' });
    const token = tokenOf(oldKey);
    expect(await statusOf(api, token)).toBe(200);
    expect(await statusOf(api, token)).toBe(200);
    endpoint.document = jwks(newKey);
    await eventually(async () => (await statusOf(api, token)) === 401);
    const refused = await api('GET', '/api/v1/tasks', { headers: { authorization: `Bearer ${token}` } });
    expect(refused.body).toMatchObject({ status: 401, detail: 'unknown signing key (kid)' });
    expect(await statusOf(api, tokenOf(newKey))).toBe(200);
  });

  it('refuses a token it has verified (and cached) before, once the token has expired', async () => {
    endpoint.document = jwks(oldKey);
    // no clock leeway: what is tested is that the cache does not outlive exp
    const api = await gatewayWith({ JWT_JWKS_URL: jwksUrl, JWT_CLOCK_TOLERANCE_MS: '0' });
    // 5 s: both 200s must come before exp on a busy machine; the eventually bounds the refusal
    const token = tokenOf(oldKey, { payload: claims({ exp: Math.floor(Date.now() / 1000) + 5 }) });
    expect(await statusOf(api, token)).toBe(200);
    expect(await statusOf(api, token)).toBe(200);
    await eventually(async () => (await statusOf(api, token)) === 401);
    const refused = await api('GET', '/api/v1/tasks', { headers: { authorization: `Bearer ${token}` } });
    expect(refused.body).toMatchObject({ status: 401, detail: 'token expired' });
  });

  it('keeps the last good key set while the JWKS URL fails, times out or serves a broken set', async () => {
    endpoint.document = jwks(oldKey);
    const api = await gatewayWith({ JWT_JWKS_URL: jwksUrl, JWT_JWKS_REFRESH_MS: '100', JWT_JWKS_TIMEOUT_MS: '1000' });
    const token = tokenOf(oldKey);

    endpoint.mode = 'fail';
    await endpoint.loads(2);
    expect(await statusOf(api, token)).toBe(200);

    // A hanging fetch neither blocks requests nor stops later refreshes (its timeout ends it).
    endpoint.mode = 'hang';
    await endpoint.loads(1);
    expect(await statusOf(api, token)).toBe(200);
    await endpoint.loads(1);

    endpoint.mode = 'serve';
    endpoint.document = { keys: [{ kty: 'oct', k: 'c2VjcmV0', kid: 'h' }] };
    await endpoint.loads(2);
    expect(await statusOf(api, token)).toBe(200);

    // An answer without an end is read up to the bound (1 MiB), not until the timeout.
    endpoint.streamed = 0;
    endpoint.mode = 'endless';
    await endpoint.loads(2);
    endpoint.mode = 'serve';
    expect(await statusOf(api, token)).toBe(200);
    expect(endpoint.streamed).toBeLessThan(32 * 1024 * 1024);

    // And a good set after the outage is taken, a byte order mark before it or not.
    endpoint.mode = 'bom';
    endpoint.document = jwks(newKey);
    await eventually(async () => (await statusOf(api, tokenOf(newKey))) === 200);
    expect(await statusOf(api, token)).toBe(401);
  });

  it('reads the key set from a file and follows its replacement', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gfts-jwks-'));
    try {
      const file = join(dir, 'jwks.json');
      // Replaced by rename, as a Kubernetes volume update is: a reader never sees half a file.
      const publish = (document: unknown) => {
        writeFileSync(`${file}.next`, JSON.stringify(document));
        renameSync(`${file}.next`, file);
      };
      publish(jwks(oldKey, newKey));
      const api = await gatewayWith({ JWT_JWKS_FILE: file, JWT_JWKS_REFRESH_MS: '100' });
      expect(await statusOf(api, tokenOf(oldKey))).toBe(200);
      expect(await statusOf(api, tokenOf(newKey))).toBe(200);

      publish(jwks(newKey, newerKey));
      await eventually(async () => (await statusOf(api, tokenOf(newerKey))) === 200);
      expect(await statusOf(api, tokenOf(oldKey))).toBe(401);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('uses JWT_PUBLIC_KEY for tokens without kid and the key set for tokens with one', async () => {
    const pemKey = signingKey('unused', 'RS256');
    endpoint.document = jwks(oldKey, newKey);
    const api = await gatewayWith({ JWT_JWKS_URL: jwksUrl, JWT_PUBLIC_KEY: pemKey.publicKey.export({ type: 'spki', format: 'pem' }).toString() });
    expect(await statusOf(api, tokenOf(pemKey, { kid: null }))).toBe(200);
    expect(await statusOf(api, tokenOf(newKey))).toBe(200);
    expect(await statusOf(api, tokenOf(pemKey, { kid: 'not-in-the-set' }))).toBe(401);
  });

  it('does not start without a usable key set, naming the setting', async () => {
    endpoint.mode = 'fail';
    const down = buildGateway(readGatewayConfig({ FRIENDSHIP_URL: upstream.url, TASKS_URL: upstream.url, INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: testLogLevel(), JWT_JWKS_URL: jwksUrl }));
    await expect(down).rejects.toThrow(ConfigError);
    await expect(down).rejects.toThrow(/JWT_JWKS_URL: no usable key set at start \(HTTP 503\)/);

    const missing = buildGateway(readGatewayConfig({ FRIENDSHIP_URL: upstream.url, TASKS_URL: upstream.url, INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: testLogLevel(), JWT_JWKS_FILE: join(tmpdir(), `absent-${randomUUID()}.json`) }));
    await expect(missing).rejects.toThrow(/JWT_JWKS_FILE: no usable key set at start \(ENOENT/);
  });
});
