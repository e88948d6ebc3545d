import type { Gamer } from '@gfts/testkit';
import { randomUUID } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFriendshipStack, type FriendshipStack } from '../support/stack.ts';
import { expectOk, expectProblem, expectRequested, world } from '../support/world.ts';

describe('friend suggestions and mutual friends', () => {
  let stack: FriendshipStack;
  let w: ReturnType<typeof world>;
  beforeAll(async () => {
    stack = await startFriendshipStack();
    w = world(stack);
  });
  afterAll(async () => stack?.close());

  /**
   * me has friends f1, f2, f3 (f1 and f2 are friends too). Friends of friends: x (of f1,
   * f2, f3), y (of f1), z (of f2); and six gamers who must never be suggested although
   * f1 is their friend: p (me asked them), q (asked me), bl (me blocks), br (blocks me).
   */
  async function neighbourhood() {
    const app = randomUUID();
    const [me, f1, f2, f3, x, y, z, p, q, bl, br] = await Promise.all(
      ['Me', 'F1', 'F2', 'F3', 'Xavier', 'Yann', 'Zoe', 'Pending out', 'Pending in', 'Blocked', 'Blocker'].map((name) => w.join(app, name)),
    );
    const pairs: Array<[Gamer, Gamer]> = [
      [me!, f1!], [me!, f2!], [me!, f3!], [f1!, f2!],
      [f1!, x!], [f2!, x!], [f3!, x!], [f1!, y!], [f2!, z!],
      [f1!, p!], [f1!, q!], [f1!, bl!], [f1!, br!],
    ];
    for (const [a, b] of pairs) await w.befriend(a, b);
    expectRequested(await w.request(me!, p!.id), 'pending');
    expectRequested(await w.request(q!, me!.id), 'pending');
    expectOk(await w.block(me!, bl!.id));
    expectOk(await w.block(br!, me!.id));
    return { app, me: me!, f1: f1!, f2: f2!, f3: f3!, x: x!, y: y!, z: z!, p: p!, q: q!, bl: bl!, br: br! };
  }

  it('ranks friends of friends by mutual friends, leaving out self, friends, pending requests and blocks either way', async () => {
    const n = await neighbourhood();
    const response = await w.suggestions(n.me);
    expect(response.status).toBe(200);
    const [yz1, yz2] = [n.y, n.z].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(response.body).toEqual([
      { user: { id: n.x.id, displayName: 'Xavier', avatar: '' }, mutualFriends: 3 },
      { user: { id: yz1!.id, displayName: yz1!.name, avatar: '' }, mutualFriends: 1 },
      { user: { id: yz2!.id, displayName: yz2!.name, avatar: '' }, mutualFriends: 1 },
    ]);
    expect((await w.suggestions(n.me, '?limit=1')).body.map((s) => s.user.id)).toEqual([n.x.id]);
    // the gamer who blocks me is not suggested either when I look from their friend's side
    expect((await w.suggestions(n.br)).body.map((s) => s.user.id)).not.toContain(n.me.id);
    // nor am I to the gamer I block
    expect((await w.suggestions(n.bl)).body.map((s) => s.user.id)).not.toContain(n.me.id);
  });

  it('goes on past the best-ranked candidates the checks leave out (a pending request, a blocker of the caller)', async () => {
    const app = randomUUID();
    const [me, f1, f2, f3, asker, blocker, c, d] = await Promise.all(['Me', 'F1', 'F2', 'F3', 'Asker', 'Blocker', 'Cleo', 'Dan'].map((name) => w.join(app, name)));
    // asker and blocker have three friends in common with me, Cleo two, Dan one
    const pairs: Array<[Gamer, Gamer]> = [[me!, f1!], [me!, f2!], [me!, f3!], [f1!, asker!], [f2!, asker!], [f3!, asker!], [f1!, blocker!], [f2!, blocker!], [f3!, blocker!], [f1!, c!], [f2!, c!], [f3!, d!]];
    for (const [a, b] of pairs) await w.befriend(a, b);
    expectRequested(await w.request(asker!, me!.id), 'pending');
    expectOk(await w.block(blocker!, me!.id));
    const ranked = (query: string) => w.suggestions(me!, query).then((r) => r.body.map((s) => [s.user.displayName, s.mutualFriends]));
    // limit 1 checks the first two candidates (both left out), then the next four
    expect(await ranked('?limit=1')).toEqual([['Cleo', 2]]);
    expect(await ranked('?limit=2')).toEqual([['Cleo', 2], ['Dan', 1]]);
    expect(await ranked('')).toEqual([['Cleo', 2], ['Dan', 1]]);
  });

  it('leaves out a gamer the friend-id lists still name but the directory no longer holds (a drifted list)', async () => {
    const n = await neighbourhood();
    const db = await mongoose.createConnection(stack.databaseUrl).asPromise();
    try {
      // x gone from the directory while f1's, f2's and f3's lists still name them (a crash mid-erasure)
      await db.collection('gamers').deleteOne({ applicationId: n.app, gamerId: n.x.id });
    } finally {
      await db.close();
    }
    expect((await w.suggestions(n.me)).body.map((s) => s.user.id)).not.toContain(n.x.id);
    // f1 and f2 have me and x in common: only me is shown
    expect((await w.mutual(n.f1, n.f2.id)).body.map((u) => u.id)).toEqual([n.me.id]);
  });

  it('stays inside the application: a friend of a friend of the same gamer id elsewhere is not suggested', async () => {
    const n = await neighbourhood();
    const twin = await w.elsewhere(n.f1);
    const [stranger] = await w.gamers(1, twin.app, 'Elsewhere');
    await w.befriend(twin, stranger!);
    const ids = (await w.suggestions(n.me, '?limit=100')).body.map((s) => s.user.id);
    expect(ids).not.toContain(stranger!.id);
    expect(ids).toHaveLength(3);
  });

  it('answers an empty list to a gamer without friends, and 400 to a bad limit', async () => {
    const [alone] = await w.gamers(1);
    expect((await w.suggestions(alone!)).body).toEqual([]);
    for (const q of ['?limit=0', '?limit=101', '?limit=x', '?other=1']) expectProblem(await w.suggestions(alone!, q), 400, 'VALIDATION_FAILED');
    expect((await w.suggestions(alone!, '?limit=100')).status).toBe(200);
  });

  it('lists mutual friends as user summaries, by display name', async () => {
    const n = await neighbourhood();
    const response = await w.mutual(n.me, n.x.id);
    expect(response.status).toBe(200);
    expect(response.body).toEqual([
      { id: n.f1.id, displayName: 'F1', avatar: '' },
      { id: n.f2.id, displayName: 'F2', avatar: '' },
      { id: n.f3.id, displayName: 'F3', avatar: '' },
    ]);
    // symmetric, works between friends too, and upper-case ids name the same gamer
    expect((await w.mutual(n.x, n.me.id.toUpperCase())).body.map((u) => u.id)).toEqual([n.f1.id, n.f2.id, n.f3.id]);
    expect((await w.mutual(n.me, n.f1.id)).body.map((u) => u.id)).toEqual([n.f2.id]);
    expect((await w.mutual(n.me, n.z.id)).body.map((u) => u.id)).toEqual([n.f2.id]);
  });

  it('answers 404 for unknown gamers, the caller themselves, other applications and across a block either way; 400 for malformed ids', async () => {
    const n = await neighbourhood();
    expectProblem(await w.mutual(n.me, randomUUID()), 404, 'NOT_FOUND');
    expectProblem(await w.mutual(n.me, n.bl.id), 404, 'NOT_FOUND');
    expectProblem(await w.mutual(n.me, n.br.id), 404, 'NOT_FOUND');
    expectProblem(await w.mutual(n.bl, n.me.id), 404, 'NOT_FOUND');
    expectProblem(await w.mutual(n.br, n.me.id), 404, 'NOT_FOUND');
    // the same answer as for an unknown gamer: nothing tells a block from absence
    const unknown = await w.mutual(n.me, randomUUID());
    const blocked = await w.mutual(n.br, n.me.id);
    expect((blocked.body as { detail?: string }).detail).toBe((unknown.body as { detail?: string }).detail);
    const [other] = await w.gamers(1, randomUUID());
    expectProblem(await w.mutual(n.me, other!.id), 404, 'NOT_FOUND');
    expectProblem(await w.mutual(await w.elsewhere(n.me), n.x.id), 404, 'NOT_FOUND');
    expectProblem(await w.mutual(n.me, n.me.id), 404, 'NOT_FOUND');
    expectProblem(await w.mutual(n.me, 'not-a-uuid'), 400, 'VALIDATION_FAILED');
  });
});

