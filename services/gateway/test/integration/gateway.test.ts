import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { connect, createServer } from 'node:net';
import { createIdentityVerifier } from '@gfts/platform';
import { client, eventually, listen, mintToken, TEST_INTERNAL_SECRET, TEST_JWT_SECRET, unsignedToken, type Call, testLogLevel } from '@gfts/testkit';
import { createSigner } from 'fast-jwt';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGateway } from '../../src/app.ts';
import { readGatewayConfig } from '../../src/config.ts';

interface Echo {
  upstream: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** A real HTTP upstream that answers with what it received, standing in for a service. */
async function echoUpstream(name: string): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify();
  app.get('/readyz', async () => ({ status: 'ok' }));
  app.all('/*', async (request) => ({ upstream: name, method: request.method, url: request.url, headers: request.headers, body: request.body ?? null }));
  return { app, url: await listen(app) };
}

/** A GET carrying a body, which fetch refuses to send; Fastify routes it without reading the body. */
function getWithBody(url: URL, headers: Record<string, string>, body: string): Promise<{ status: number; body: Echo }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'GET', headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as Echo }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** An upstream that holds every request until `release`; `received()`: how many came. */
async function holdingUpstream() {
  let count = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const holding = Fastify();
  holding.get('/*', async () => {
    count++;
    await released;
    return { ok: true };
  });
  return { holding, url: await listen(holding), release, received: () => count };
}

async function gatewayWith(env: Record<string, string>, friendshipUrl: string, tasksUrl: string) {
  const gateway = await buildGateway(
    readGatewayConfig({ FRIENDSHIP_URL: friendshipUrl, TASKS_URL: tasksUrl, INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: testLogLevel(), ...env }),
  );
  const url = await listen(gateway);
  return { gateway, gatewayUrl: url, api: client(url) };
}

