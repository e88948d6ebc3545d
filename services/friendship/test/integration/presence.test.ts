import type { FriendEntry } from '@gfts/contracts';
import { eventually, type Gamer } from '@gfts/testkit';
import mongoose, { type Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFriendshipStack, type FriendshipStack } from '../support/stack.ts';
import { expectOk, world } from '../support/world.ts';

/**
 * Presence on the real path: the gateway writes sightings into the NATS KV bucket, the
 * friendship service watches it into memory, the friend list reads it. A short online
 * window (5 s) lets a test see a gamer go offline.
 */
const WINDOW_MS = 5_000;

describe('presence in the friend list', () => {
  let stack: FriendshipStack;
  let w: ReturnType<typeof world>;
  let db: Connection;
  beforeAll(async () => {
    stack = await startFriendshipStack({ PRESENCE_ONLINE_WINDOW_MS: String(WINDOW_MS) }, { PRESENCE_RECORD_INTERVAL_MS: '1000' });
    w = world(stack);
    db = await mongoose.createConnection(stack.databaseUrl).asPromise();
  });
  afterAll(async () => {
    await db?.close();
    await stack?.close();
  });

  const entryOf = async (who: Gamer, friend: Gamer): Promise<FriendEntry | undefined> => (await w.friends(who)).body.find((e) => e.user.id === friend.id);

  it('shows a friend online after an authenticated call, offline once the window passes, with the last time seen', async () => {
    const [a, b] = await w.gamers(2);
    await w.befriend(a!, b!);
    // b calls on each poll: on a loaded machine one list call can outlast the short window
    const online = await eventually(async () => {
      await w.friends(b!);
      const entry = await entryOf(a!, b!);
      return entry?.presence.status === 'online' && entry;
    });
    expect(online.presence.lastSeenAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    // b makes no further call in this application: offline after the window, lastSeenAt kept
    const offline = await eventually(async () => {
      const entry = await entryOf(a!, b!);
      return entry?.presence.status === 'offline' && entry;
    }, 30_000, 250);
    expect(offline.presence.lastSeenAt).not.toBeNull();
    expect(Date.parse(offline.presence.lastSeenAt!)).toBeGreaterThanOrEqual(Date.parse(online.presence.lastSeenAt!));
    // the ended session is kept in the directory, for replicas that start later
    await eventually(async () => (await db.collection('gamers').findOne({ applicationId: b!.app, gamerId: b!.id }))?.lastSeenAt);

    // any authenticated call brings b back online (here a tasks path: the gateway saw it, whatever the upstream answers)
    await eventually(async () => {
      await w.api('GET', '/api/v1/inventory', { headers: b!.auth });
      return (await entryOf(a!, b!))?.presence.status === 'online';
    });
  });

  it('keeps applications apart: the same gamer id busy in another application stays offline here', async () => {
    const [a, b] = await w.gamers(2);
    await w.befriend(a!, b!);
    const twin = await w.elsewhere(b!);
    const twinFriend = await w.join(twin.app, 'Twin friend');
    await w.befriend(twin, twinFriend);
    // b's twin keeps calling in its own application until b is offline here
    const offline = await eventually(async () => {
      await w.friends(twin);
      return (await entryOf(a!, b!))?.presence.status === 'offline';
    }, 30_000, 250);
    expect(offline).toBe(true);
    await eventually(async () => {
      await w.friends(twin);
      return (await entryOf(twinFriend, twin))?.presence.status === 'online';
    });
  });

  it('shows presence to friends only: not in request lists, and a block ends it both ways', async () => {
    const [a, b, c] = await w.gamers(3);
    const id = await w.befriend(a!, b!);
    await eventually(async () => {
      await w.friends(b!);
      return (await entryOf(a!, b!))?.presence.status === 'online';
    });
    // a pending request shows no presence in either direction
    await w.request(c!, a!.id);
    const incoming = (await w.incoming(a!)).body;
    expect(incoming).toHaveLength(1);
    expect(Object.keys(incoming[0]!).sort()).toEqual(['id', 'status', 'user']);
    expect(Object.keys((await w.outgoing(c!)).body[0]!).sort()).toEqual(['id', 'status', 'user']);
    // b blocks a: the friendship goes, so neither list carries the other or their presence
    expectOk(await w.block(b!, a!.id));
    expect((await w.friends(a!)).body.map((e) => e.id)).not.toContain(id);
    expect((await w.friends(b!)).body).toEqual([]);
    expect(JSON.stringify((await w.friends(a!)).body)).not.toContain(b!.id);
  });
});
