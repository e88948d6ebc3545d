import { FORGEABLE_IDENTITY_HEADERS, friendshipRoutes } from '@gfts/contracts';
import { createIdentitySigner } from '@gfts/platform';
import { gamer, mintToken, TEST_INTERNAL_SECRET, unsignedToken, type Gamer } from '@gfts/testkit';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFriendshipStack, type FriendshipStack } from '../support/stack.ts';
import { BASE, expectOk, expectProblem, world, expectRequested } from '../support/world.ts';

/**
 * Every route of the contracts, each asked validly but for the credentials, on `id` (a route
 * the contracts gain must be given its request here: the type says so).
 */
function everyRoute(id: string, target: string) {
  const valid: Record<keyof typeof friendshipRoutes, { query?: string; body?: unknown }> = {
    search: { query: '?displayName=a' },
    sendRequest: { body: { target } },
    accept: {},
    listFriends: {},
    listIncoming: {},
    listOutgoing: {},
    reject: {},
    cancel: {},
    unblock: {},
    block: { body: { target } },
    unfriend: {},
    updateNotes: { body: { alias: 'x', favorite: true } },
    suggestions: {},
    mutualFriends: {},
    listBlocked: {},
  };
  return (Object.keys(friendshipRoutes) as (keyof typeof friendshipRoutes)[]).map((name) => {
    const { method, url } = friendshipRoutes[name];
    return [method, `${url.replace(/:\w+/g, id)}${valid[name].query ?? ''}`, valid[name].body] as const;
  });
}

