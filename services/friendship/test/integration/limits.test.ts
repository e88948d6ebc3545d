import { randomUUID } from 'node:crypto';
import { uuidv7 } from '@gfts/platform';
import type { Gamer } from '@gfts/testkit';
import mongoose, { type Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pendingRequest } from '../../src/domain/relation-rules.ts';
import { profileCache } from '../../src/profile-cache.ts';
import { blockRepository } from '../../src/repository/blocks.ts';
import { friendListRepository } from '../../src/repository/friend-lists.ts';
import { gamerDirectory } from '../../src/repository/gamers.ts';
import { createModels } from '../../src/repository/models.ts';
import { relationRepository } from '../../src/repository/relations.ts';
import { startFriendshipStack, type FriendshipStack } from '../support/stack.ts';
import { expectOk, expectProblem, world, expectRequested } from '../support/world.ts';

describe('per-gamer limits (all set to 2 here)', () => {
  let stack: FriendshipStack;
  let w: ReturnType<typeof world>;
  let db: Connection;
  beforeAll(async () => {
    stack = await startFriendshipStack({ MAX_PENDING_OUTGOING: '2', MAX_FRIENDS: '2', MAX_BLOCKS: '2' });
    w = world(stack);
    db = await mongoose.createConnection(stack.databaseUrl).asPromise();
  });
  afterAll(async () => {
    await db?.close();
    await stack?.close();
  });

  const detail = (response: { body: unknown }) => (response.body as { detail?: string }).detail;

  describe('pending outgoing requests', () => {
    it('refuses a third request with 409 PENDING_LIMIT_REACHED; repeats and cancels behave', async () => {
      const [a, b, c, d] = await w.gamers(4);
      expectRequested(await w.request(a!, b!.id));
      expectRequested(await w.request(a!, c!.id));
      const refused = await w.request(a!, d!.id);
      expectProblem(refused, 409, 'PENDING_LIMIT_REACHED');
      expect(detail(refused)).toBe('you have reached the limit of 2 pending outgoing friend requests');
      expect((await w.incoming(d!)).body).toEqual([]);
      // repeating a request already made is still fine at the limit
      expectRequested(await w.request(a!, b!.id));
      // accepting a crossed request does not need a pending slot
      expectRequested(await w.request(d!, a!.id));
      expectRequested(await w.request(a!, d!.id));
      expect((await w.friends(a!)).body.map((e) => e.user.id)).toEqual([d!.id]);
      // a slot frees up when a request is cancelled
      const [e] = await w.gamers(1, a!.app);
      expectProblem(await w.request(a!, e!.id), 409, 'PENDING_LIMIT_REACHED');
      expectOk(await w.cancel(a!, (await w.outgoing(a!)).body[0]!.id));
      expectRequested(await w.request(a!, e!.id));
    });

    it('never goes over the limit under a burst of concurrent requests', async () => {
      const [a, ...targets] = await w.gamers(7);
      const responses = await Promise.all(targets.map((t) => w.request(a!, t.id)));
      const accepted = responses.filter((r) => r.status === 200).length;
      for (const r of responses.filter((x) => x.status !== 200)) expectProblem(r, 409, 'PENDING_LIMIT_REACHED');
      const stored = await db.collection('relations').countDocuments({ applicationId: a!.app, requester: a!.id, status: 'pending' });
      expect(stored).toBe(accepted);
      expect(stored).toBeLessThanOrEqual(2);
      // refused ones can be retried until the limit is reached exactly
      for (const t of targets) await w.request(a!, t.id);
      expect((await w.outgoing(a!)).body).toHaveLength(2);
    });

    it('never answers a double tap at the limit with a request it withdraws', async () => {
      // a few rounds: on the code before the fix every round answered 200 for a withdrawn request
      for (let round = 0; round < 5; round++) {
        const [a, b, c, d] = await w.gamers(4);
        expectRequested(await w.request(a!, c!.id));
        expectRequested(await w.request(a!, d!.id));
        const responses = await Promise.all([w.request(a!, b!.id), w.request(a!, b!.id), w.request(a!, b!.id)]);
        for (const r of responses.filter((x) => x.status !== 200)) expectProblem(r, 409, 'PENDING_LIMIT_REACHED');
        const stored = await db.collection('relations').find({ applicationId: a!.app, requester: a!.id, addressee: b!.id }).toArray();
        const answered = [...new Set(responses.filter((r) => r.status === 200).map((r) => r.body.id))];
        expect({ round, answered }).toEqual({ round, answered: stored.map((doc) => doc._id) });
      }
    });
    it('withdraws a request over the limit that a refused accept put back to pending while it was being withdrawn', async () => {
      const models = await createModels(db);
      const lists = friendListRepository(models.friendLists, models.relations, { maxAgeMs: 3600_000 });
      const directory = gamerDirectory(models.gamers, profileCache(100, 0));
      // B's accept, whose friend count runs `duringCount` (once) once it has counted
      let duringCount: (() => Promise<unknown>) | undefined;
      const counting = new Proxy(models.relations.collection, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target) as unknown;
          if (typeof value !== 'function') return value;
          if (prop !== 'aggregate') return (value as (...a: unknown[]) => unknown).bind(target);
          return (...args: unknown[]) => {
            const cursor = (value as (...a: unknown[]) => { toArray(): Promise<unknown> }).apply(target, args);
            return {
              async toArray() {
                const counts = await cursor.toArray();
                const run = duringCount;
                duringCount = undefined;
                await run?.();
                return counts;
              },
            };
          };
        },
      });
      const accepting = relationRepository(
        new Proxy(models.relations, { get: (target, prop, receiver) => (prop === 'collection' ? counting : (Reflect.get(target, prop, receiver) as unknown)) }),
        models.blocks, lists, directory,
      );
      const [a, b, c, d] = await w.gamers(4);
      // A's withdrawal lands while B's accept (refused: B is full, a limit of 0 here) holds
      // the request accepted, and reads it once that accept has put it back to pending
      let refusedAccept: Awaited<ReturnType<typeof accepting.accept>> | undefined;
      const withdrawing = new Proxy(models.relations, {
        get(target, prop, receiver) {
          if (prop !== 'deleteOne' || refusedAccept) return Reflect.get(target, prop, receiver) as unknown;
          return async (...args: Parameters<typeof target.deleteOne>) => {
            let withdrawn: unknown;
            duringCount = async () => (withdrawn = await target.deleteOne(...args));
            refusedAccept = await accepting.accept(a!.app, id, b!.id, new Date(), 0);
            return withdrawn;
          };
        },
      });
      const requests = relationRepository(withdrawing, models.blocks, lists, directory);
      expectRequested(await w.request(a!, c!.id));
      expectRequested(await w.request(a!, d!.id));
      const id = uuidv7();
      // before the fix the request answered requested (200, announced) and stayed: three pending
      expect((await requests.request(pendingRequest(a!.app, a!.id, b!.id, id, new Date()), 2)).kind).toBe('pendingLimit');
      expect(refusedAccept?.kind).toBe('friendLimit');
      expect(await db.collection('relations').countDocuments({ applicationId: a!.app, requester: a!.id, status: 'pending' })).toBe(2);
      expect(await db.collection('relations').countDocuments({ _id: id as never })).toBe(0);
    });
  });

  /** The service's models and friend-id lists, and a directory whose next check read fails, as a read timing out does. */
  async function withFailingDirectoryRead() {
    const models = await createModels(db);
    const lists = friendListRepository(models.friendLists, models.relations, { maxAgeMs: 3600_000 });
    const real = gamerDirectory(models.gamers, profileCache(100, 0));
    let failures = 1;
    const directory = { ...real, bothExist: async (...args: Parameters<typeof real.bothExist>) => {
      if (failures > 0) {
        failures--;
        throw new Error('read timed out');
      }
      return real.bothExist(...args);
    } };
    return { models, lists, directory };
  }

  describe('a request whose checks could not be read', () => {
    async function withFailingCheck() {
      const { models, lists, directory } = await withFailingDirectoryRead();
      return { relations: relationRepository(models.relations, models.blocks, lists, directory) };
    }
    const pairCount = (a: Gamer, b: Gamer) => db.collection('relations').countDocuments({ applicationId: a.app, members: { $all: [a.id, b.id] } });

    it('is withdrawn, so a retry makes and announces it anew instead of taking it for a repeat', async () => {
      const { relations } = await withFailingCheck();
      const [a, b] = await w.gamers(2);
      await expect(relations.request(pendingRequest(a!.app, a!.id, b!.id, uuidv7(), new Date()), 2)).rejects.toThrow('read timed out');
      // before the fix it stayed, unchecked, and the retry below answered `exists` (200, nothing announced)
      expect(await pairCount(a!, b!)).toBe(0);
      expect((await relations.request(pendingRequest(a!.app, a!.id, b!.id, uuidv7(), new Date()), 2)).kind).toBe('requested');
      expect(await pairCount(a!, b!)).toBe(1);
    });
  });

  describe('an accept or a block whose later reads fail', () => {
    const listOf = async (app: string, gamer: string) => ((await db.collection('friendlists').findOne({ _id: `${app}:${gamer}` as never })) as { friends?: string[] } | null)?.friends ?? [];

    it('an accept puts the request back to pending before it fails, so the retry accepts it', async () => {
      const models = await createModels(db);
      const lists = friendListRepository(models.friendLists, models.relations, { maxAgeMs: 3600_000 });
      const directory = gamerDirectory(models.gamers, profileCache(100, 0));
      // the friend count (an aggregation) fails once, as a read timing out does
      let failures = 1;
      const collection = new Proxy(models.relations.collection, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target) as unknown;
          if (typeof value !== 'function') return value;
          if (prop !== 'aggregate' || failures === 0) return (value as (...a: unknown[]) => unknown).bind(target);
          failures--;
          return () => ({ toArray: async () => { throw new Error('read timed out'); } });
        },
      });
      const relations = relationRepository(
        new Proxy(models.relations, { get: (target, prop, receiver) => (prop === 'collection' ? collection : (Reflect.get(target, prop, receiver) as unknown)) }),
        models.blocks, lists, directory,
      );
      const [a, b] = await w.gamers(2);
      expectRequested(await w.request(a!, b!.id));
      const id = await w.incomingId(b!, a!);
      await expect(relations.accept(a!.app, id, b!.id, new Date(), 2)).rejects.toThrow('read timed out');
      // before the fix: accepted, unannounced, and the retry below answered notFound (404)
      expect((await db.collection('relations').findOne({ _id: id as never }))?.status).toBe('pending');
      expect([await listOf(a!.app, a!.id), await listOf(a!.app, b!.id)]).toEqual([[], []]);
      expect((await relations.accept(a!.app, id, b!.id, new Date(), 2)).kind).toBe('accepted');
    });

    it('a block withdraws its record before it fails, so the retry blocks and clears the pair', async () => {
      const { models, lists, directory } = await withFailingDirectoryRead();
      const blocks = blockRepository(models.blocks, models.relations, lists, directory);
      const [a, b] = await w.gamers(2);
      await w.befriend(a!, b!);
      await expect(blocks.block(a!.app, a!.id, b!.id, new Date(), 2)).rejects.toThrow('read timed out');
      // before the fix: the block stood beside the friendship, and the retry answered alreadyBlocked, clearing it unannounced
      expect(await db.collection('blocks').countDocuments({ applicationId: a!.app, blocker: a!.id })).toBe(0);
      expect((await w.friends(a!)).body.map((f) => f.user.id)).toEqual([b!.id]);
      const retried = await blocks.block(a!.app, a!.id, b!.id, new Date(), 2);
      expect(retried.kind).toBe('blocked');
      expect((await w.friends(a!)).body).toEqual([]);
    });
  });

  describe('friends', () => {
    /** `who` with two friends already. */
    async function withTwoFriends(): Promise<Gamer[]> {
      const [who, f1, f2, ...rest] = await w.gamers(6);
      await w.befriend(who!, f1!);
      await w.befriend(who!, f2!);
      return [who!, ...rest];
    }

    it('refuses to accept with 409 FRIEND_LIMIT_REACHED when the accepting gamer is full, keeping the request', async () => {
      const [full, asker] = await withTwoFriends();
      expectRequested(await w.request(asker!, full!.id));
      const id = await w.incomingId(full!, asker!);
      const refused = await w.accept(full!, id);
      expectProblem(refused, 409, 'FRIEND_LIMIT_REACHED');
      expect(detail(refused)).toBe('you have reached the limit of 2 friends');
      expect((await w.incoming(full!)).body.map((e) => e.id)).toEqual([id]);
      expect((await w.friends(full!)).body).toHaveLength(2);
    });

    it('refuses to accept when the other gamer is full, naming them', async () => {
      const [full, other] = await withTwoFriends();
      expectRequested(await w.request(full!, other!.id));
      const refused = await w.accept(other!, await w.incomingId(other!, full!));
      expectProblem(refused, 409, 'FRIEND_LIMIT_REACHED');
      expect(detail(refused)).toBe('the other gamer has reached the limit of 2 friends');
      expect((await w.friends(other!)).body).toEqual([]);
    });

    it('refuses a crossed request that would make a full gamer\'s friendship, on both sides', async () => {
      const [full, x, y] = await withTwoFriends();
      expectRequested(await w.request(x!, full!.id));
      expectProblem(await w.request(full!, x!.id), 409, 'FRIEND_LIMIT_REACHED');
      expectRequested(await w.request(full!, y!.id));
      expectProblem(await w.request(y!, full!.id), 409, 'FRIEND_LIMIT_REACHED');
      expect((await w.friends(full!)).body).toHaveLength(2);
    });

    it('accepts again once a friend is removed', async () => {
      const [full, asker] = await withTwoFriends();
      expectRequested(await w.request(asker!, full!.id));
      const id = await w.incomingId(full!, asker!);
      expectProblem(await w.accept(full!, id), 409, 'FRIEND_LIMIT_REACHED');
      expectOk(await w.unfriend(full!, (await w.friends(full!)).body[0]!.id));
      expectOk(await w.accept(full!, id));
      expect((await w.friends(full!)).body.map((e) => e.user.id)).toContain(asker!.id);
    });

    it('never goes over the limit when several accepts race, and keeps the refused requests as they were', async () => {
      const [hub, ...askers] = await w.gamers(6);
      for (const asker of askers) expectRequested(await w.request(asker, hub!.id));
      const ids = await Promise.all(askers.map((asker) => w.incomingId(hub!, asker)));
      const responses = await Promise.all(ids.map((id) => w.accept(hub!, id)));
      const acceptedIds = ids.filter((_, i) => responses[i]!.status === 200);
      const refusedIds = ids.filter((_, i) => responses[i]!.status !== 200);
      for (const r of responses.filter((x) => x.status !== 200)) expectProblem(r, 409, 'FRIEND_LIMIT_REACHED');
      const friends = await db.collection('relations').countDocuments({ applicationId: hub!.app, members: hub!.id, status: 'accepted' });
      expect(friends).toBe(acceptedIds.length);
      expect(friends).toBeLessThanOrEqual(2);
      // friendships keep their requests' ids; a refused accept put its request back, same id
      expect((await w.friends(hub!)).body.map((e) => e.id).sort()).toEqual(acceptedIds.sort());
      expect((await w.incoming(hub!)).body.map((e) => e.id).sort()).toEqual(refusedIds.sort());
    });

    it('never goes over the limit when crossed requests race to make friendships', async () => {
      const [hub, ...askers] = await w.gamers(6);
      for (const asker of askers) expectRequested(await w.request(asker, hub!.id));
      const responses = await Promise.all(askers.map((asker) => w.request(hub!, asker.id)));
      for (const r of responses.filter((x) => x.status !== 200)) expectProblem(r, 409, 'FRIEND_LIMIT_REACHED');
      const accepted = responses.filter((r) => r.status === 200).length;
      expect(await db.collection('relations').countDocuments({ applicationId: hub!.app, members: hub!.id, status: 'accepted' })).toBe(accepted);
      expect(accepted).toBeLessThanOrEqual(2);
      expect((await w.incoming(hub!)).body).toHaveLength(askers.length - accepted);
    });
  });

  describe('blocks', () => {
    it('refuses a third block with 409 BLOCK_LIMIT_REACHED; blocking again and unblocking behave', async () => {
      const [a, b, c, d] = await w.gamers(4);
      expectOk(await w.block(a!, b!.id));
      expectOk(await w.block(a!, c!.id));
      const refused = await w.block(a!, d!.id);
      expectProblem(refused, 409, 'BLOCK_LIMIT_REACHED');
      expect(detail(refused)).toBe('you have reached the limit of 2 blocked gamers');
      // at the limit, a gamer the directory does not know is still a 404
      expectProblem(await w.block(a!, randomUUID()), 404, 'NOT_FOUND');
      expectRequested(await w.request(d!, a!.id));
      expectOk(await w.block(a!, b!.id));
      expectOk(await w.unblock(a!, (await w.blocked(a!)).body[0]!.id));
      expectOk(await w.block(a!, d!.id));
      expect((await w.blocked(a!)).body.map((e) => e.toGamer.id)).toEqual([c!.id, d!.id]);
      expect((await w.incoming(a!)).body).toEqual([]);
    });

    it('never goes over the limit under concurrent blocks', async () => {
      const [a, ...targets] = await w.gamers(6);
      const responses = await Promise.all(targets.map((t) => w.block(a!, t.id)));
      const accepted = responses.filter((r) => r.status === 200).length;
      for (const r of responses.filter((x) => x.status !== 200)) expectProblem(r, 409, 'BLOCK_LIMIT_REACHED');
      expect(await db.collection('blocks').countDocuments({ applicationId: a!.app, blocker: a!.id })).toBe(accepted);
      expect(accepted).toBeLessThanOrEqual(2);
    });

    it('never ends a friendship for a block it withdraws (a double tap racing another block for the last slot)', async () => {
      // a few rounds: on the code before the fix about half of them lost both the block and the friendship
      for (let round = 0; round < 8; round++) {
        const [a, b, c, d] = await w.gamers(4);
        const friendshipId = await w.befriend(a!, b!);
        expectOk(await w.block(a!, d!.id));
        const [first, second] = await Promise.all([w.block(a!, b!.id), w.block(a!, b!.id), w.block(a!, c!.id)]);
        for (const r of [first!, second!].filter((x) => x.status !== 200)) expectProblem(r, 409, 'BLOCK_LIMIT_REACHED');
        const blocksB = await db.collection('blocks').countDocuments({ applicationId: a!.app, blocker: a!.id, blocked: b!.id });
        const friendship = await db.collection('relations').countDocuments({ _id: friendshipId as never });
        // a 200 means the block stands; a block that does not stand leaves the friendship alone
        const blockedB = first!.status === 200 || second!.status === 200;
        expect({ round, blocksB, friendship }).toEqual({ round, blocksB: blockedB ? 1 : 0, friendship: blockedB ? 0 : 1 });
      }
    });
  });
});
