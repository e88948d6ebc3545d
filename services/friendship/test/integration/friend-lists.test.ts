import type { Gamer } from '@gfts/testkit';
import mongoose, { type Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockRepository } from '../../src/repository/blocks.ts';
import { friendListRepository } from '../../src/repository/friend-lists.ts';
import { gamerErasure } from '../../src/repository/gamer-erasure.ts';
import { profileCache } from '../../src/profile-cache.ts';
import { createRepositories, type FriendshipRepositories } from '../../src/repository/index.ts';
import { createModels, type RelationDoc } from '../../src/repository/models.ts';
import { gamerDirectory } from '../../src/repository/gamers.ts';
import { relationRepository } from '../../src/repository/relations.ts';
import { startFriendshipStack, type FriendshipStack } from '../support/stack.ts';
import { expectOk, world } from '../support/world.ts';

/*
 * The per-gamer friend-id lists behind suggestions and mutual friends (docs/friendship.md,
 * "Friend-id lists"): they follow every change of a friendship, are rebuilt from the
 * relations when missing, not built, or old, and what a crash between a relation write and
 * its list update leaves wrong (simulated by editing the list documents directly, or by a
 * list model that refuses writes) heals.
 */
describe('friend-id lists', () => {
  let stack: FriendshipStack;
  let w: ReturnType<typeof world>;
  let db: Connection;
  let repos: FriendshipRepositories;
  type ListDoc = { _id: string; applicationId: string; gamerId: string; friends: string[]; version: number; builtAt?: Date };
  const lists = () => db.collection<ListDoc>('friendlists');

  beforeAll(async () => {
    stack = await startFriendshipStack();
    w = world(stack);
    db = await mongoose.createConnection(stack.databaseUrl).asPromise();
    repos = await createRepositories(db, { maxAgeMs: 3600_000 }, profileCache(1, 0));
  });
  afterAll(async () => {
    await db?.close();
    await stack?.close();
  });

  const listOf = (who: Gamer) => lists().findOne({ _id: `${who.app}:${who.id}` });
  const friendsInList = async (who: Gamer) => ((await listOf(who))?.friends ?? []).slice().sort();
  const ids = (...gamers: Gamer[]) => gamers.map((g) => g.id).sort();
  const suggested = async (who: Gamer) => Object.fromEntries((await w.suggestions(who, '?limit=100')).body.map((s) => [s.user.id, s.mutualFriends]));

  /** me - f1, f2, f3; f1 - x, y; f2 - x; f3 - x. So x has 3 mutual friends with me, y 1. */
  async function neighbourhood() {
    const [me, f1, f2, f3, x, y] = await w.gamers(6);
    for (const [a, b] of [[me, f1], [me, f2], [me, f3], [f1, x], [f1, y], [f2, x], [f3, x]] as const) await w.befriend(a!, b!);
    return { me: me!, f1: f1!, f2: f2!, f3: f3!, x: x!, y: y! };
  }

  it('follow accept, unfriend and a block that ends a friendship, on both sides', async () => {
    const n = await neighbourhood();
    // written by the accepts themselves (not built from the relations yet: no builtAt)
    expect(await friendsInList(n.me)).toEqual(ids(n.f1, n.f2, n.f3));
    expect(await friendsInList(n.x)).toEqual(ids(n.f1, n.f2, n.f3));
    expect(await listOf(n.me)).not.toHaveProperty('builtAt');
    expect(await suggested(n.me)).toEqual({ [n.x.id]: 3, [n.y.id]: 1 });
    // the read rebuilt the lists it used from the relations: same friends, now marked built
    expect((await listOf(n.me))?.builtAt).toBeInstanceOf(Date);
    expect(await friendsInList(n.f1)).toEqual(ids(n.me, n.x, n.y));

    expectOk(await w.unfriend(n.me, await w.friendshipId(n.me, n.f2)));
    expect(await friendsInList(n.me)).toEqual(ids(n.f1, n.f3));
    expect(await friendsInList(n.f2)).toEqual(ids(n.x));
    expect(await suggested(n.me)).toEqual({ [n.x.id]: 2, [n.y.id]: 1 });

    // x blocks f3: their friendship ends, so f3 no longer links me to x
    expectOk(await w.block(n.x, n.f3.id));
    expect(await friendsInList(n.x)).toEqual(ids(n.f1, n.f2));
    expect(await friendsInList(n.f3)).toEqual(ids(n.me));
    expect(await suggested(n.me)).toEqual({ [n.x.id]: 1, [n.y.id]: 1 });
    expect((await w.mutual(n.me, n.x.id)).body.map((u) => u.id)).toEqual([n.f1.id]);

    // befriending again after unfriending puts them back
    await w.befriend(n.f2, n.me);
    expect(await friendsInList(n.me)).toEqual(ids(n.f1, n.f2, n.f3));
    expect(await suggested(n.me)).toEqual({ [n.x.id]: 2, [n.y.id]: 1 });
  });

  it('a request and a block naming a gamer, made while the gamer is erased, do not outlive the erasure', async () => {
    const [x, g] = await w.gamers(2);
    const models = await createModels(db);
    const lists = friendListRepository(models.friendLists, models.relations, { maxAgeMs: 3600_000 });
    // X asks G and blocks G after the erasure deleted G's relations and blocks, before it goes on
    const answers: number[] = [];
    const pausing = {
      ...lists,
      forget: async (applicationId: string, gamerId: string) => {
        answers.push((await w.request(x!, g!.id)).status, (await w.block(x!, g!.id)).status);
        return lists.forget(applicationId, gamerId);
      },
    };
    await gamerErasure(models, pausing, profileCache(1, 0)).erase(g!.app, g!.id);
    // both found G gone from the directory: refused as for a gamer never known, nothing stored
    expect(answers).toEqual([404, 404]);
    expect(await db.collection('relations').countDocuments({ applicationId: g!.app, $or: [{ requester: g!.id }, { addressee: g!.id }] })).toBe(0);
    expect(await db.collection('blocks').countDocuments({ applicationId: g!.app, $or: [{ blocker: g!.id }, { blocked: g!.id }] })).toBe(0);
  });

  it('leave no trace of an erased gamer, also when an erasure interrupted after the relations is run again', async () => {
    const n = await neighbourhood();
    await w.suggestions(n.me); // lists built
    const app = n.me.app;
    await repos.erasure.erase(app, n.x.id);
    expect(await listOf(n.x)).toBeNull();
    for (const f of [n.f1, n.f2, n.f3]) expect(await friendsInList(f)).not.toContain(n.x.id);
    expect(await suggested(n.me)).toEqual({ [n.y.id]: 1 });

    // y's erasure interrupted after deleting the relations (step 3): y's own list still
    // names f1, so running it again takes y out of f1's list too
    await db.collection('relations').deleteMany({ applicationId: app, $or: [{ requester: n.y.id }, { addressee: n.y.id }] });
    expect(await friendsInList(n.f1)).toContain(n.y.id);
    await repos.erasure.erase(app, n.y.id);
    expect(await friendsInList(n.f1)).toEqual(ids(n.me));
    expect(await listOf(n.y)).toBeNull();
    expect(await suggested(n.me)).toEqual({});
    // and again: nothing more to do
    await repos.erasure.erase(app, n.y.id);
    expect(await listOf(n.y)).toBeNull();
  });

  it('rebuilds missing lists from the relations on read, and a list made only of changes is not taken as complete', async () => {
    const n = await neighbourhood();
    await lists().deleteMany({ applicationId: n.me.app });
    expect(await suggested(n.me)).toEqual({ [n.x.id]: 3, [n.y.id]: 1 });
    expect(await friendsInList(n.f1)).toEqual(ids(n.me, n.x, n.y));
    expect((await listOf(n.f1))?.builtAt).toBeInstanceOf(Date);

    // f1's list gone, then a new friendship of f1: the change creates a list of one friend,
    // marked not built, and the next read rebuilds it instead of trusting it
    await lists().deleteOne({ _id: `${n.f1.app}:${n.f1.id}` });
    const [z] = await w.gamers(1, n.me.app, 'Zed');
    await w.befriend(n.f1, z!);
    expect(await listOf(n.f1)).toMatchObject({ friends: [z!.id] });
    expect(await listOf(n.f1)).not.toHaveProperty('builtAt');
    expect(await suggested(n.me)).toEqual({ [n.x.id]: 3, [n.y.id]: 1, [z!.id]: 1 });
    expect(await friendsInList(n.f1)).toEqual(ids(n.me, n.x, n.y, z!));
    expect((await w.mutual(n.me, n.x.id)).body.map((u) => u.id).sort()).toEqual(ids(n.f1, n.f2, n.f3));
  });

  it('heals what a crash between a relation write and its list update left wrong, once the list is rebuilt', async () => {
    const n = await neighbourhood();
    await w.suggestions(n.me);
    // as if the process died after f3 and x became friends, before the list update: f3's
    // list misses x; and after f1 and y stopped being friends: f1's list still has y
    await lists().updateOne({ _id: `${n.f3.app}:${n.f3.id}` }, { $pull: { friends: n.x.id } });
    await db.collection('relations').deleteOne({ applicationId: n.f1.app, requester: n.f1.id, addressee: n.y.id });
    // a list built within FRIEND_LIST_MAX_AGE_S is used as it is: the bounded staleness
    expect(await suggested(n.me)).toEqual({ [n.x.id]: 2, [n.y.id]: 1 });
    // once it is that old, the next read rebuilds it from the relations
    const old = new Date(Date.now() - 2 * 3600_000);
    await lists().updateMany({ applicationId: n.me.app }, { $set: { builtAt: old } });
    expect(await suggested(n.me)).toEqual({ [n.x.id]: 3 });
    expect(await friendsInList(n.f3)).toEqual(ids(n.me, n.x));
    expect(await friendsInList(n.f1)).toEqual(ids(n.me, n.x));
  });

  it('a rebuild never overwrites a change that raced it', async () => {
    const models = await createModels(db);
    // The rebuild's relation read, with a friendship accepted right after it and before
    // the rebuild writes: that accept's relation is not in what the rebuild read, but its
    // list update lands before the rebuild's write.
    // friendEdgesIn makes two relation reads at once; the race runs when both have answered
    let race: (() => Promise<void>) | undefined;
    let answered = 0;
    const raceAfterTheReads = (run: () => Promise<unknown>) => {
      answered = 0;
      race = async () => void (await run());
    };
    const relations = new Proxy(models.relations, {
      get(target, prop, receiver) {
        if (prop !== 'find') return Reflect.get(target, prop, receiver) as unknown;
        return (...args: Parameters<typeof target.find>) => {
          const query = target.find(...args);
          if (!race) return query;
          return {
            lean: async () => {
              const rows = await query.lean();
              const run = race;
              if (run && ++answered === 2) {
                race = undefined;
                await run();
              }
              return rows;
            },
          };
        };
      },
    }) as typeof models.relations & { find: (...args: unknown[]) => { lean<T = RelationDoc[]>(): Promise<T> } };
    const racingLists = friendListRepository(models.friendLists, relations, { maxAgeMs: 3600_000 });

    const n = await neighbourhood();
    const [z1, z2] = await w.gamers(2, n.me.app, 'Racer');
    // an old list: the read rebuilds it, and a racing accept adds z1
    await w.suggestions(n.me);
    await lists().updateOne({ _id: `${n.f1.app}:${n.f1.id}` }, { $set: { builtAt: new Date(Date.now() - 2 * 3600_000) } });
    raceAfterTheReads(() => w.befriend(n.f1, z1!));
    expect((await racingLists.friendsOf(n.me.app, [n.f1.id])).get(n.f1.id)!.sort()).toEqual(ids(n.me, n.x, n.y));
    expect(race).toBeUndefined();
    expect(await friendsInList(n.f1)).toEqual(ids(n.me, n.x, n.y, z1!));
    // no list at all: the racing accept creates a not-built one, which the rebuild leaves
    await lists().deleteOne({ _id: `${n.f2.app}:${n.f2.id}` });
    raceAfterTheReads(() => w.befriend(z2!, n.f2));
    await racingLists.friendsOf(n.me.app, [n.f2.id]);
    expect(race).toBeUndefined();
    expect(await listOf(n.f2)).toMatchObject({ friends: [z2!.id] });
    expect(await listOf(n.f2)).not.toHaveProperty('builtAt');
    // and the next read rebuilds both from the relations
    expect(await suggested(n.me)).toEqual({ [n.x.id]: 3, [n.y.id]: 1, [z1!.id]: 1, [z2!.id]: 1 });
    expect(await friendsInList(n.f2)).toEqual(ids(n.me, n.x, z2!));
  });

  it('a friendship ended while its accept updated the lists leaves neither gamer in the other\'s list', async () => {
    const models = await createModels(db);
    const lists = friendListRepository(models.friendLists, models.relations, { maxAgeMs: 3600_000 });
    const directory = gamerDirectory(models.gamers, profileCache(100, 0));
    /** Relations whose list update `step` first runs what `interleave.next` holds (once). */
    const interleaved = (step: 'linked' | 'unlinked') => {
      const interleave: { next: (() => Promise<unknown>) | undefined } = { next: undefined };
      const late = {
        ...lists,
        [step]: async (...args: Parameters<typeof lists.linked>) => {
          const run = interleave.next;
          interleave.next = undefined;
          await run?.();
          return lists[step](...args);
        },
      };
      return { relations: relationRepository(models.relations, models.blocks, late, directory), interleave };
    };
    const blocks = blockRepository(models.blocks, models.relations, lists, directory);
    const plainRelations = relationRepository(models.relations, models.blocks, lists, directory);

    // what ends the friendship runs after the accept's relation write, before its list update
    const { relations, interleave: beforeLink } = interleaved('linked');
    const [a, b, c, d] = await w.gamers(4);
    const blocked = await w.request(a!, b!.id);
    beforeLink.next = () => blocks.block(a!.app, a!.id, b!.id, new Date(), 1000);
    // the accept finds the friendship gone: it answers so, and announces nothing
    expect((await relations.accept(a!.app, blocked.body.id, b!.id, new Date(), 1000)).kind).toBe('notFound');
    expect(beforeLink.next).toBeUndefined();
    const unfriended = await w.request(c!, d!.id);
    beforeLink.next = () => plainRelations.unfriend(c!.app, unfriended.body.id, c!.id);
    expect((await relations.accept(c!.app, unfriended.body.id, d!.id, new Date(), 1000)).kind).toBe('notFound');
    expect(beforeLink.next).toBeUndefined();
    for (const gamer of [a!, b!, c!, d!]) expect(await friendsInList(gamer)).toEqual([]);
    expect((await w.friends(c!)).body).toEqual([]);

    // an accept refused for the friend limit takes the pair it linked out again
    const [e, f] = await w.gamers(2);
    const refused = await w.request(e!, f!.id);
    expect((await plainRelations.accept(e!.app, refused.body.id, f!.id, new Date(), 0)).kind).toBe('friendLimit');
    expect(await friendsInList(e!)).toEqual([]);
    expect(await friendsInList(f!)).toEqual([]);

    // ... unless an accept retried between its undo and that unlink made them friends
    const { relations: refusing, interleave: beforeUnlink } = interleaved('unlinked');
    const [g, h] = await w.gamers(2);
    const retried = await w.request(g!, h!.id);
    beforeUnlink.next = () => plainRelations.accept(g!.app, retried.body.id, h!.id, new Date(), 1000);
    expect((await refusing.accept(g!.app, retried.body.id, h!.id, new Date(), 0)).kind).toBe('friendLimit');
    expect(beforeUnlink.next).toBeUndefined();
    expect((await w.friends(g!)).body.map((friend) => friend.user.id)).toEqual([h!.id]);
    expect(await friendsInList(g!)).toEqual([h!.id]);
    expect(await friendsInList(h!)).toEqual([g!.id]);
  });

  it('an unfriend whose list update lands after the pair made friends again leaves each in the other\'s list', async () => {
    const models = await createModels(db);
    const bound = (target: object, prop: string | symbol) => {
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    };
    // the next list update first runs what `late.next` holds (once): a slow store, say
    const late: { next: (() => Promise<unknown>) | undefined } = { next: undefined };
    const slowCollection = new Proxy(models.friendLists.collection, {
      get(target, prop) {
        if (prop !== 'bulkWrite') return bound(target, prop);
        return async (...args: Parameters<typeof target.bulkWrite>) => {
          const run = late.next;
          late.next = undefined;
          await run?.();
          return target.bulkWrite(...args);
        };
      },
    });
    const slowLists = new Proxy(models.friendLists, { get: (target, prop, receiver) => (prop === 'collection' ? slowCollection : (Reflect.get(target, prop, receiver) as unknown)) });
    const lists = friendListRepository(slowLists, models.relations, { maxAgeMs: 3600_000 });
    const relations = relationRepository(models.relations, models.blocks, lists, gamerDirectory(models.gamers, profileCache(100, 0)));
    const [a, b] = await w.gamers(2);
    await w.befriend(a!, b!);
    const first = await w.friendshipId(a!, b!);
    // A unfriends B; before that call's list update lands, they make friends again (the service, its own lists)
    late.next = () => w.befriend(b!, a!);
    expect((await relations.unfriend(a!.app, first, a!.id)).kind).toBe('removed');
    expect(late.next).toBeUndefined();
    expect((await w.friends(a!)).body.map((friend) => friend.user.id)).toEqual([b!.id]);
    // before the fix the late $pull took them out of both lists until they aged
    expect(await friendsInList(a!)).toEqual([b!.id]);
    expect(await friendsInList(b!)).toEqual([a!.id]);
  });

  it('two refused accepts of one request, interleaved, leave the pair out of the lists', async () => {
    const models = await createModels(db);
    const lists = friendListRepository(models.friendLists, models.relations, { maxAgeMs: 3600_000 });
    const directory = gamerDirectory(models.gamers, profileCache(100, 0));
    const withCollection = (collection: unknown) =>
      new Proxy(models.relations, { get: (target, prop, receiver) => (prop === 'collection' ? collection : (Reflect.get(target, prop, receiver) as unknown)) });
    const bound = (target: object, prop: string | symbol) => {
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    };
    // the second accept holds once it has counted, until `release`
    let counted!: () => void;
    const secondCounted = new Promise<void>((resolve) => (counted = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const holding = new Proxy(models.relations.collection, {
      get(target, prop) {
        if (prop !== 'aggregate') return bound(target, prop);
        return (...args: Parameters<typeof target.aggregate>) => {
          const cursor = target.aggregate(...args);
          return {
            async toArray() {
              const counts = await cursor.toArray();
              counted();
              await released;
              return counts;
            },
          };
        };
      },
    });
    const second = relationRepository(withCollection(holding), models.blocks, lists, directory);
    // the first accept, refused: the second starts after it put the request back and before it
    // unlinks; the first's read of the relation answers (accepted, by the second) and only then
    // lets the second finish (refused too: it puts the request back and unlinks)
    const [g, h] = await w.gamers(2);
    const id = (await w.request(g!, h!.id)).body.id;
    let secondAccept: ReturnType<typeof second.accept> | undefined;
    // the first's lists read the pair's relation after their unlink (friend-lists.ts, unlinked):
    // that read answers (accepted, by the second) and only then lets the second finish
    let readWhileHeld = true;
    const readingLate = new Proxy(models.relations, {
      get(target, prop, receiver) {
        if (prop !== 'exists') return Reflect.get(target, prop, receiver) as unknown;
        return async (...args: Parameters<typeof target.exists>) => {
          const found = await target.exists(...args);
          if (secondAccept && readWhileHeld) {
            readWhileHeld = false;
            release();
            await secondAccept;
          }
          return found;
        };
      },
    });
    const firstLists = friendListRepository(models.friendLists, readingLate, { maxAgeMs: 3600_000 });
    const startingSecond = {
      ...firstLists,
      async unlinked(...args: Parameters<typeof lists.unlinked>) {
        if (!secondAccept) {
          secondAccept = second.accept(g!.app, id, h!.id, new Date(), 0);
          await secondCounted;
        }
        return firstLists.unlinked(...args);
      },
    };
    const first = relationRepository(models.relations, models.blocks, startingSecond, directory);
    expect((await first.accept(g!.app, id, h!.id, new Date(), 0)).kind).toBe('friendLimit');
    expect((await secondAccept!).kind).toBe('friendLimit');
    expect(await db.collection('relations').findOne({ _id: id as never })).toMatchObject({ status: 'pending' });
    // before the fix the first linked the pair again after the second had unlinked it
    expect(await friendsInList(g!)).toEqual([]);
    expect(await friendsInList(h!)).toEqual([]);
  });

  it('a failed list update does not fail the friendship change; the list is rebuilt later', async () => {
    const models = await createModels(db);
    const failures: unknown[] = [];
    // the lists' writes go through the driver's collection (friend-lists.ts, apply)
    const collectionDown = new Proxy(models.friendLists.collection, {
      get(target, prop) {
        if (prop === 'bulkWrite') return () => Promise.reject(new Error('store unavailable'));
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const listsDown = new Proxy(models.friendLists, {
      get: (target, prop, receiver) => (prop === 'collection' ? collectionDown : Reflect.get(target, prop, receiver) as unknown),
    });
    const failingLists = friendListRepository(listsDown, models.relations, { maxAgeMs: 3600_000, onChangeFailed: (error) => failures.push(error) });
    const relations = relationRepository(models.relations, models.blocks, failingLists, gamerDirectory(models.gamers, profileCache(100, 0)));

    const [a, b, c] = await w.gamers(3);
    await w.befriend(b!, c!);
    const requested = await w.request(a!, b!.id);
    const outcome = await relations.accept(a!.app, requested.body.id, b!.id, new Date(), 1000);
    expect(outcome.kind).toBe('accepted');
    expect(failures).toHaveLength(1);
    // the friendship stands; b's list (made by the b-c accept) misses a, as after a crash
    expect((await w.friends(a!)).body.map((f) => f.user.id)).toEqual([b!.id]);
    expect(await friendsInList(b!)).toEqual(ids(c!));
    // b's list was never built from the relations, so the next read rebuilds it
    expect(await suggested(a!)).toEqual({ [c!.id]: 1 });
    expect(await friendsInList(b!)).toEqual(ids(a!, c!));
  });

  it('never leak another application, nor across a block', async () => {
    const n = await neighbourhood();
    // the same gamer ids in another application, with friendships of their own
    const twinMe = await w.elsewhere(n.me);
    const elsewhere = twinMe.app;
    const twinF1 = await w.elsewhere(n.f1, elsewhere);
    const [stranger] = await w.gamers(1, elsewhere, 'Stranger');
    await w.befriend(twinMe, twinF1);
    await w.befriend(twinF1, stranger!);
    expect(await suggested(n.me)).toEqual({ [n.x.id]: 3, [n.y.id]: 1 });
    expect(await suggested(twinMe)).toEqual({ [stranger!.id]: 1 });
    expect((await lists().findOne({ _id: `${elsewhere}:${n.f1.id}` }))?.friends.sort()).toEqual([n.me.id, stranger!.id].sort());

    // me blocks y: y stays out of my suggestions, and I of y's, though f1 links us
    expectOk(await w.block(n.me, n.y.id));
    expect(Object.keys(await suggested(n.me))).toEqual([n.x.id]);
    expect(Object.keys(await suggested(n.y))).not.toContain(n.me.id);
  });
});