describe('friendship security', () => {
  let stack: FriendshipStack;
  let w: ReturnType<typeof world>;
  let alice: Gamer;
  let bob: Gamer;
  let carol: Gamer;
  beforeAll(async () => {
    stack = await startFriendshipStack();
    w = world(stack);
    const gamers = await w.gamers(3);
    [alice, bob, carol] = [gamers[0]!, gamers[1]!, gamers[2]!];
  });
  afterAll(async () => stack?.close());

  describe('bearer tokens', () => {
    const now = () => Math.floor(Date.now() / 1000);
    const cases: [string, () => Record<string, string>][] = [
      ['no Authorization header', () => ({})],
      ['an alg:none token', () => ({ authorization: `Bearer ${unsignedToken({ sub: alice.id, app: alice.app, exp: now() + 3600 })}` })],
      ['an expired token (past the gateway\'s 30 s clock tolerance)', () => ({ authorization: `Bearer ${mintToken({ sub: alice.id, app: alice.app, expiresIn: -60 })}` })],
      ['a token signed with another secret', () => ({ authorization: `Bearer ${mintToken({ sub: alice.id, app: alice.app, secret: 'other-secret-other-secret-other-secret-0123' })}` })],
      ['a token without exp', () => ({ authorization: `Bearer ${mintToken({ sub: alice.id, app: alice.app, omitExp: true })}` })],
      ['a token whose sub is not a uuid', () => ({ authorization: `Bearer ${mintToken({ sub: 'alice', app: alice.app })}` })],
      ['a non-bearer scheme', () => ({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` })],
      ['garbage', () => ({ authorization: 'Bearer not.a.jwt' })],
    ];

    it.each(cases)('refuses %s with 401 problem+json on every endpoint', async (_why, headers) => {
      const id = randomUUID();
      const calls = everyRoute(id, bob.id);
      expect(calls.map(([method, path]) => `${method} ${path}`)).toEqual(expect.arrayContaining([`PATCH ${BASE}/${id}`, `GET ${BASE}/suggestions`, `GET ${BASE}/mutual/${id}`]));
      for (const [method, path, body] of calls) {
        const response = await stack.api(method, path, { headers: headers(), ...(body ? { body } : {}) });
        expectProblem(response, 401, 'UNAUTHORIZED');
      }
      expect((await w.incoming(bob)).body).toEqual([]);
      expect((await w.blocked(alice)).body).toEqual([]);
    });
  });

  describe('identity smuggling', () => {
    it('ignores identity headers a caller sends through the gateway: the request acts as the token\'s gamer', async () => {
      const forgedAssertion = createIdentitySigner(TEST_INTERNAL_SECRET)({ gamerId: bob.id, applicationId: bob.app, roles: [] });
      const forged: Record<string, string> = {};
      for (const name of FORGEABLE_IDENTITY_HEADERS) forged[name] = bob.id;
      forged['x-gfts-identity'] = forgedAssertion;
      forged['x-application-id'] = bob.app;

      const sent = await stack.api('POST', BASE, { headers: { ...alice.auth, ...forged }, body: { target: carol.id } });
      expectRequested(sent, 'pending');
      const incoming = await w.incoming(carol);
      expect(incoming.body.map((e) => e.user.id)).toEqual([alice.id]);
      expect((await w.outgoing(bob)).body).toEqual([]);

      const listed = await stack.api<{ user: { id: string } }[]>('GET', `${BASE}/requests/outgoing`, { headers: { ...alice.auth, ...forged } });
      expect(listed.body.map((e) => e.user.id)).toEqual([carol.id]);
      expectOk(await w.cancel(alice, (await w.outgoing(alice)).body[0]!.id));
    });

    it('refuses a request that reaches the service without the gateway\'s assertion', async () => {
      const direct = (headers: Record<string, string>) => fetch(`${stack.friendshipUrl}${BASE}/requests/outgoing`, { headers });
      const attempts: Record<string, string>[] = [
        {},
        { authorization: alice.auth.authorization },
        { 'x-user-id': alice.id, 'x-application-id': alice.app },
        { 'x-gfts-identity': createIdentitySigner('another-internal-secret-another-internal-sec')({ gamerId: alice.id, applicationId: alice.app, roles: [] }) },
        { 'x-gfts-identity': alice.token },
      ];
      for (const headers of attempts) {
        const response = await direct(headers);
        expect(response.status).toBe(401);
        expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(await response.json()).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
      }
    });
  });

  describe('game server tokens', () => {
    it('refuses a token with the server role on every endpoint with 403, before it registers the server as a gamer', async () => {
      const server = gamer(alice.app, 'Match Server', { roles: ['server'] });
      for (const [method, path, body] of everyRoute(randomUUID(), bob.id)) {
        const response = await stack.api(method, path, { headers: server.auth, ...(body ? { body } : {}) });
        // before: served as a gamer (a friend request sent with the servers' rate limit)
        expectProblem(response, 403, 'FORBIDDEN');
      }
      // never entered in the directory: nobody finds it or can befriend it
      expect((await w.search(alice, 'match server')).body).toEqual([]);
      expectProblem(await w.request(alice, server.id), 404, 'NOT_FOUND');
      expect((await w.incoming(bob)).body).toEqual([]);
    });
  });

  describe('application isolation', () => {
    it('keeps gamers of another application out of reach: 404 to request or block, absent from search', async () => {
      const appX = randomUUID();
      const appY = randomUUID();
      const x1 = await w.join(appX, 'Isolde X');
      const x2 = await w.join(appX, 'Isolde X2');
      const y1 = await w.join(appY, 'Isolde Y');
      expectProblem(await w.request(y1, x1.id), 404, 'NOT_FOUND');
      expectProblem(await w.block(y1, x1.id), 404, 'NOT_FOUND');
      expect((await w.search(y1, 'isolde')).body).toEqual([]);
      expect((await w.search(x1, 'isolde')).body.map((u) => u.id)).toEqual([x2.id]);
    });

    it('refuses to act on another application\'s relations with 404, even with the same gamer id', async () => {
      const appX = randomUUID();
      const appY = randomUUID();
      const x1 = await w.join(appX, 'X one');
      const x2 = await w.join(appX, 'X two');
      const x3 = await w.join(appX, 'X three');
      expectRequested(await w.request(x1, x2.id));
      const pending = await w.incomingId(x2, x1);
      const friendship = await w.befriend(x1, x3);
      const x4 = await w.join(appX, 'X four');
      expectOk(await w.block(x1, x4.id));
      const blockId = (await w.blocked(x1)).body[0]!.id;

      // The same gamers, by id, with tokens of another application.
      const twin = (who: Gamer): Gamer => {
        const token = mintToken({ sub: who.id, app: appY, name: who.name });
        return { ...who, app: appY, token, auth: { authorization: `Bearer ${token}` } };
      };
      const y1 = twin(x1);
      const y2 = twin(x2);
      const y3 = twin(x3);
      expectProblem(await w.accept(y2, pending), 404, 'NOT_FOUND');
      expectProblem(await w.reject(y2, pending), 404, 'NOT_FOUND');
      expectProblem(await w.cancel(y1, pending), 404, 'NOT_FOUND');
      expectProblem(await w.unfriend(y3, friendship), 404, 'NOT_FOUND');
      expectProblem(await w.unblock(y1, blockId), 404, 'NOT_FOUND');
      for (const who of [y1, y2, y3]) {
        expect((await w.friends(who)).body).toEqual([]);
        expect((await w.incoming(who)).body).toEqual([]);
        expect((await w.outgoing(who)).body).toEqual([]);
        expect((await w.blocked(who)).body).toEqual([]);
      }
      // and nothing changed in application X
      expect((await w.incoming(x2)).body.map((e) => e.id)).toEqual([pending]);
      expect((await w.friends(x1)).body.map((e) => e.id)).toEqual([friendship]);
      expect((await w.blocked(x1)).body.map((e) => e.id)).toEqual([blockId]);
    });
  });

  describe('request bodies', () => {
    const post = (body: { body?: unknown; rawBody?: string; headers?: Record<string, string> }) =>
      stack.api('POST', BASE, { ...body, headers: { ...alice.auth, ...body.headers } });

    it('refuses unknown fields with 400 and changes nothing', async () => {
      expectProblem(await post({ body: { target: bob.id, status: 'accepted' } }), 400, 'VALIDATION_FAILED');
      expectProblem(await stack.api('POST', `${BASE}/block`, { headers: alice.auth, body: { target: bob.id, extra: 1 } }), 400, 'VALIDATION_FAILED');
      expect((await w.incoming(bob)).body).toEqual([]);
      expect((await w.blocked(alice)).body).toEqual([]);
    });

    it('refuses a missing or non-string target with 400', async () => {
      expectProblem(await post({ body: {} }), 400, 'VALIDATION_FAILED');
      expectProblem(await post({ body: { target: null } }), 400, 'VALIDATION_FAILED');
      expectProblem(await post({ body: { target: { $ne: null } } }), 400, 'VALIDATION_FAILED');
      expectProblem(await post({ body: { target: [bob.id, carol.id] } }), 400, 'VALIDATION_FAILED');
      // a one-element array is not quietly unwrapped into the string it holds
      expectProblem(await post({ body: { target: [bob.id] } }), 400, 'VALIDATION_FAILED');
      expectProblem(await post({ body: { target: 42 } }), 400, 'VALIDATION_FAILED');
      expectProblem(await post({ body: [] }), 400, 'VALIDATION_FAILED');
      expectProblem(await post({ headers: { 'content-type': 'application/json' } }), 400, 'VALIDATION_FAILED');
    });

    it('refuses a body that is not JSON with 400', async () => {
      expectProblem(await post({ rawBody: '{"target": ', headers: { 'content-type': 'application/json' } }), 400, 'VALIDATION_FAILED');
      expectProblem(await post({ rawBody: 'target=abc', headers: { 'content-type': 'application/json' } }), 400, 'VALIDATION_FAILED');
    });

    it('refuses a body of another media type with 415', async () => {
      const response = await post({ rawBody: `target=${bob.id}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(response.status).toBe(415);
      expect(response.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    });

    it('refuses an oversize body with 413', async () => {
      const response = await post({ body: { target: bob.id, padding: 'x'.repeat(64 * 1024) } });
      expectProblem(response, 413, 'PAYLOAD_TOO_LARGE');
      expect((await w.incoming(bob)).body).toEqual([]);
    });
  });
});