describe('gateway (HS256)', () => {
  const app = randomUUID();
  const sub = randomUUID();
  const token = mintToken({ sub, app, name: 'Ann', picture: 'https://cdn.example/ann.png', roles: ['admin'] });
  const auth = { authorization: `Bearer ${token}` };
  let friendship: { app: FastifyInstance; url: string };
  let tasks: { app: FastifyInstance; url: string };
  let gateway: FastifyInstance;
  let gatewayUrl: string;
  let api: Call;

  beforeAll(async () => {
    friendship = await echoUpstream('friendship');
    tasks = await echoUpstream('tasks');
    ({ gateway, gatewayUrl, api } = await gatewayWith({ JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_MAX: '1000', BODY_LIMIT_BYTES: '1024' }, friendship.url, tasks.url));
  });
  afterAll(async () => {
    await gateway?.close();
    await friendship?.app.close();
    await tasks?.app.close();
  });

  it('routes /api/v1/friendship to the friendship service with the path unchanged', async () => {
    const root = await api<Echo>('GET', '/api/v1/friendship', { headers: auth });
    expect(root.status).toBe(200);
    expect(root.body).toMatchObject({ upstream: 'friendship', url: '/api/v1/friendship' });
    const nested = await api<Echo>('GET', '/api/v1/friendship/requests/incoming?limit=2', { headers: auth });
    expect(nested.body).toMatchObject({ upstream: 'friendship', url: '/api/v1/friendship/requests/incoming?limit=2' });
    // a gamer's own data: not kept in a browser's cache
    expect(nested.headers.get('cache-control')).toBe('no-store');
  });

  it('routes every other /api/v1 path to the tasks service', async () => {
    for (const path of ['/api/v1/tasks', `/api/v1/${app}/tasks`, '/api/v1/stats', '/api/v1/inventory', '/api/v1/friendshipx']) {
      const response = await api<Echo>('GET', path, { headers: auth });
      expect(response.body, path).toMatchObject({ upstream: 'tasks', url: path });
    }
  });

  it('passes the verified identity as an assertion only the internal secret can sign', async () => {
    const response = await api<Echo>('GET', '/api/v1/friendship', { headers: auth });
    const identity = createIdentityVerifier(TEST_INTERNAL_SECRET)(response.body.headers['x-gfts-identity']!);
    expect(identity).toEqual({ gamerId: sub, applicationId: app, displayName: 'Ann', avatar: 'https://cdn.example/ann.png', roles: ['admin'] });
    expect(() => createIdentityVerifier('another-secret-another-secret-0123')(response.body.headers['x-gfts-identity']!)).toThrow();
  });

  it('lets in a token with a long name, a long picture and namespaced roles: the name cut, the rest ignored', async () => {
    const odd = mintToken({ sub, app, name: 'N'.repeat(70), picture: `https://cdn.example/${'p'.repeat(2100)}`, roles: ['https://idp.example/roles/admin', 'admin'] });
    const response = await api<Echo>('GET', '/api/v1/friendship', { headers: { authorization: `Bearer ${odd}` } });
    expect(response.status).toBe(200);
    const identity = createIdentityVerifier(TEST_INTERNAL_SECRET)(response.body.headers['x-gfts-identity']!);
    expect(identity).toEqual({ gamerId: sub, applicationId: app, displayName: 'N'.repeat(64), roles: ['admin'] });
  });

  it('verifies a token once and sends its identity assertion again for later requests of that token', async () => {
    const first = await api<Echo>('GET', '/api/v1/friendship', { headers: auth });
    const second = await api<Echo>('GET', '/api/v1/tasks', { headers: auth });
    expect(second.body.headers['x-gfts-identity']).toBe(first.body.headers['x-gfts-identity']);
    // another token of the same gamer is verified on its own, and asserted on its own
    const other = mintToken({ sub, app, name: 'Ann', picture: 'https://cdn.example/ann.png', roles: [], expiresIn: 600 });
    const third = await api<Echo>('GET', '/api/v1/friendship', { headers: { authorization: `Bearer ${other}` } });
    expect(third.body.headers['x-gfts-identity']).not.toBe(first.body.headers['x-gfts-identity']);
    expect(createIdentityVerifier(TEST_INTERNAL_SECRET)(third.body.headers['x-gfts-identity']!).roles).toEqual([]);
    // a tampered copy of a verified token is not taken from the cache
    expect((await api('GET', '/api/v1/friendship', { headers: { authorization: `Bearer ${token}x` } })).status).toBe(401);
  });

  it('ignores identity headers sent by the caller and keeps the token at the edge', async () => {
    const forged = {
      ...auth,
      'x-gfts-identity': 'forged',
      'x-user-id': randomUUID(),
      'x-gamer-id': randomUUID(),
      'x-application-id': randomUUID(),
      'x-forwarded-user': 'admin',
    };
    const response = await api<Echo>('POST', '/api/v1/friendship', { headers: forged, body: { target: randomUUID() } });
    const headers = response.body.headers;
    expect(headers['x-user-id']).toBeUndefined();
    expect(headers['x-gamer-id']).toBeUndefined();
    expect(headers['x-application-id']).toBeUndefined();
    expect(headers['x-forwarded-user']).toBeUndefined();
    expect(headers['authorization']).toBeUndefined();
    expect(createIdentityVerifier(TEST_INTERNAL_SECRET)(headers['x-gfts-identity']!).gamerId).toBe(sub);
  });

  it('carries one request id from the caller to the service and back', async () => {
    const response = await api<Echo>('GET', '/api/v1/tasks', { headers: { ...auth, 'x-request-id': 'client-req-42' } });
    expect(response.body.headers['x-request-id']).toBe('client-req-42');
    expect(response.headers.get('x-request-id')).toBe('client-req-42');
    const generated = await api<Echo>('GET', '/api/v1/tasks', { headers: { ...auth, 'x-request-id': 'bad id <script>' } });
    expect(generated.body.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('forwards JSON bodies', async () => {
    const response = await api<Echo>('POST', '/api/v1/friendship/block', { headers: auth, body: { target: 'abc' } });
    expect(response.body.body).toEqual({ target: 'abc' });
  });

  // A regression (a length announced, no bytes sent) is a 504 from the upstream timeout.
  describe('forwards falsy JSON bodies as sent, with the length of what it sends', () => {
    for (const raw of ['null', 'false', '0', '""', '[]']) {
      it(raw, async () => {
        const response = await api<Echo>('POST', '/api/v1/tasks/assign', { headers: { ...auth, 'content-type': 'application/json' }, rawBody: raw });
        expect(response.status).toBe(200);
        expect(response.body.body).toEqual(JSON.parse(raw));
        expect(response.body.headers['content-length']).toBe(String(Buffer.byteLength(raw)));
      });
    }
  });

  it('forwards a chunked body with a length of its own, not next to the chunked framing', async () => {
    const chunks = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"target":'));
        controller.enqueue(new TextEncoder().encode('"abc"}'));
        controller.close();
      },
    });
    const response = await fetch(new URL('/api/v1/friendship', gatewayUrl), {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: chunks, duplex: 'half',
    } as RequestInit);
    const echo = (await response.json()) as Echo;
    expect(response.status).toBe(200);
    expect(echo.body).toEqual({ target: 'abc' });
    expect(echo.headers['transfer-encoding']).toBeUndefined();
  });

  it('announces no body upstream for one it did not read (a GET with a body)', async () => {
    const response = await getWithBody(new URL('/api/v1/tasks', gatewayUrl), auth, '{"ignored":true}');
    expect(response.status).toBe(200);
    // the client's length is not forwarded: none at all (undici, for a GET without body) or 0
    expect([undefined, '0']).toContain(response.body.headers['content-length']);
    expect(response.body.headers['transfer-encoding']).toBeUndefined();
    expect(response.body.body).toBeNull();
  });

  describe('refuses bad tokens with 401 problem+json', () => {
    // the detail says what to fix, without naming a key or an accepted value
    const cases: Array<[string, Record<string, string>, string]> = [
      ['no token', {}, 'missing bearer token'],
      ['not a bearer scheme', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }, 'missing bearer token'],
      ['garbage', { authorization: 'Bearer not.a.jwt' }, 'invalid token: the token header is not a valid base64url serialized JSON'],
      ['alg none', { authorization: `Bearer ${unsignedToken({ sub, app, exp: Math.floor(Date.now() / 1000) + 60 })}` }, 'algorithm "none" is not accepted for this key'],
      // past JWT_CLOCK_TOLERANCE_MS (30 s)
      ['expired', { authorization: `Bearer ${mintToken({ sub, app, expiresIn: -40 })}` }, 'token expired'],
      ['bad signature', { authorization: `Bearer ${mintToken({ sub, app, secret: 'another-secret-another-secret-0123456789' })}` }, 'invalid token: the token signature is invalid'],
      ['no exp', { authorization: `Bearer ${mintToken({ sub, app, omitExp: true })}` }, 'invalid token: the exp claim is required'],
      ['sub not a uuid', { authorization: `Bearer ${mintToken({ sub: 'admin', app })}` }, 'token claims sub and app must be UUIDs'],
      ['no app claim', { authorization: `Bearer ${createSigner({ key: TEST_JWT_SECRET })({ sub, exp: Math.floor(Date.now() / 1000) + 60 })}` }, 'invalid token: the app claim is required'],
    ];
    for (const [name, headers, detail] of cases) {
      it(name, async () => {
        const response = await api('GET', '/api/v1/friendship', { headers });
        expect(response.status).toBe(401);
        expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(response.body).toMatchObject({ status: 401, code: 'UNAUTHORIZED', type: expect.any(String), title: 'Unauthorized', detail });
      });
    }
  });

  it('allows JWT_CLOCK_TOLERANCE_MS of clock skew on nbf and exp (a provider whose clock is ahead)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const signed = (claims: Record<string, number>) => `Bearer ${createSigner({ key: TEST_JWT_SECRET })({ sub: randomUUID(), app, ...claims })}`;
    // signed "now" by a clock 2 s ahead of the gateway's
    const early = signed({ iat: now + 2, nbf: now + 2, exp: now + 3600 });
    expect((await api('GET', '/api/v1/tasks', { headers: { authorization: early } })).status).toBe(200);
    expect((await api('GET', '/api/v1/tasks', { headers: { authorization: signed({ exp: now - 10 }) } })).status).toBe(200);
    const strict = await gatewayWith({ JWT_SECRET: TEST_JWT_SECRET, JWT_CLOCK_TOLERANCE_MS: '0' }, friendship.url, tasks.url);
    try {
      expect((await strict.api('GET', '/api/v1/tasks', { headers: { authorization: early } })).status).toBe(401);
    } finally {
      await strict.gateway.close();
    }
  });

  // The router decodes the path before it matches: these reach the /api routes.
  it('asks a token of every path the router takes for an API path, however it is spelled', async () => {
    for (const path of ['/%61pi/v1/friendship', '/%61%70%69/v1/tasks', '/api%2fv1/tasks', `/%61pi/v1/${app}/tasks`]) {
      const anonymous = await api<Echo>('GET', path);
      if (anonymous.status === 404) continue; // not routed at all: nothing reached a service
      expect(anonymous.status, path).toBe(401);
      expect(anonymous.body, path).toMatchObject({ code: 'UNAUTHORIZED' });
    }
    const routed = await api<Echo>('GET', '/%61pi/v1/friendship');
    expect(routed.status).toBe(401);
    // with a token the call is the gamer's, counted against their budget like any other
    const counted = await api<Echo>('GET', '/%61pi/v1/friendship', { headers: auth });
    expect(counted.status).toBe(200);
    expect(counted.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(createIdentityVerifier(TEST_INTERNAL_SECRET)(counted.body.headers['x-gfts-identity']!).gamerId).toBe(sub);
  });

  it('answers 413 for a body over the limit, before the service sees it', async () => {
    const response = await api('POST', '/api/v1/friendship', { headers: auth, body: { target: 'x'.repeat(2000) } });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('takes a whole composite on the catalog\'s writes (their own limit), forwarding the path as it came', async () => {
    const composite = { name: 'Season', children: Array.from({ length: 20 }, (_, i) => ({ name: `Step ${i}`, description: 'd'.repeat(2_000) })) };
    const created = await api('POST', `/api/v1/${app}/tasks`, { headers: auth, body: composite });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ upstream: 'tasks', method: 'POST', url: `/api/v1/${app}/tasks`, body: composite });
    const patched = await api('PATCH', `/api/v1/${app}/tasks/${randomUUID()}?x=1`, { headers: auth, body: { description: 'd'.repeat(2_000) } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ upstream: 'tasks', method: 'PATCH' });
    // an encoded segment is not decoded on the way: the service sees what the client sent,
    // and a segment that would climb out of the path is refused, not resolved
    // (a small body: the path names no application of the caller's, so a large one is refused)
    const odd = await api('POST', '/api/v1/a%20b/tasks', { headers: auth, body: { name: 'odd' } });
    expect(odd.body).toMatchObject({ upstream: 'tasks', url: '/api/v1/a%20b/tasks' });
    const climbing = await api('POST', '/api/v1/%2e%2e%2fmetrics/tasks', { headers: auth, body: { name: 'climbing' } });
    expect(climbing.status).toBe(400);
    // a "." segment, which the proxy's URL parsing would remove on the way out: the path matched
    // the tasks catch-all and reached tasks as a friendship path (until 2026-11-28)
    // (sent as is with node:http: fetch's URL parsing removes such segments itself)
    const rawGet = (path: string) => new Promise<{ status: number; body: string }>((resolve, reject) => {
      const outgoing = request(new URL(gatewayUrl), { method: 'GET', path, headers: auth }, (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      outgoing.on('error', reject).end();
    });
    for (const path of ['/api/v1/./friendship/search', '/api/v1/%2e/friendship/search', '/api/v1/%2E%2E/friendship', '/api/v1/friendship/./search?x=./', '/api/v1/.\\friendship/search', '/api/v1/tasks\\..\\friendship/search']) {
      const dotted = await rawGet(path);
      expect(dotted.status, path).toBe(400);
      expect(JSON.parse(dotted.body), path).toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    // a backslash: the router takes it for a character, the proxy for a separator
    for (const path of ['/api/v1/friendship\\search', '/api/v1/notifications\\live']) {
      const slashed = await rawGet(path);
      expect(slashed.status, path).toBe(400);
      expect(JSON.parse(slashed.body), path).toMatchObject({ code: 'VALIDATION_FAILED', detail: 'the path has a backslash' });
    }
    // a dot inside a segment, or in the query, is no dot segment
    for (const path of ['/api/v1/friendship/search?displayName=a.b', '/api/v1/friendship/a.b', '/api/v1/x..y', '/console/assets/index-abc.js']) {
      expect((await rawGet(path)).body, path).not.toContain('".." segment');
    }
    // other routes keep BODY_LIMIT_BYTES
    const other = await api('POST', '/api/v1/tasks/assign', { headers: auth, body: { family: 'x'.repeat(2_000) } });
    expect(other.status).toBe(413);
    const below = await api('POST', `/api/v1/${app}/tasks/${randomUUID()}/more`, { headers: auth, body: composite });
    expect(below.status).toBe(413);
    // the paths' other methods keep BODY_LIMIT_BYTES
    const deleted = await api('DELETE', `/api/v1/${app}/tasks/${randomUUID()}`, { headers: auth, body: composite });
    expect(deleted.status).toBe(413);
    // the larger limit is an admin's: a gamer's large body is refused before it is read, a small one goes on
    const player = { authorization: `Bearer ${mintToken({ sub: randomUUID(), app, name: 'Bob' })}` };
    const refused = await api('POST', `/api/v1/${app}/tasks`, { headers: player, body: composite });
    expect(refused.status).toBe(413);
    expect(refused.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', detail: expect.stringContaining('only an admin') });
    expect((await api('POST', `/api/v1/${app}/tasks`, { headers: player, body: { name: 'small' } })).status).toBe(200);
    // an admin's of the path's application only: another application's admin is refused by the
    // service, so the gateway does not read a large body for it either (until 2026-11-29 it did)
    const foreignAdmin = { authorization: `Bearer ${mintToken({ sub: randomUUID(), app: randomUUID(), name: 'Eve', roles: ['admin'] })}` };
    const foreign = await api('POST', `/api/v1/${app}/tasks`, { headers: foreignAdmin, body: composite });
    expect(foreign.status).toBe(413);
    // and so is one sent in chunks, without a Content-Length
    const chunked = await new Promise<number>((resolve, reject) => {
      const url = new URL(`/api/v1/${app}/tasks`, gatewayUrl);
      const outgoing = request(url, { method: 'POST', headers: { ...player, 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      outgoing.on('error', reject);
      const text = JSON.stringify(composite);
      for (let i = 0; i < text.length; i += 1_000) outgoing.write(text.slice(i, i + 1_000));
      outgoing.end();
    });
    expect(chunked).toBe(413);
  });

  it('takes a stat event over BODY_LIMIT_BYTES from a game server\'s POST only; another caller or method keeps the plain limit', async () => {
    const event = { gameId: 'g', stats: [{ applicationStatsId: 'x'.repeat(5_000), value: 1 }] };
    const server = { authorization: `Bearer ${mintToken({ sub: randomUUID(), app, roles: ['server'] })}` };
    const taken = await api('POST', '/api/v1/stats', { headers: server, body: event });
    expect(taken.status).toBe(200);
    expect(taken.body).toMatchObject({ upstream: 'tasks', method: 'POST', url: '/api/v1/stats' });
    // until 2026-11-28 every caller and method had the 192 KiB limit, read and parsed before the service refused it
    const player = { authorization: `Bearer ${mintToken({ sub: randomUUID(), app, name: 'Bob' })}` };
    const refused = await api('POST', '/api/v1/stats', { headers: player, body: event });
    expect(refused.status).toBe(413);
    expect(refused.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', detail: expect.stringContaining("only a game server's stats report") });
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      expect((await api(method, '/api/v1/stats', { headers: server, body: event })).status, method).toBe(413);
    }
    // an admin is no game server either
    expect((await api('POST', '/api/v1/stats', { headers: auth, body: event })).status).toBe(413);
  });

  it('answers 400 for malformed JSON and 415 for other media types', async () => {
    const malformed = await api('POST', '/api/v1/friendship', { headers: { ...auth, 'content-type': 'application/json' }, rawBody: '{"target":' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    const xml = await api('POST', '/api/v1/friendship', { headers: { ...auth, 'content-type': 'application/xml' }, rawBody: '<a/>' });
    expect(xml.status).toBe(415);
  });

  it('answers unknown non-API paths with a 404 problem', async () => {
    const response = await api('GET', '/admin');
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('is ready when both services are', async () => {
    const response = await api('GET', '/readyz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok', checks: { friendship: 'ok', tasks: 'ok' } });
  });
});

describe('gateway and browser pages of other origins (CORS_ORIGINS)', () => {
  const game = 'https://game.example';
  const preflight = { origin: game, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,idempotency-key' };

  it('answers a preflight of an allowed origin itself, without a token, and lets its page read the answers', async () => {
    const upstream = await echoUpstream('any');
    const { gateway, api } = await gatewayWith({ JWT_SECRET: TEST_JWT_SECRET, CORS_ORIGINS: `${game},http://localhost:5173` }, upstream.url, upstream.url);
    try {
      const asked = await api('OPTIONS', '/api/v1/tasks/assign', { headers: preflight });
      expect(asked.status).toBe(204);
      expect(asked.headers.get('access-control-allow-origin')).toBe(game);
      expect(asked.headers.get('access-control-allow-headers')).toContain('idempotency-key');
      expect(asked.headers.get('access-control-allow-credentials')).toBeNull();
      const token = { authorization: `Bearer ${mintToken({ app: randomUUID() })}` };
      const answered = await api<Echo>('GET', '/api/v1/friendship', { headers: { ...token, origin: game } });
      expect(answered.status).toBe(200);
      expect(answered.headers.get('access-control-allow-origin')).toBe(game);
      expect(answered.headers.get('access-control-expose-headers')).toContain('link');
      // another origin gets no grant: the browser keeps the answer from its page
      const stranger = await api('OPTIONS', '/api/v1/tasks/assign', { headers: { ...preflight, origin: 'https://evil.example' } });
      expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
      expect((await api('GET', '/api/v1/friendship', { headers: { origin: game } })).status).toBe(401);
      // the preflights' catch-all route says nothing of what a path takes: 404 and 405 stay
      const unknown = await api('GET', '/nope', { headers: { origin: game } });
      expect(unknown.status).toBe(404);
      // answered before the plugin's hook, still readable by the page
      expect(unknown.headers.get('access-control-allow-origin')).toBe(game);
      expect((await api('GET', '/nope')).headers.get('vary')).toMatch(/origin/i);
      expect((await api('OPTIONS', '/api/v1/friendship', { headers: { origin: game } })).status).toBe(204);
      const wrongMethod = await api('POST', '/readyz');
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD');
    } finally {
      await gateway.close();
      await upstream.app.close();
    }
  });

  it('grants no origin unless told: a preflight is an unauthenticated API call (401)', async () => {
    const upstream = await echoUpstream('any');
    const { gateway, api } = await gatewayWith({ JWT_SECRET: TEST_JWT_SECRET }, upstream.url, upstream.url);
    try {
      const asked = await api('OPTIONS', '/api/v1/tasks/assign', { headers: preflight });
      expect(asked.status).toBe(401);
      expect(asked.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await gateway.close();
      await upstream.app.close();
    }
  });
});

describe('gateway limits and failures', () => {
  it('tries a GET again that a closing service answered 503, after waits of its own', async () => {
    let calls = 0;
    const closing = Fastify();
    closing.get('/readyz', async () => ({ status: 'ok' }));
    // a replica that is stopping says Retry-After: 1 (platform shuttingDown)
    closing.get('/*', async (_request, reply) => (++calls <= 2 ? reply.code(503).header('retry-after', '1').send({ status: 503 }) : { calls }));
    const url = await listen(closing);
    const { gateway, api } = await gatewayWith({ JWT_SECRET: TEST_JWT_SECRET }, url, url);
    try {
      const response = await api<{ calls: number }>('GET', '/api/v1/tasks', { headers: { authorization: `Bearer ${mintToken({ app: randomUUID() })}` } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ calls: 3 });
    } finally {
      await gateway.close();
      await closing.close();
    }
  });

  it('passes on at once a 503 that asks for a longer wait (the service\'s store away): tried once', async () => {
    let calls = 0;
    const storeAway = Fastify();
    storeAway.get('/readyz', async () => ({ status: 'ok' }));
    storeAway.get('/*', async (_request, reply) => {
      calls++;
      return reply.code(503).header('retry-after', '5').send({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    });
    const url = await listen(storeAway);
    const { gateway, api } = await gatewayWith({ JWT_SECRET: TEST_JWT_SECRET }, url, url);
    try {
      const response = await api('GET', '/api/v1/tasks', { headers: { authorization: `Bearer ${mintToken({ app: randomUUID() })}` } });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      // before: tried again within the window, the client waiting two of the service's waits
      expect(calls).toBe(1);
    } finally {
      await gateway.close();
      await storeAway.close();
    }
  });

  it('tries a GET a service answered 503 only after a wait of its own no more than a moment: not ten times', async () => {
    let calls = 0;
    const waiting = Fastify();
    waiting.get('/readyz', async () => ({ status: 'ok' }));
    // a service that waits on a dependency before its 503 (the tasks admin reads wait 2 s on NATS)
    waiting.get('/*', async (_request, reply) => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 700));
      return reply.code(503).send({ status: 503 });
    });
    const url = await listen(waiting);
    const { gateway, api } = await gatewayWith({ JWT_SECRET: TEST_JWT_SECRET }, url, url);
    try {
      const response = await api('GET', '/api/v1/tasks', { headers: { authorization: `Bearer ${mintToken({ app: randomUUID() })}` } });
      expect(response.status).toBe(503);
      // until 2026-11-28 eleven tries, the client waiting ~8 s (the count says it, not the
      // clock: a wall-clock bound is the machine's as much as the gateway's)
      expect(calls).toBeLessThanOrEqual(4);
    } finally {
      await gateway.close();
      await waiting.close();
    }
  });

  it('rate-limits per gamer, not per address', async () => {
    const upstream = await echoUpstream('any');
    // Windows are aligned to the clock; a day-long one keeps the test clear of a window change.
    const { gateway, api } = await gatewayWith({ JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '86400000' }, upstream.url, upstream.url);
    try {
      const app = randomUUID();
      const first = { authorization: `Bearer ${mintToken({ app })}` };
      const second = { authorization: `Bearer ${mintToken({ app })}` };
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await api('GET', '/api/v1/tasks', { headers: first })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const limited = await api('GET', '/api/v1/tasks', { headers: first });
      expect(limited.body).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
      expect(limited.headers.get('retry-after')).toBeTruthy();
      expect((await api('GET', '/api/v1/tasks', { headers: second })).status).toBe(200);
    } finally {
      await gateway.close();
      await upstream.app.close();
    }
  });

  it('gives game-server identities their own budget (RATE_LIMIT_SERVER_MAX): one often reports a whole fleet\'s stats', async () => {
    const upstream = await echoUpstream('any');
    const { gateway, api } = await gatewayWith({ JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_MAX: '2', RATE_LIMIT_SERVER_MAX: '4', RATE_LIMIT_WINDOW_MS: '86400000' }, upstream.url, upstream.url);
    try {
      const app = randomUUID();
      const statuses = async (headers: Record<string, string>, n: number) => {
        const seen = [];
        for (let i = 0; i < n; i++) seen.push((await api('GET', '/api/v1/tasks', { headers })).status);
        return seen;
      };
      expect(await statuses({ authorization: `Bearer ${mintToken({ app })}` }, 3)).toEqual([200, 200, 429]);
      expect(await statuses({ authorization: `Bearer ${mintToken({ app, roles: ['server'] })}` }, 5)).toEqual([200, 200, 200, 200, 429]);
    } finally {
      await gateway.close();
      await upstream.app.close();
    }
  });

  it('serves at most RATE_LIMIT_IN_FLIGHT_MAX requests of one gamer at once; other gamers and game servers are not held to it', async () => {
    // holds every request until released: the gamer's requests stay in flight
    const { holding, url, release, received } = await holdingUpstream();
    const { gateway, api } = await gatewayWith({ JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_IN_FLIGHT_MAX: '2' }, url, url);
    const app = randomUUID();
    const gamer = { authorization: `Bearer ${mintToken({ app })}` };
    const other = { authorization: `Bearer ${mintToken({ app })}` };
    const server = { authorization: `Bearer ${mintToken({ app, roles: ['server'] })}` };
    try {
      const held = [api('GET', '/api/v1/tasks', { headers: gamer }), api('GET', '/api/v1/tasks', { headers: gamer })];
      await eventually(async () => received() === 2);
      const refused = await api('GET', '/api/v1/tasks', { headers: gamer });
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ code: 'RATE_LIMITED' });
      expect(refused.headers.get('retry-after')).toBe('1');
      held.push(api('GET', '/api/v1/tasks', { headers: other }), ...[1, 2, 3].map(() => api('GET', '/api/v1/tasks', { headers: server })));
      await eventually(async () => received() === 6);
      release();
      expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      // answered: the gamer's slots are free again
      expect((await api('GET', '/api/v1/tasks', { headers: gamer })).status).toBe(200);
    } finally {
      release();
      await gateway.close();
      await holding.close();
    }
  });

  it('gives back the in-flight slots of pipelined requests whose client left before their answers', async () => {
    const { holding, url, release, received } = await holdingUpstream();
    const { gateway, gatewayUrl, api } = await gatewayWith({ JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_IN_FLIGHT_MAX: '3' }, url, url);
    const gamer = { authorization: `Bearer ${mintToken({ app: randomUUID() })}` };
    try {
      // three requests pipelined on one connection; the client resets it before any answer
      const socket = connect(Number(new URL(gatewayUrl).port), '127.0.0.1');
      await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      socket.on('error', () => undefined);
      socket.write(`GET /api/v1/tasks HTTP/1.1\r\nhost: x\r\nauthorization: ${gamer.authorization}\r\n\r\n`.repeat(3));
      await eventually(async () => received() === 3);
      socket.resetAndDestroy();
      await closed;
      release();
      await new Promise((resolve) => setTimeout(resolve, 300));
      // all three slots are the gamer's again: three more at once are served
      const again = await Promise.all([1, 2, 3].map(() => api('GET', '/api/v1/tasks', { headers: gamer })));
      expect(again.map((r) => r.status)).toEqual([200, 200, 200]);
    } finally {
      release();
      await gateway.close();
      await holding.close();
    }
  });

  // A client that announces a body and stops sending would otherwise hold the connection for ever.
  it('ends a request whose body does not come within REQUEST_TIMEOUT_MS with 408', async () => {
    const upstream = await echoUpstream('any');
    const { gateway, gatewayUrl } = await gatewayWith({ JWT_SECRET: TEST_JWT_SECRET, REQUEST_TIMEOUT_MS: '1000' }, upstream.url, upstream.url);
    try {
      const { port } = new URL(gatewayUrl);
      const socket = connect(Number(port), '127.0.0.1');
      let answer = '';
      socket.setEncoding('latin1').on('data', (chunk: string) => (answer += chunk));
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      socket.write(`POST /api/v1/friendship HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${mintToken()}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"target":`);
      await closed; // the test's own timeout is the bound; nothing here measures time
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      await gateway.close();
      await upstream.app.close();
    }
  });

  it('forwards a POST sent with Expect: 100-continue (Unity, .NET Framework), without the client connection\'s own headers', async () => {
    const upstream = await echoUpstream('friendship');
    const { gateway, gatewayUrl } = await gatewayWith({ JWT_SECRET: TEST_JWT_SECRET }, upstream.url, upstream.url);
    const auth = { authorization: `Bearer ${mintToken()}` };
    try {
      const body = JSON.stringify({ target: randomUUID() });
      const answer = await new Promise<{ status: number; body: Echo; continued: boolean }>((resolve, reject) => {
        let continued = false;
        const outgoing = request(new URL('/api/v1/friendship', gatewayUrl), {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), expect: '100-continue', connection: 'keep-alive, x-hop', 'keep-alive': 'timeout=5', 'x-hop': '1', te: 'trailers' },
        }, (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as Echo, continued }));
        });
        outgoing.on('continue', () => {
          continued = true;
          outgoing.end(body);
        });
        outgoing.on('error', reject);
      });
      expect(answer.status).toBe(200);
      expect(answer.continued).toBe(true);
      expect(answer.body).toMatchObject({ upstream: 'friendship', method: 'POST', body: JSON.parse(body) });
      for (const name of ['expect', 'keep-alive', 'x-hop', 'te']) expect(answer.body.headers).not.toHaveProperty(name);
    } finally {
      await gateway.close();
      await upstream.app.close();
    }
  });

  it('answers with its own connection headers, not the service\'s: a client that asks to close gets close', async () => {
    const upstream = await echoUpstream('tasks');
    const { gateway, gatewayUrl } = await gatewayWith({ JWT_SECRET: TEST_JWT_SECRET }, upstream.url, upstream.url);
    const auth = { authorization: `Bearer ${mintToken()}` };
    try {
      const answer = await new Promise<{ status: number; connection: string | undefined; keepAlive: string | undefined }>((resolve, reject) => {
        const outgoing = request(new URL('/api/v1/tasks', gatewayUrl), { method: 'GET', headers: { ...auth, connection: 'close' } }, (response) => {
          response.resume();
          response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, keepAlive: response.headers['keep-alive'] as string | undefined }));
        });
        outgoing.on('error', reject);
        outgoing.end();
      });
      expect(answer.status).toBe(200);
      expect(answer.connection).toBe('close');
      expect(answer.keepAlive).toBeUndefined();
    } finally {
      await gateway.close();
      await upstream.app.close();
    }
  });

  it('tries a GET again at once whose kept-alive connection the service had just closed; a POST is not tried twice', async () => {
    // answers the first request of each connection, and breaks the connection at the next:
    // what the gateway sees of a replica that closes idle connections as it stops
    const seen: string[] = [];
    const upstream = createServer((socket) => {
      let answered = false;
      socket.on('data', (chunk) => {
        const line = chunk.toString('latin1').split('\r\n')[0]!;
        if (answered) {
          seen.push(`broken ${line}`);
          socket.destroy();
          return;
        }
        answered = true;
        seen.push(`answered ${line}`);
        const text = JSON.stringify({ ok: true });
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${text.length}\r\nconnection: keep-alive\r\n\r\n${text}`);
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
    const { gateway, api } = await gatewayWith({ JWT_SECRET: TEST_JWT_SECRET, UPSTREAM_CONNECTIONS: '1' }, upstreamUrl, upstreamUrl);
    const headers = { authorization: `Bearer ${mintToken()}` };
    try {
      expect((await api('GET', '/api/v1/tasks', { headers })).status).toBe(200);
      // the pooled connection breaks: tried again on a new one
      expect((await api('GET', '/api/v1/tasks', { headers })).status).toBe(200);
      expect(seen).toEqual(['answered GET /api/v1/tasks HTTP/1.1', 'broken GET /api/v1/tasks HTTP/1.1', 'answered GET /api/v1/tasks HTTP/1.1']);
      // a write may have happened: a 502, never sent twice
      expect((await api('POST', '/api/v1/tasks/assign', { headers, body: { family: 'daily', numberOfTasks: 1 } })).status).toBe(502);
      expect(seen.filter((s) => s.includes('POST'))).toEqual(['broken POST /api/v1/tasks/assign HTTP/1.1']);
    } finally {
      await gateway.close();
      await new Promise((resolve) => upstream.close(resolve));
    }
  });

  it('opens a new connection to a service once the pooled one is UPSTREAM_CONNECTION_MAX_AGE_MS old', async () => {
    const upstream = await echoUpstream('tasks');
    let connections = 0;
    upstream.app.server.on('connection', () => connections++);
    const { gateway, api } = await gatewayWith({ JWT_SECRET: TEST_JWT_SECRET, UPSTREAM_CONNECTION_MAX_AGE_MS: '1000' }, upstream.url, upstream.url);
    const headers = { authorization: `Bearer ${mintToken()}` };
    try {
      for (let i = 0; i < 3; i++) expect((await api('GET', '/api/v1/tasks', { headers })).status).toBe(200);
      // kept alive and reused while young
      expect(connections).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect((await api('GET', '/api/v1/tasks', { headers })).status).toBe(200);
      expect(connections).toBe(2);
    } finally {
      await gateway.close();
      await upstream.app.close();
    }
  });

  it('closes the connection of a client that stops taking its answer, after SEND_TIMEOUT_MS: the service connection it held serves others', async () => {
    // an answer larger than what the sockets' buffers take in: the client must read it
    const large = Buffer.alloc(16 << 20, 0x20);
    let received = 0;
    const upstream = Fastify();
    upstream.get('/*', async (_request, reply) => {
      received++;
      return reply.type('application/json').send(large);
    });
    const url = await listen(upstream);
    // one connection to the service: the stalled answer holds it until the gateway lets go
    const { gateway, gatewayUrl } = await gatewayWith({ JWT_SECRET: TEST_JWT_SECRET, UPSTREAM_CONNECTIONS: '1', SEND_TIMEOUT_MS: '1000' }, url, url);
    const { hostname, port } = new URL(gatewayUrl);
    const stalled = connect({ host: hostname, port: Number(port) });
    try {
      stalled.pause();
      stalled.write(`GET /api/v1/tasks HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${mintToken()}\r\n\r\n`);
      await eventually(async () => received === 1);
      const other = await fetch(`${gatewayUrl}/api/v1/tasks`, { headers: { authorization: `Bearer ${mintToken()}` }, signal: AbortSignal.timeout(20_000) });
      expect(other.status).toBe(200);
      expect((await other.arrayBuffer()).byteLength).toBe(large.length);
      expect(received).toBe(2);
    } finally {
      stalled.destroy();
      await gateway.close();
      await upstream.close();
    }
  });

  it('answers 504 problem+json when a service does not answer within UPSTREAM_TIMEOUT_MS', async () => {
    // takes requests and never answers them; its connections are cut when it closes
    let received = 0;
    const hanging = Fastify({ forceCloseConnections: true });
    hanging.get('/readyz', async () => ({ status: 'ok' }));
    hanging.get('/*', (_request, reply) => {
      received++;
      return reply;
    });
    const url = await listen(hanging);
    const { gateway, api } = await gatewayWith({ JWT_SECRET: TEST_JWT_SECRET, UPSTREAM_TIMEOUT_MS: '300' }, url, url);
    try {
      const response = await api('GET', '/api/v1/tasks', { headers: { authorization: `Bearer ${mintToken()}` } });
      expect(response.status).toBe(504);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ status: 504, code: 'UPSTREAM_UNAVAILABLE', detail: 'upstream service timed out' });
      // given up, not tried again
      expect(received).toBe(1);
    } finally {
      await gateway.close();
      await hanging.close();
    }
  });

  it('answers 502 problem+json when a service is down, and is not ready', async () => {
    const { gateway, api } = await gatewayWith({ JWT_SECRET: TEST_JWT_SECRET }, 'http://127.0.0.1:9', 'http://127.0.0.1:9');
    try {
      const response = await api('GET', '/api/v1/friendship', { headers: { authorization: `Bearer ${mintToken()}` } });
      expect(response.status).toBe(502);
      expect(response.body).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
      expect((await api('GET', '/readyz')).status).toBe(503);
    } finally {
      await gateway.close();
    }
  });
});

describe('gateway (RS256 public key)', () => {
  it('accepts RS256 tokens and refuses HS256 tokens signed with the public key', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const upstream = await echoUpstream('any');
    const { gateway, api } = await gatewayWith({ JWT_PUBLIC_KEY: pem, JWT_ISSUER: 'https://id.example', JWT_AUDIENCE: 'gfts' }, upstream.url, upstream.url);
    try {
      const claims = { sub: randomUUID(), app: randomUUID(), iss: 'https://id.example', aud: 'gfts', exp: Math.floor(Date.now() / 1000) + 60 };
      const rs256 = createSigner({ key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), algorithm: 'RS256' })(claims);
      expect((await api('GET', '/api/v1/tasks', { headers: { authorization: `Bearer ${rs256}` } })).status).toBe(200);

      const confused = createSigner({ key: pem, algorithm: 'HS256' })(claims);
      expect((await api('GET', '/api/v1/tasks', { headers: { authorization: `Bearer ${confused}` } })).status).toBe(401);

      const wrongIssuer = createSigner({ key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), algorithm: 'RS256' })({ ...claims, iss: 'https://evil.example' });
      const refusedIssuer = await api<{ detail: string }>('GET', '/api/v1/tasks', { headers: { authorization: `Bearer ${wrongIssuer}` } });
      expect(refusedIssuer.status).toBe(401);
      // says which claim, never which value is accepted
      expect(refusedIssuer.body.detail).toBe('invalid token: the iss claim value is not allowed');

      const wrongAudience = createSigner({ key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), algorithm: 'RS256' })({ ...claims, aud: 'other' });
      const refusedAudience = await api<{ detail: string }>('GET', '/api/v1/tasks', { headers: { authorization: `Bearer ${wrongAudience}` } });
      expect(refusedAudience.status).toBe(401);
      expect(refusedAudience.body.detail).toBe('invalid token: the aud claim value is not allowed');

      // a configured issuer and audience are required claims, not only checked when present
      const { iss: _iss, ...withoutIssuer } = claims;
      const noIssuer = createSigner({ key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), algorithm: 'RS256' })(withoutIssuer);
      const refusedNoIssuer = await api<{ detail: string }>('GET', '/api/v1/tasks', { headers: { authorization: `Bearer ${noIssuer}` } });
      expect(refusedNoIssuer.status).toBe(401);
      expect(refusedNoIssuer.body.detail).toBe('invalid token: the iss claim is required');
      const { aud: _aud, ...withoutAudience } = claims;
      const noAudience = createSigner({ key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), algorithm: 'RS256' })(withoutAudience);
      const refusedNoAudience = await api<{ detail: string }>('GET', '/api/v1/tasks', { headers: { authorization: `Bearer ${noAudience}` } });
      expect(refusedNoAudience.status).toBe(401);
      expect(refusedNoAudience.body.detail).toBe('invalid token: the aud claim is required');
    } finally {
      await gateway.close();
      await upstream.app.close();
    }
  });
});