describe('friend suggestions of a gamer with more friends than one call reads', () => {
  let stack: FriendshipStack;
  let w: ReturnType<typeof world>;
  beforeAll(async () => {
    stack = await startFriendshipStack({ SUGGESTIONS_FRIENDS_READ: '2' });
    w = world(stack);
  });
  afterAll(async () => stack?.close());

  it('reads the lists of SUGGESTIONS_FRIENDS_READ friends: mutual friends counted over those, no friend suggested', async () => {
    const app = randomUUID();
    const [me, f1, f2, f3, x] = await Promise.all(['Me', 'F1', 'F2', 'F3', 'Xavier'].map((name) => w.join(app, name)));
    for (const [a, b] of [[me, f1], [me, f2], [me, f3], [f1, x], [f2, x], [f3, x], [f1, f2]] as const) await w.befriend(a!, b!);
    const suggested = await w.suggestions(me!);
    expect(suggested.status).toBe(200);
    expect(suggested.body.map((s) => [s.user.id, s.mutualFriends])).toEqual([[x!.id, 2]]);
    // mutual friends with one gamer reads the two lists whole
    expect((await w.mutual(me!, x!.id)).body.map((u) => u.id).sort()).toEqual([f1!.id, f2!.id, f3!.id].sort());
  });
});

