import type { FriendshipEventType } from '@gfts/contracts';
import { AppError, uuidv7 } from '@gfts/platform';
import type { Gamer } from '@gfts/testkit';
import mongoose, { type Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pendingRequest } from '../../src/domain/relation-rules.ts';
import type { FriendshipEventInput } from '../../src/events.ts';
import { friendshipService } from '../../src/friendship-service.ts';
import { registrationCache } from '../../src/registration-cache.ts';
import { blockRepository } from '../../src/repository/blocks.ts';
import { friendListRepository } from '../../src/repository/friend-lists.ts';
import { createRepositories } from '../../src/repository/index.ts';
import { createModels } from '../../src/repository/models.ts';
import { profileCache } from '../../src/profile-cache.ts';
import { gamerDirectory } from '../../src/repository/gamers.ts';
import { relationRepository, type GamerLookup } from '../../src/repository/relations.ts';
import { startFriendshipStack, type FriendshipStack } from '../support/stack.ts';
import { expectOk, expectProblem, world, expectRequested } from '../support/world.ts';

describe('concurrent changes leave one consistent outcome', () => {
  let stack: FriendshipStack;
  let w: ReturnType<typeof world>;
  let db: Connection;
  beforeAll(async () => {
    stack = await startFriendshipStack();
    w = world(stack);
    db = await mongoose.createConnection(stack.databaseUrl).asPromise();
  });
  afterAll(async () => {
    await db?.close();
    await stack?.close();
  });

  /** What the database holds between two gamers, read directly. */
  const relationsOf = (a: Gamer, b: Gamer) =>
    db.collection('relations').find({ applicationId: a.app, members: { $all: [a.id, b.id] } }).toArray();

  it('20 identical concurrent requests leave exactly one pending request', async () => {
    const [a, b] = await w.gamers(2);
    const responses = await Promise.all(Array.from({ length: 20 }, () => w.request(a!, b!.id)));
    for (const response of responses) expectRequested(response, 'pending');
    const stored = await relationsOf(a!, b!);
    expect(stored).toHaveLength(1);
    // every answer names the one stored request
    expect(new Set(responses.map((r) => r.body.id))).toEqual(new Set([stored[0]!._id]));
    expect(stored[0]).toMatchObject({ requester: a!.id, addressee: b!.id, status: 'pending' });
    expect((await w.outgoing(a!)).body).toHaveLength(1);
    expect((await w.incoming(b!)).body).toHaveLength(1);
  });

  it('crossed concurrent requests (A->B and B->A at once) make one friendship', async () => {
    const pairs = await Promise.all(Array.from({ length: 8 }, () => w.gamers(2)));
    await Promise.all(
      pairs.map(async ([a, b]) => {
        const [ab, ba] = await Promise.all([w.request(a!, b!.id), w.request(b!, a!.id)]);
        expectRequested(ab);
        expectRequested(ba);
        const stored = await relationsOf(a!, b!);
        expect(stored.map((r) => r.status)).toEqual(['accepted']);
        // both answers name the one relation; the second of the two made it a friendship
        expect([ab.body.id, ba.body.id]).toEqual([stored[0]!._id, stored[0]!._id]);
        expect([ab.body.status, ba.body.status]).toContain('accepted');
        const [fa, fb] = await Promise.all([w.friends(a!), w.friends(b!)]);
        expect(fa.body.map((e) => e.user.id)).toEqual([b!.id]);
        expect(fb.body.map((e) => e.user.id)).toEqual([a!.id]);
        expect(fa.body[0]!.id).toBe(fb.body[0]!.id);
        expect((await w.outgoing(a!)).body).toEqual([]);
        expect((await w.outgoing(b!)).body).toEqual([]);
      }),
    );
  });

  it('a storm of requests in both directions still leaves one accepted relation', async () => {
    const [a, b] = await w.gamers(2);
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? w.request(a!, b!.id) : w.request(b!, a!.id))));
    // every answer is ok (created, repeated or accepted) or "already friends" once they became friends
    for (const response of responses) expect([200, 409]).toContain(response.status);
    const stored = await relationsOf(a!, b!);
    expect(stored.map((r) => r.status)).toEqual(['accepted']);
  });

  it('accept racing cancel: exactly one wins, and the lists agree with it (10 rounds)', async () => {
    for (let round = 0; round < 10; round++) {
      const [a, b] = await w.gamers(2);
      expectRequested(await w.request(a!, b!.id));
      const id = await w.incomingId(b!, a!);
      const [accept, cancel] = await Promise.all([w.accept(b!, id), w.cancel(a!, id)]);
      expect([accept.status, cancel.status].sort()).toEqual([200, 404]);
      const stored = await relationsOf(a!, b!);
      const [friendsA, friendsB, outgoingA, incomingB] = await Promise.all([w.friends(a!), w.friends(b!), w.outgoing(a!), w.incoming(b!)]);
      expect(outgoingA.body).toEqual([]);
      expect(incomingB.body).toEqual([]);
      if (accept.status === 200) {
        expect(stored.map((r) => r.status)).toEqual(['accepted']);
        expect(friendsA.body.map((e) => e.user.id)).toEqual([b!.id]);
        expect(friendsB.body.map((e) => e.id)).toEqual(friendsA.body.map((e) => e.id));
      } else {
        expect(stored).toEqual([]);
        expect(friendsA.body).toEqual([]);
        expect(friendsB.body).toEqual([]);
      }
    }
  });

  it('accept racing reject by the same gamer: one outcome', async () => {
    for (let round = 0; round < 5; round++) {
      const [a, b] = await w.gamers(2);
      expectRequested(await w.request(a!, b!.id));
      const id = await w.incomingId(b!, a!);
      const [accept, reject] = await Promise.all([w.accept(b!, id), w.reject(b!, id)]);
      expect([accept.status, reject.status].sort()).toEqual([200, 404]);
      const stored = await relationsOf(a!, b!);
      expect(stored.map((r) => r.status)).toEqual(accept.status === 200 ? ['accepted'] : []);
    }
  });

  it('two accepts of one request, and two unfriends of one friendship: one 200, one 404', async () => {
    for (let round = 0; round < 5; round++) {
      const [a, b] = await w.gamers(2);
      expectRequested(await w.request(a!, b!.id));
      const id = await w.incomingId(b!, a!);
      const accepts = await Promise.all([w.accept(b!, id), w.accept(b!, id)]);
      expect(accepts.map((r) => r.status).sort()).toEqual([200, 404]);
      expect((await relationsOf(a!, b!)).map((r) => r.status)).toEqual(['accepted']);
      const friendship = await w.friendshipId(a!, b!);
      const unfriends = await Promise.all([w.unfriend(a!, friendship), w.unfriend(b!, friendship)]);
      expect(unfriends.map((r) => r.status).sort()).toEqual([200, 404]);
      expect(await relationsOf(a!, b!)).toEqual([]);
    }
  });

  it('an accept racing a crossed request accepts the request once, keeping its id (5 rounds)', async () => {
    for (let round = 0; round < 5; round++) {
      const [a, b] = await w.gamers(2);
      expectRequested(await w.request(a!, b!.id));
      const id = (await w.outgoing(a!)).body[0]!.id;
      const [accept, crossed] = await Promise.all([w.accept(b!, id), w.request(b!, a!.id)]);
      // exactly one of the two accepted; the other found the request gone (404) or answered (409)
      const statuses = { accept: accept.status, crossed: crossed.status };
      expect([{ accept: 200, crossed: 409 }, { accept: 404, crossed: 200 }]).toContainEqual(statuses);
      expect((await relationsOf(a!, b!)).map((r) => [r._id, r.status])).toEqual([[id, 'accepted']]);
      expect((await w.friends(a!)).body.map((e) => e.id)).toEqual([id]);
    }
  });

  it('a crossed request racing the cancel of the request it would accept: one outcome (10 rounds)', async () => {
    for (let round = 0; round < 10; round++) {
      const [a, b] = await w.gamers(2);
      expectRequested(await w.request(a!, b!.id));
      const id = (await w.outgoing(a!)).body[0]!.id;
      const [cancel, crossed] = await Promise.all([w.cancel(a!, id), w.request(b!, a!.id)]);
      const stored = (await relationsOf(a!, b!)).map((r) => ({ id: r._id, requester: r.requester, status: r.status }));
      if (cancel.status === 200) {
        // the crossed request found nothing left to accept (409: send again) or became B's own request
        if (crossed.status === 200) expect(stored).toEqual([{ id: expect.not.stringMatching(id), requester: b!.id, status: 'pending' }]);
        else expect({ crossed: crossed.status, stored }).toEqual({ crossed: 409, stored: [] });
      } else {
        expect({ cancel: cancel.status, crossed: crossed.status, stored }).toEqual({ cancel: 404, crossed: 200, stored: [{ id, requester: a!.id, status: 'accepted' }] });
      }
    }
  });

  it('an accept racing a block by either gamer leaves the pair without a relation (10 rounds)', async () => {
    for (let round = 0; round < 10; round++) {
      const [a, b] = await w.gamers(2);
      expectRequested(await w.request(a!, b!.id));
      const id = await w.incomingId(b!, a!);
      const [blocker, blocked] = round % 2 ? [a!, b!] : [b!, a!];
      const [accept, block] = await Promise.all([w.accept(b!, id), w.block(blocker, blocked.id)]);
      expectOk(block);
      expect([200, 404]).toContain(accept.status);
      expect(await relationsOf(a!, b!)).toEqual([]);
      expect((await w.friends(a!)).body).toEqual([]);
    }
  });

  it('an accept whose friendship a block ends while it counts friends answers notFound (so it is never announced after the blocked)', async () => {
    const models = await createModels(db);
    const lists = friendListRepository(models.friendLists, models.relations, { maxAgeMs: 3600_000 });
    const blocks = blockRepository(models.blocks, models.relations, lists, gamerDirectory(models.gamers, profileCache(100, 0)));
    // The accept's relations, whose first friend count runs `duringCount` after counting,
    // once, and after any relation read already in flight has answered (before 2026-11-28
    // the accept's last read of its relation ran beside the counts and missed the block).
    let duringCount: (() => Promise<unknown>) | undefined;
    const readsInFlight = new Set<Promise<unknown>>();
    const collection = new Proxy(models.relations.collection, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== 'function') return value;
        if (prop === 'findOne') {
          return (...args: unknown[]) => {
            const read = (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            readsInFlight.add(read);
            return read.finally(() => readsInFlight.delete(read));
          };
        }
        if (prop === 'aggregate') {
          // the friend counts: each an aggregation whose answer is awaited with toArray
          return (...args: unknown[]) => {
            const cursor = (value as (...a: unknown[]) => { toArray(): Promise<unknown> }).apply(target, args);
            return {
              async toArray() {
                const counts = await cursor.toArray();
                const run = duringCount;
                duringCount = undefined;
                if (run) {
                  await Promise.allSettled([...readsInFlight]);
                  await run();
                }
                return counts;
              },
            };
          };
        }
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
    const relationsModel = new Proxy(models.relations, {
      get: (target, prop, receiver) => (prop === 'collection' ? collection : (Reflect.get(target, prop, receiver) as unknown)),
    });
    const relations = relationRepository(relationsModel, models.blocks, lists, gamerDirectory(models.gamers, profileCache(100, 0)));

    for (const blockedBy of ['requester', 'addressee'] as const) {
      const [a, b] = await w.gamers(2);
      const id = (await w.request(a!, b!.id)).body.id;
      const [blocker, target] = blockedBy === 'requester' ? [a!, b!] : [b!, a!];
      let blocked: Awaited<ReturnType<typeof blocks.block>> | undefined;
      duringCount = async () => (blocked = await blocks.block(a!.app, blocker.id, target.id, new Date(), 1000));
      expect((await relations.accept(a!.app, id, b!.id, new Date(), 1000)).kind).toBe('notFound');
      // the block ended the friendship (its event names it), and nothing of it remains
      expect(blocked).toMatchObject({ kind: 'blocked', removed: { _id: id, status: 'accepted' } });
      expect(await relationsOf(a!, b!)).toEqual([]);
    }
  });

  /**
   * Relations whose new request runs `duringCheck.next` (once) while it checks itself, before
   * its directory read answers: the milliseconds in which a request a block refuses is stored.
   */
  /** The friendship service in this process over `relations`, keeping what it publishes. */
  async function serviceOver(relations: Awaited<ReturnType<typeof checkedLate>>['relations']) {
    const published: Array<{ type: FriendshipEventType; event: FriendshipEventInput }> = [];
    const service = friendshipService({
      repositories: { ...(await createRepositories(db, { maxAgeMs: 3600_000 }, profileCache(100, 0))), relations },
      publish: (type, event) => void published.push({ type, event }),
      limits: { maxFriends: 1000, maxPendingOutgoing: 100, maxBlocks: 1000, suggestionFriendsRead: 200, suggestionListRebuilds: 20 },
      registrations: registrationCache(),
      presence: { lastSeen: () => undefined, endedAt: () => undefined, now: () => Date.now() },
      onlineWindowMs: 60_000,
    });
    return { service, published };
  }

  async function checkedLate() {
    const models = await createModels(db);
    const lists = friendListRepository(models.friendLists, models.relations, { maxAgeMs: 3600_000 });
    const directory = gamerDirectory(models.gamers, profileCache(100, 0));
    /** `next`: run during the next check; `unknown`: that check answers the target unknown (a refusal) */
    const duringCheck: { next: (() => Promise<unknown>) | undefined; unknown?: boolean } = { next: undefined };
    const check = async (read: () => Promise<boolean>) => {
      const run = duringCheck.next;
      const unknown = duringCheck.unknown === true;
      duringCheck.next = undefined;
      duringCheck.unknown = undefined;
      await run?.();
      return unknown ? false : read();
    };
    const late: GamerLookup = {
      exists: (applicationId, gamerId) => check(() => directory.exists(applicationId, gamerId)),
      bothExist: (applicationId, one, other) => check(() => directory.bothExist(applicationId, one, other)),
    };
    return { relations: relationRepository(models.relations, models.blocks, lists, late), duringCheck };
  }

  it('a crossed request meeting a request across a standing block, while that one checks itself, is refused with 403 and makes no friendship', async () => {
    const { relations, duringCheck } = await checkedLate();
    for (const blocker of ['addressee', 'requester'] as const) {
      const [a, b] = await w.gamers(2);
      expectOk(await w.block(blocker === 'addressee' ? b! : a!, blocker === 'addressee' ? a!.id : b!.id));
      // A's request is stored and not yet refused when B's request crosses it
      let crossed: Awaited<ReturnType<typeof w.request>> | undefined;
      duringCheck.next = async () => (crossed = await w.request(b!, a!.id));
      const requested = await relations.request(pendingRequest(a!.app, a!.id, b!.id, uuidv7(), new Date()), 100);
      expect(requested.kind).toBe('blocked');
      // before the fix B accepted it (200 accepted, announced) and A's withdrawal then ended the friendship
      expectProblem(crossed!, 403, 'BLOCKED');
      expect(await relationsOf(a!, b!)).toEqual([]);
      expect((await w.friends(b!)).body).toEqual([]);
    }
  });

  it('a crossed request whose accept finds the request gone to a block written meanwhile answers 403, not 409', async () => {
    const { relations: real } = await checkedLate();
    const [a, b] = await w.gamers(2);
    const id = (await w.request(a!, b!.id)).body.id;
    // B's request found A's pending and read no block; A's block lands before B's accept
    const relations = Object.assign(Object.create(real) as typeof real, {
      accept: async (...args: Parameters<typeof real.accept>) => {
        expectOk(await w.block(a!, b!.id));
        return real.accept(...args);
      },
    });
    const { service, published } = await serviceOver(relations);
    const sent = await service.sendRequest({ applicationId: b!.app, gamerId: b!.id, displayName: b!.name, avatar: '' }, a!.id).catch((error: unknown) => error);
    expect(sent).toBeInstanceOf(AppError);
    expect(sent).toMatchObject({ status: 403, code: 'BLOCKED' });
    // the block cleared A's request
    expect((await relationsOf(a!, b!)).map((r) => r._id)).not.toContain(id);
    expect(await relationsOf(a!, b!)).toEqual([]);
    expect(published).toEqual([]);
  });

  it('a request across a standing block that its addressee accepts while it checks itself ends that friendship as a block does, and announces it', async () => {
    const { relations, duringCheck } = await checkedLate();
    const { service, published } = await serviceOver(relations);
    const [a, b] = await w.gamers(2);
    expectOk(await w.block(b!, a!.id));
    const blockId = (await w.blocked(b!)).body[0]!.id;
    // B sees A's request in their incoming list in those milliseconds, and accepts it
    let requestId = '';
    let accepted: Awaited<ReturnType<typeof w.accept>> | undefined;
    duringCheck.next = async () => {
      requestId = await w.incomingId(b!, a!);
      accepted = await w.accept(b!, requestId);
    };
    const sent = await service.sendRequest({ applicationId: a!.app, gamerId: a!.id, displayName: a!.name, avatar: '' }, b!.id).catch((error: unknown) => error);
    expect(sent).toBeInstanceOf(AppError);
    expect(sent).toMatchObject({ status: 403, code: 'BLOCKED' });
    // the accept stood when it answered (and announced accepted); the withdrawal ended it
    expectOk(accepted!);
    expect(await relationsOf(a!, b!)).toEqual([]);
    expect((await w.friends(a!)).body).toEqual([]);
    expect(await db.collection('friendlists').countDocuments({ applicationId: a!.app, friends: { $in: [a!.id, b!.id] } })).toBe(0);
    // announced as B's block ending a friendship: A is told the friendship ended, as by an unfriend
    expect(published).toEqual([
      {
        type: 'blocked',
        event: { applicationId: a!.app, friendshipId: blockId, actorId: b!.id, targetId: a!.id, removedRelation: { friendshipId: requestId, status: 'accepted', requesterId: a!.id } },
      },
    ]);
  });

  it('a refused request its addressee accepts while it checks itself answers the friendship (409 ALREADY_FRIENDS), and announces no request after the accept', async () => {
    const { relations, duringCheck } = await checkedLate();
    const { service, published } = await serviceOver(relations);
    const [a, b] = await w.gamers(2);
    // A's request is refused by its checks (here: its target read as unknown, as a refusal
    // over the pending limit would be), and B, seeing it meanwhile, accepts it
    let accepted: Awaited<ReturnType<typeof w.accept>> | undefined;
    duringCheck.unknown = true;
    duringCheck.next = async () => (accepted = await w.accept(b!, await w.incomingId(b!, a!)));
    const sent = await service.sendRequest({ applicationId: a!.app, gamerId: a!.id, displayName: a!.name, avatar: '' }, b!.id).catch((error: unknown) => error);
    expectOk(accepted!);
    expect(sent).toBeInstanceOf(AppError);
    expect(sent).toMatchObject({ status: 409, code: 'ALREADY_FRIENDS' });
    // the friendship stands, and nothing announced a request (the accept announced itself, on B's service)
    expect((await relationsOf(a!, b!)).map((r) => r.status)).toEqual(['accepted']);
    expect(published.map((p) => p.type)).toEqual([]);
  });

  it('a block racing a friend request always leaves the pair without a relation (10 rounds)', async () => {
    for (let round = 0; round < 10; round++) {
      const [a, b] = await w.gamers(2);
      const [blocked, requested] = await Promise.all([w.block(a!, b!.id), w.request(b!, a!.id)]);
      expectOk(blocked);
      expect([200, 403]).toContain(requested.status);
      expect(await relationsOf(a!, b!)).toEqual([]);
      expect((await w.incoming(a!)).body).toEqual([]);
      expect((await w.outgoing(b!)).body).toEqual([]);
    }
  });

  it('a block racing a request that starts 0-7 calls later leaves the pair without a relation (3 x 32 pairs)', async () => {
    for (let round = 0; round < 3; round++) {
      const pairs = await Promise.all(Array.from({ length: 32 }, () => w.gamers(2)));
      await Promise.all(pairs.map(([a, b], i) => blockRacingRequest(a!, b!, i % 8, i % 16 < 8 ? [b!, a!] : [a!, b!])));
    }
    async function blockRacingRequest(a: Gamer, b: Gamer, shift: number, [from, to]: [Gamer, Gamer]) {
      // each pair shifts its request by a few cheap calls, so across pairs the requests land
      // before, inside and after the block's own steps: ordering, not timing
      const laterRequest = async () => {
        for (let k = 0; k < shift; k++) await w.api('GET', '/healthz');
        return w.request(from, to.id);
      };
      const [blocked, requested] = await Promise.all([w.block(a, b.id), laterRequest()]);
      expectOk(blocked);
      expect([200, 403]).toContain(requested.status);
      expect(await relationsOf(a, b)).toEqual([]);
    }
  });

  it('a repeat request whose pending request is rejected or accepted while it checks answers the pair as it is now', async () => {
    const models = await createModels(db);
    const lists = friendListRepository(models.friendLists, models.relations, { maxAgeMs: 3600_000 });
    const directory = gamerDirectory(models.gamers, profileCache(100, 0));
    const plain = relationRepository(models.relations, models.blocks, lists, directory);
    /** relations whose repeat runs `beforeMark` right before it marks the request kept */
    const repeating = (beforeMark: () => Promise<unknown>) => relationRepository(
      new Proxy(models.relations, {
        get: (target, prop, receiver) => {
          const value = Reflect.get(target, prop, receiver) as unknown;
          if (prop !== 'updateOne') return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
          return async (...args: Parameters<typeof target.updateOne>) => {
            if (JSON.stringify(args[1]).includes('"kept":true')) await beforeMark();
            return target.updateOne(...args);
          };
        },
      }),
      models.blocks, lists, directory,
    );
    const now = () => new Date();

    // B rejects A's request between the repeat's checks and its mark: the repeat makes a new request
    const [a, b] = await w.gamers(2);
    const first = pendingRequest(a!.app, a!.id, b!.id, uuidv7(), now());
    expect((await plain.request(first, 100)).kind).toBe('requested');
    const rejected = await repeating(() => plain.reject(a!.app, first.id, b!.id)).request(pendingRequest(a!.app, a!.id, b!.id, uuidv7(), now()), 100);
    expect(rejected.kind).toBe('requested');
    expect((await relationsOf(a!, b!)).map((r) => r.status)).toEqual(['pending']);

    // B accepts it then: the repeat answers the friendship, not a pending request
    const [c, d] = await w.gamers(2);
    const second = pendingRequest(c!.app, c!.id, d!.id, uuidv7(), now());
    expect((await plain.request(second, 100)).kind).toBe('requested');
    const accepted = await repeating(() => plain.accept(c!.app, second.id, d!.id, now(), 1000)).request(pendingRequest(c!.app, c!.id, d!.id, uuidv7(), now()), 100);
    expect(accepted).toMatchObject({ kind: 'exists', relation: { id: second.id, status: 'accepted' } });
  });

  it.each([
    ['stands: both answers name it, its creator announces it', false],
    // the repeat read between the unblock and a new block's record, whose clearing of the pair has not run yet
    ['is refused when a new block stands: its creator announces nothing, the block\'s clearing removes it', true],
  ])('a request refused for a block that its repeat, reading after the unblock, kept %s', async (_title, blockedAgain) => {
    const models = await createModels(db);
    const lists = friendListRepository(models.friendLists, models.relations, { maxAgeMs: 3600_000 });
    const directory = gamerDirectory(models.gamers, profileCache(100, 0));
    const plain = relationRepository(models.relations, models.blocks, lists, directory);
    const [a, b] = await w.gamers(2);
    expectOk(await w.block(b!, a!.id));
    const blockId = (await w.blocked(b!)).body[0]!.id;
    // A's request reads B's block; before it withdraws itself B unblocks, and A's double tap
    // (reading no block) keeps the request and answers its id
    let repeat: Awaited<ReturnType<typeof plain.request>> | undefined;
    const creator = relationRepository(
      new Proxy(models.relations, {
        get: (target, prop, receiver) => {
          const value = Reflect.get(target, prop, receiver) as unknown;
          if (prop !== 'findOneAndDelete') return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
          return (...args: Parameters<typeof target.findOneAndDelete>) => {
            const run = (async () => {
              expectOk(await w.unblock(b!, blockId));
              repeat = await plain.request(pendingRequest(a!.app, a!.id, b!.id, uuidv7(), new Date()), 100);
              // B blocks again: the block's record is written, its clearing of the pair still to come
              if (blockedAgain) await db.collection('blocks').insertOne({ _id: uuidv7() as never, applicationId: a!.app, blocker: b!.id, blocked: a!.id, createdAt: new Date() });
            })();
            // mongoose's query, awaited by the caller with .lean(): run the twin first
            const query = target.findOneAndDelete(...args);
            return { lean: () => ({ then: (ok: (v: unknown) => unknown, ko: (e: unknown) => unknown) => run.then(() => query.lean()).then(ok, ko) }) };
          };
        },
      }),
      models.blocks, lists, directory,
    );
    const created = pendingRequest(a!.app, a!.id, b!.id, uuidv7(), new Date());
    const outcome = await creator.request(created, 100);
    expect(repeat).toMatchObject({ kind: 'exists', relation: { id: created.id, status: 'pending' } });
    // the request both answered is there (when blocked again, until the block's clearing)
    expect((await relationsOf(a!, b!)).map((r) => r._id)).toEqual([created.id]);
    if (blockedAgain) {
      // a 403, announced by nobody: a `requested` would tell B of a request from a gamer B blocks
      expect(outcome.kind).toBe('blocked');
    } else {
      // 'requested': the service announces it (until 2026-11-29 'blocked', 403, and nobody did)
      expect(outcome).toMatchObject({ kind: 'requested', request: { id: created.id } });
    }
  });

  it('concurrent identical blocks leave one block record', async () => {
    const [a, b] = await w.gamers(2);
    const responses = await Promise.all(Array.from({ length: 10 }, () => w.block(a!, b!.id)));
    for (const response of responses) expectOk(response);
    expect(await db.collection('blocks').countDocuments({ applicationId: a!.app, blocker: a!.id, blocked: b!.id })).toBe(1);
    expect((await w.blocked(a!)).body).toHaveLength(1);
  });

  it('a double tap blocking a friend announces the block once, with the friendship, whichever call clears the pair', async () => {
    const models = await createModels(db);
    const lists = friendListRepository(models.friendLists, models.relations, { maxAgeMs: 3600_000 });
    const real = gamerDirectory(models.gamers, profileCache(100, 0));
    // the first call's check after its write waits until the repeat has cleared the pair
    let firstChecking!: () => void;
    const checking = new Promise<void>((resolve) => (firstChecking = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const directory = { ...real, bothExist: async (...args: Parameters<typeof real.bothExist>) => {
      if (++calls === 1) {
        firstChecking();
        await released;
      }
      return real.bothExist(...args);
    } };
    const blocks = blockRepository(models.blocks, models.relations, lists, directory);
    const [a, b] = await w.gamers(2);
    await w.befriend(a!, b!);
    const first = blocks.block(a!.app, a!.id, b!.id, new Date(), 100);
    await checking;
    const repeat = await blocks.block(a!.app, a!.id, b!.id, new Date(), 100);
    release();
    const created = await first;
    expect([repeat.kind, created.kind]).toEqual(['alreadyBlocked', 'blocked']);
    const announcing = [repeat, created].filter((o) => 'announce' in o && o.announce);
    // before the fix both announced: the repeat with the friendship, the creator without
    expect(announcing.map((o) => 'removed' in o && o.removed?.status)).toEqual(['accepted']);
    expect(await relationsOf(a!, b!)).toEqual([]);
  });

  it('a block lifted before its creator marks it announced is announced, as its unblock is', async () => {
    const models = await createModels(db);
    const lists = friendListRepository(models.friendLists, models.relations, { maxAgeMs: 3600_000 });
    // the unblock runs just before the creator's mark (the one update of a new block)
    let beforeMark: (() => Promise<unknown>) | undefined;
    const blocksModel = new Proxy(models.blocks, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== 'function') return value;
        if (prop !== 'updateOne') return (value as (...a: unknown[]) => unknown).bind(target);
        return async (...args: unknown[]) => {
          const run = beforeMark;
          beforeMark = undefined;
          await run?.();
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const blocks = blockRepository(blocksModel, models.relations, lists, gamerDirectory(models.gamers, profileCache(100, 0)));
    const [a, b] = await w.gamers(2);
    // the unblock's outcome is read here, after the block: a failure inside the hook is taken
    // by the block's mark for "announce" and would not fail the test
    let unblocked: { kind: string } | undefined;
    beforeMark = async () => {
      const record = await db.collection('blocks').findOne({ applicationId: a!.app, blocker: a!.id, blocked: b!.id });
      if (record) unblocked = await blocks.unblock(a!.app, String(record._id), a!.id);
    };
    const outcome = await blocks.block(a!.app, a!.id, b!.id, new Date(), 100);
    // the race ran: the hook was taken, and the unblock went through before the mark
    expect(beforeMark).toBeUndefined();
    expect(unblocked).toMatchObject({ kind: 'unblocked' });
    expect(await db.collection('blocks').countDocuments({ applicationId: a!.app, blocker: a!.id, blocked: b!.id })).toBe(0);
    // before the fix: not announced, while its unblock was
    expect(outcome).toMatchObject({ kind: 'blocked', announce: true });
  });
});
