import { countStoreCommands, infra, uniqueSuffix, type Gamer, type StoreCommandCounter } from '@gfts/testkit';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFriendshipStack, type FriendshipStack } from '../support/stack.ts';
import { expectOk, expectRequested, world } from '../support/world.ts';

/*
 * How many store commands the hot requests cost, counted on the wire between the service
 * and its store (issue #16 items 3 and 4; docs/friendship.md, "Requests and accepts count
 * only after the write"). A change of these numbers is a change of the requests' cost: make
 * it on purpose, here and in the docs.
 */
describe('store round trips per request', () => {
  let counter: StoreCommandCounter;
  let stack: FriendshipStack;
  let w: ReturnType<typeof world>;
  beforeAll(async () => {
    counter = await countStoreCommands(infra().mongoUrl);
    stack = await startFriendshipStack({ MONGO_URL: counter.url(`friendship_${uniqueSuffix()}`) });
    w = world(stack);
  });
  afterAll(async () => {
    await stack?.close();
    await counter?.close();
  });

  /** The store commands one call sends, after every gamer it names has called once (registration is not counted). */
  const commandsOf = (call: () => Promise<unknown>) => counter.during(call);

  it('reads a page of the friend list in three (the two sides of the relations, then the friends\' profiles), and in two while it holds those profiles', async () => {
    const app = randomUUID();
    const [me, ...friends] = await w.gamers(5, app);
    // friendships on both sides of the relation: two asked by me, two asking me
    for (const [i, friend] of friends.entries()) {
      if (i % 2 === 0) await w.befriend(me!, friend);
      else await w.befriend(friend, me!);
    }
    let page: Awaited<ReturnType<typeof w.friends>> | undefined;
    expect(await commandsOf(async () => (page = await w.friends(me!)))).toEqual({ 'find gamers': 1, 'find relations': 2 });
    expect(page!.body.map((e) => e.user.id).sort()).toEqual(friends.map((f) => f.id).sort());
    // the same page again within PROFILE_CACHE_TTL_MS (5 s): the profiles come from the cache
    expect(await commandsOf(async () => (page = await w.friends(me!)))).toEqual({ 'find relations': 2 });
    expect(page!.body.map((e) => e.user.id).sort()).toEqual(friends.map((f) => f.id).sort());
  });

  it('writes a friend request in four and its accept in five, when tokens carry name and picture', async () => {
    const app = randomUUID();
    const a = await w.join(app, 'Ann', { picture: 'https://cdn.example/ann.png' });
    const b = await w.join(app, 'Ben', { picture: 'https://cdn.example/ben.png' });
    let id = '';
    // the upsert, then in one round: the target in the directory, blocks, the pending count
    expect(
      await commandsOf(async () => {
        const requested = await w.request(a, b.id);
        expectRequested(requested, 'pending');
        id = requested.body.id;
      }),
    ).toEqual({ 'aggregate relations': 1, 'find blocks': 1, 'find gamers': 1, 'findAndModify relations': 1 });
    // the accept, both friend-id lists in one bulk write, then both gamers' friends counted
    // in one read per side and the relation read again (a block or unfriend may have ended it)
    expect(await commandsOf(async () => expectOk(await w.accept(b, id)))).toEqual({ 'aggregate relations': 2, 'find relations': 1, 'findAndModify relations': 1, 'update friendlists': 1 });
  });

  it('costs no more when the token has no picture: the event names the actor as their registration\'s write found them stored', async () => {
    const [a, b] = (await w.gamers(2)) as [Gamer, Gamer];
    let id = '';
    expect(
      await commandsOf(async () => {
        id = (await w.request(a, b.id)).body.id;
      }),
    ).toEqual({ 'aggregate relations': 1, 'find blocks': 1, 'find gamers': 1, 'findAndModify relations': 1 });
    expect(await commandsOf(async () => expectOk(await w.accept(b, id)))).toEqual({ 'aggregate relations': 2, 'find relations': 1, 'findAndModify relations': 1, 'update friendlists': 1 });
  });

  it('answers the blocked list in one', async () => {
    const [a] = (await w.gamers(1)) as [Gamer];
    expect(await commandsOf(() => w.blocked(a))).toEqual({ 'find blocks': 1 });
  });
});
