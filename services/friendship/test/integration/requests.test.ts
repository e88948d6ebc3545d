import { gamer, mintToken } from '@gfts/testkit';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFriendshipStack, type FriendshipStack } from '../support/stack.ts';
import { expectOk, expectProblem, world, expectRequested } from '../support/world.ts';

describe('friend requests and friendships', () => {
  let stack: FriendshipStack;
  let w: ReturnType<typeof world>;
  beforeAll(async () => {
    stack = await startFriendshipStack();
    w = world(stack);
  });
  afterAll(async () => stack?.close());

  describe('POST / (send a request)', () => {
    it('creates a pending request both sides see, with the other gamer as user', async () => {
      const app = randomUUID();
      const alice = await w.join(app, 'Alice', { picture: 'https://cdn.example/alice.png' });
      const bob = await w.join(app, 'Bob');
      expectRequested(await w.request(alice, bob.id));

      const outgoing = await w.outgoing(alice);
      expect(outgoing.status).toBe(200);
      expect(outgoing.body).toEqual([{ id: expect.any(String), status: 'pending', user: { id: bob.id, displayName: 'Bob', avatar: '' } }]);
      const incoming = await w.incoming(bob);
      expect(incoming.body).toEqual([
        { id: outgoing.body[0]!.id, status: 'pending', user: { id: alice.id, displayName: 'Alice', avatar: 'https://cdn.example/alice.png' } },
      ]);
      expect((await w.friends(alice)).body).toEqual([]);
      expect((await w.incoming(alice)).body).toEqual([]);
      expect((await w.outgoing(bob)).body).toEqual([]);
    });

    it('accepts an upper-case target uuid as the same gamer', async () => {
      const [a, b] = await w.gamers(2);
      expectRequested(await w.request(a!, b!.id.toUpperCase()));
      expectRequested(await w.request(a!, b!.id));
      expect((await w.outgoing(a!)).body.map((e) => e.user.id)).toEqual([b!.id]);
    });

    it('answers ok to a repeated request and still keeps one request', async () => {
      const [a, b] = await w.gamers(2);
      expectRequested(await w.request(a!, b!.id));
      expectRequested(await w.request(a!, b!.id));
      expect((await w.outgoing(a!)).body).toHaveLength(1);
      expect((await w.incoming(b!)).body).toHaveLength(1);
    });

    it('answers the request\'s id and status, so a client accepts or cancels without listing first', async () => {
      const [a, b, c] = await w.gamers(3);
      const first = await w.request(a!, b!.id);
      expectRequested(first, 'pending');
      expect(await w.incomingId(b!, a!)).toBe(first.body.id);
      // a repeat names the same request
      expect((await w.request(a!, b!.id)).body).toEqual({ ok: true, id: first.body.id, status: 'pending' });
      // request -> accept in two calls
      expectOk(await w.accept(b!, first.body.id));
      expect((await w.friends(a!)).body.map((e) => e.id)).toEqual([first.body.id]);
      // request -> cancel in two calls
      const second = await w.request(a!, c!.id);
      expectOk(await w.cancel(a!, second.body.id));
      expect((await w.outgoing(a!)).body).toEqual([]);
    });

    it('turns a request crossing a pending one into a friendship', async () => {
      const [a, b] = await w.gamers(2);
      expectRequested(await w.request(a!, b!.id));
      const id = await w.incomingId(b!, a!);
      // the crossing request answers the friendship it made: the first request's id, accepted
      expect((await w.request(b!, a!.id)).body).toEqual({ ok: true, id, status: 'accepted' });
      // B's request accepted A's: the friendship keeps the id of A's request
      expect((await w.friends(a!)).body).toMatchObject([{ id, status: 'accepted', user: { id: b!.id, displayName: b!.name, avatar: '' } }]);
      expect((await w.friends(b!)).body).toMatchObject([{ id, status: 'accepted', user: { id: a!.id, displayName: a!.name, avatar: '' } }]);
      expect((await w.incoming(b!)).body).toEqual([]);
      expect((await w.outgoing(a!)).body).toEqual([]);
    });

    it('refuses a request to yourself with 400 CANNOT_TARGET_SELF', async () => {
      const [a] = await w.gamers(1);
      expectProblem(await w.request(a!, a!.id), 400, 'CANNOT_TARGET_SELF');
    });

    it('answers 404 for a gamer who never used the API in this application, and keeps nothing', async () => {
      const [a, other] = await w.gamers(2, randomUUID());
      expectProblem(await w.request(a!, randomUUID()), 404, 'NOT_FOUND');
      const stranger = gamer(a!.app, 'Never called');
      expectProblem(await w.request(a!, stranger.id), 404, 'NOT_FOUND');
      // a gamer of another application is unknown here
      const elsewhere = (await w.gamers(1))[0]!;
      expectProblem(await w.request(a!, elsewhere.id), 404, 'NOT_FOUND');
      // identical requests at once: each is checked before it is answered, none is kept
      // (a repeat that found its twin's request must not keep it for it)
      const burst = await Promise.all(Array.from({ length: 10 }, () => w.request(a!, stranger.id)));
      for (const refused of burst) expectProblem(refused, 404, 'NOT_FOUND');
      expect((await w.outgoing(a!)).body).toEqual([]);
      // and a request to a gamer who is there goes through as ever
      expectRequested(await w.request(a!, other!.id));
      expect((await w.outgoing(a!)).body.map((entry) => entry.user.id)).toEqual([other!.id]);
    });

    it('refuses a request to a friend with 409 ALREADY_FRIENDS, from either side', async () => {
      const [a, b] = await w.gamers(2);
      await w.befriend(a!, b!);
      expectProblem(await w.request(a!, b!.id), 409, 'ALREADY_FRIENDS');
      expectProblem(await w.request(b!, a!.id), 409, 'ALREADY_FRIENDS');
    });

    it('refuses a malformed target with 400 VALIDATION_FAILED', async () => {
      const [a] = await w.gamers(1);
      expectProblem(await w.request(a!, 'not-a-uuid'), 400, 'VALIDATION_FAILED');
    });
  });

  describe('POST /{id}/accept', () => {
    it('makes the two gamers friends', async () => {
      const [a, b] = await w.gamers(2);
      expectRequested(await w.request(a!, b!.id));
      const id = await w.incomingId(b!, a!);
      expectOk(await w.accept(b!, id));
      const friends = (await w.friends(a!)).body;
      // the request's id is the friendship's id; both friends see it
      expect(friends).toMatchObject([{ id, status: 'accepted', user: { id: b!.id, displayName: b!.name, avatar: '' } }]);
      expect((await w.friends(b!)).body).toMatchObject([{ id, status: 'accepted', user: { id: a!.id, displayName: a!.name, avatar: '' } }]);
      expect((await w.incoming(b!)).body).toEqual([]);
      expect((await w.outgoing(a!)).body).toEqual([]);
    });

    it('answers 404 to the sender accepting their own request, and to a third gamer', async () => {
      const [a, b, c] = await w.gamers(3);
      expectRequested(await w.request(a!, b!.id));
      const id = await w.incomingId(b!, a!);
      expectProblem(await w.accept(a!, id), 404, 'NOT_FOUND');
      expectProblem(await w.accept(c!, id), 404, 'NOT_FOUND');
      expect((await w.incoming(b!)).body.map((e) => e.id)).toEqual([id]);
    });

    it('answers the same 404 for an unknown id and for someone else\'s id', async () => {
      const [a, b, c] = await w.gamers(3);
      expectRequested(await w.request(a!, b!.id));
      const id = await w.incomingId(b!, a!);
      const foreign = await w.accept(c!, id);
      const unknown = await w.accept(c!, randomUUID());
      const strip = (body: unknown) => ({ ...(body as object), requestId: undefined });
      expect(strip(foreign.body)).toEqual(strip(unknown.body));
      expect(foreign.status).toBe(404);
    });

    it('answers 404 to accepting twice, or accepting a friendship', async () => {
      const [a, b] = await w.gamers(2);
      expectRequested(await w.request(a!, b!.id));
      const id = await w.incomingId(b!, a!);
      expectOk(await w.accept(b!, id));
      expectProblem(await w.accept(b!, id), 404, 'NOT_FOUND');
      expectProblem(await w.accept(b!, await w.friendshipId(b!, a!)), 404, 'NOT_FOUND');
      expect((await w.friends(b!)).body).toHaveLength(1);
    });

    it('refuses a malformed id with 400 VALIDATION_FAILED', async () => {
      const [a] = await w.gamers(1);
      expectProblem(await w.accept(a!, 'nope'), 400, 'VALIDATION_FAILED');
      expectProblem(await w.accept(a!, `${randomUUID()}x`), 400, 'VALIDATION_FAILED');
    });
  });

  describe('one id from request to unfriend', () => {
    it('the id of the outgoing request is the id in both friend lists after an explicit accept', async () => {
      const [a, b] = await w.gamers(2);
      expectRequested(await w.request(a!, b!.id));
      const requestId = (await w.outgoing(a!)).body[0]!.id;
      expectOk(await w.accept(b!, requestId));
      expect((await w.friends(a!)).body.map((e) => e.id)).toEqual([requestId]);
      expect((await w.friends(b!)).body.map((e) => e.id)).toEqual([requestId]);
      expectOk(await w.unfriend(b!, requestId));
      expect((await w.friends(a!)).body).toEqual([]);
    });

    it('the id of the first outgoing request is the friendship id when the requests cross', async () => {
      const [a, b] = await w.gamers(2);
      expectRequested(await w.request(a!, b!.id));
      const requestId = (await w.outgoing(a!)).body[0]!.id;
      expectRequested(await w.request(b!, a!.id));
      expect((await w.friends(a!)).body.map((e) => e.id)).toEqual([requestId]);
      expect((await w.friends(b!)).body.map((e) => e.id)).toEqual([requestId]);
      expect((await w.outgoing(b!)).body).toEqual([]);
      expectOk(await w.unfriend(a!, requestId));
      expect((await w.friends(b!)).body).toEqual([]);
    });

    it('a new request after unfriending gets a new id', async () => {
      const [a, b] = await w.gamers(2);
      const first = await w.befriend(a!, b!);
      expectOk(await w.unfriend(a!, first));
      expectRequested(await w.request(b!, a!.id));
      const second = (await w.outgoing(b!)).body[0]!.id;
      expect(second).not.toBe(first);
      expectOk(await w.accept(a!, second));
      expect((await w.friends(a!)).body.map((e) => e.id)).toEqual([second]);
      expectProblem(await w.unfriend(a!, first), 404, 'NOT_FOUND');
    });
  });

  describe('DELETE /requests/incoming/{id} (reject)', () => {
    it('removes the request for both sides', async () => {
      const [a, b] = await w.gamers(2);
      expectRequested(await w.request(a!, b!.id));
      const id = await w.incomingId(b!, a!);
      expectOk(await w.reject(b!, id));
      expect((await w.incoming(b!)).body).toEqual([]);
      expect((await w.outgoing(a!)).body).toEqual([]);
      // a rejected sender may ask again
      expectRequested(await w.request(a!, b!.id));
    });

    it('is only for the recipient: the sender and strangers get 404, and a friendship is not a request', async () => {
      const [a, b, c] = await w.gamers(3);
      expectRequested(await w.request(a!, b!.id));
      const id = await w.incomingId(b!, a!);
      expectProblem(await w.reject(a!, id), 404, 'NOT_FOUND');
      expectProblem(await w.reject(c!, id), 404, 'NOT_FOUND');
      expectProblem(await w.reject(b!, randomUUID()), 404, 'NOT_FOUND');
      expectOk(await w.accept(b!, id));
      expectProblem(await w.reject(b!, id), 404, 'NOT_FOUND');
      expectProblem(await w.reject(b!, await w.friendshipId(b!, a!)), 404, 'NOT_FOUND');
      expectProblem(await w.cancel(a!, await w.friendshipId(a!, b!)), 404, 'NOT_FOUND');
      expect((await w.friends(a!)).body).toHaveLength(1);
    });
  });

  describe('DELETE /requests/outgoing/{id} (cancel)', () => {
    it('removes the request for both sides', async () => {
      const [a, b] = await w.gamers(2);
      expectRequested(await w.request(a!, b!.id));
      const id = (await w.outgoing(a!)).body[0]!.id;
      expectOk(await w.cancel(a!, id));
      expect((await w.outgoing(a!)).body).toEqual([]);
      expect((await w.incoming(b!)).body).toEqual([]);
      expectProblem(await w.cancel(a!, id), 404, 'NOT_FOUND');
    });

    it('is only for the sender', async () => {
      const [a, b, c] = await w.gamers(3);
      expectRequested(await w.request(a!, b!.id));
      const id = (await w.outgoing(a!)).body[0]!.id;
      expectProblem(await w.cancel(b!, id), 404, 'NOT_FOUND');
      expectProblem(await w.cancel(c!, id), 404, 'NOT_FOUND');
      expectProblem(await w.cancel(a!, 'x'), 400, 'VALIDATION_FAILED');
      expect((await w.outgoing(a!)).body).toHaveLength(1);
    });
  });

  describe('DELETE /{id} (unfriend)', () => {
    it('works for either friend and removes the friendship for both', async () => {
      const [a, b, c, d] = await w.gamers(4);
      const ab = await w.befriend(a!, b!);
      const cd = await w.befriend(c!, d!);
      expectOk(await w.unfriend(a!, ab));
      expectOk(await w.unfriend(d!, cd));
      for (const who of [a!, b!, c!, d!]) expect((await w.friends(who)).body).toEqual([]);
      expectProblem(await w.unfriend(b!, ab), 404, 'NOT_FOUND');
    });

    it('refuses strangers and pending requests with 404', async () => {
      const [a, b, c] = await w.gamers(3);
      const ab = await w.befriend(a!, b!);
      expectProblem(await w.unfriend(c!, ab), 404, 'NOT_FOUND');
      expectRequested(await w.request(c!, a!.id));
      const pending = await w.incomingId(a!, c!);
      expectProblem(await w.unfriend(a!, pending), 404, 'NOT_FOUND');
      expectProblem(await w.unfriend(c!, pending), 404, 'NOT_FOUND');
      expectProblem(await w.unfriend(a!, 'bad-id'), 400, 'VALIDATION_FAILED');
      expect((await w.friends(a!)).body.map((e) => e.id)).toEqual([ab]);
    });
  });

  describe('the gamer directory', () => {
    it('refreshes name and avatar from the latest token, at once in lists, and keeps them when a token carries none', async () => {
      const app = randomUUID();
      const viewer = await w.join(app, 'Viewer');
      const renamed = await w.join(app, 'Old Name', { picture: 'https://cdn.example/old.png' });
      expectRequested(await w.request(renamed, viewer.id));
      // read once before the rename: the profile cache holds the old name and avatar
      expect((await w.incoming(viewer)).body[0]!.user).toEqual({ id: renamed.id, displayName: 'Old Name', avatar: 'https://cdn.example/old.png' });
      const fresh = mintToken({ sub: renamed.id, app, name: 'New Name', picture: 'https://cdn.example/new.png' });
      expect((await stack.api('GET', '/api/v1/friendship', { headers: { authorization: `Bearer ${fresh}` } })).status).toBe(200);
      expect((await w.incoming(viewer)).body[0]!.user).toEqual({ id: renamed.id, displayName: 'New Name', avatar: 'https://cdn.example/new.png' });
      const bare = mintToken({ sub: renamed.id, app });
      expect((await stack.api('GET', '/api/v1/friendship', { headers: { authorization: `Bearer ${bare}` } })).status).toBe(200);
      expect((await w.incoming(viewer)).body[0]!.user).toEqual({ id: renamed.id, displayName: 'New Name', avatar: 'https://cdn.example/new.png' });
    });

    it('shows a gamer whose tokens never carried a name or picture with empty strings', async () => {
      const app = randomUUID();
      const viewer = await w.join(app, 'Viewer');
      const id = randomUUID();
      const token = mintToken({ sub: id, app });
      const anonymous = await stack.api('POST', '/api/v1/friendship', { headers: { authorization: `Bearer ${token}` }, body: { target: viewer.id } });
      expectRequested(anonymous, 'pending');
      expect((await w.incoming(viewer)).body[0]!.user).toEqual({ id, displayName: '', avatar: '' });
    });
  });
});