describe('friend suggestions when many friend-id lists are missing or too old at once', () => {
  let stack: FriendshipStack;
  let w: ReturnType<typeof world>;
  let db: Connection;
  beforeAll(async () => {
    stack = await startFriendshipStack({ SUGGESTIONS_LIST_REBUILDS: '3' });
    w = world(stack);
    db = await mongoose.createConnection(stack.databaseUrl).asPromise();
  });
  afterAll(async () => {
    await db?.close();
    await stack?.close();
  });

  /** Me, Xavier, and 8 gamers friends with both (Xavier is 8 mutual friends away from me). */
  async function eightInCommon(prefix: string) {
    const app = randomUUID();
    const me = await w.join(app, 'Me');
    const x = await w.join(app, 'Xavier');
    const friends: Gamer[] = [];
    for (let i = 0; i < 8; i++) {
      const friend = await w.join(app, `${prefix}${i}`);
      await w.befriend(me, friend);
      await w.befriend(friend, x);
      friends.push(friend);
    }
    return { me, x, friends };
  }

  it('rebuilds at most SUGGESTIONS_LIST_REBUILDS of them per call, missing ones first, and answers from the rest as they stand', async () => {
    const { me, x, friends } = await eightInCommon('F');
    const lists = db.collection<{ gamerId: string; builtAt?: Date }>('friendlists');
    // the friends' lists: four gone (a restore, say), two aged past FRIEND_LIST_MAX_AGE_S, two
    // as the friendship changes made them (never built: they follow every change since)
    await lists.deleteMany({ gamerId: { $in: friends.slice(0, 4).map((f) => f.id) } });
    const aged = new Date(Date.now() - 2 * 3_600_000);
    await lists.updateMany({ gamerId: { $in: friends.slice(4, 6).map((f) => f.id) } }, { $set: { builtAt: aged } });
    await lists.updateMany({ gamerId: { $in: friends.slice(6).map((f) => f.id) } }, { $unset: { builtAt: '' } });
    const rebuilt = async () => (await lists.find({ gamerId: { $in: friends.map((f) => f.id) }, builtAt: { $gt: aged } }).toArray()).length;

    // first call: three of the four missing rebuilt; the others answer as they stand, the
    // fourth missing one as no friends
    const first = await w.suggestions(me);
    expect(first.status).toBe(200);
    expect(first.body.map((s) => [s.user.id, s.mutualFriends])).toEqual([[x.id, 7]]);
    expect(await rebuilt()).toBe(3);
    // the next calls rebuild the rest, three at a time
    await w.suggestions(me);
    expect(await rebuilt()).toBe(6);
    const third = await w.suggestions(me);
    expect(await rebuilt()).toBe(8);
    expect(third.body.map((s) => [s.user.id, s.mutualFriends])).toEqual([[x.id, 8]]);
  });

  it('rebuilds the aged lists oldest first, so that calls further apart than FRIEND_LIST_MAX_AGE_S reach every one', async () => {
    const { me, friends } = await eightInCommon('H');
    const lists = db.collection<{ gamerId: string; builtAt?: Date }>('friendlists');
    const ids = friends.map((f) => f.id);
    const [older, old] = [new Date(Date.now() - 3 * 3_600_000), new Date(Date.now() - 2 * 3_600_000)];
    await lists.updateMany({ gamerId: { $in: ids } }, { $set: { builtAt: older } });
    const everRebuilt = new Set<string>();
    for (let call = 0; call < 3; call++) {
      expect((await w.suggestions(me)).status).toBe(200);
      const rebuilt = (await lists.find({ gamerId: { $in: ids }, builtAt: { $gt: old } }).toArray()).map((l) => l.gamerId);
      expect(rebuilt).toHaveLength(3);
      for (const id of rebuilt) everRebuilt.add(id);
      // the next call comes past FRIEND_LIST_MAX_AGE_S: the lists just rebuilt are aged again,
      // yet younger than the others (before: the same first three were rebuilt every call)
      await lists.updateMany({ gamerId: { $in: rebuilt } }, { $set: { builtAt: old } });
    }
    expect([...everRebuilt].sort()).toEqual([...ids].sort());
  });

  it('counts friends from lists the friendship changes made, never built, past the cap too', async () => {
    const { me, x } = await eightInCommon('G');
    // no list touched: as the changes left them
    const suggested = await w.suggestions(me);
    expect(suggested.body.map((s) => [s.user.id, s.mutualFriends])).toEqual([[x.id, 8]]);
    expect((await w.mutual(me, x.id)).body).toHaveLength(8);
  });
});
