import { randomUUID } from 'node:crypto';
import { presenceBeatKey, presenceHolderFilter, presenceHoldKey, type FriendEntry, type Notification } from '@gfts/contracts';
import { eventually, gamer, type Gamer } from '@gfts/testkit';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClient } from '../support/live-client.ts';
import { startNotificationsStack, type NotificationsStack, type Replica } from '../support/stack.ts';

const LIVE = '/api/v1/notifications/live';
/**
 * Short presence settings so a test sees a gamer go offline: a 5 s window, refreshed every
 * second, changes settled after 300 ms, a closed gamer released after 500 ms.
 */
const WINDOW_MS = 5_000;
const SETTLE_MS = 300;
const GRACE_MS = 500;

type PresenceNote = Extract<Notification, { type: 'presence.changed' }>;

/**
 * Presence on the real path: a gamer's live sockets (on either of two notifications
 * replicas) hold their presence in the NATS KV bucket, two friendship replicas watch it,
 * the friend list reads it, and friends with a live connection get presence.changed, once
 * per change.
 */
describe('presence from the live connection', () => {
  let stack: NotificationsStack;
  let a: Replica;
  let b: Replica;
  const app = randomUUID();
  beforeAll(async () => {
    // Friendship keeps the profiles it read for the whole file: the lists' last-seen times must
    // follow the session ends each friendship replica sees, not a later read of the directory.
    stack = await startNotificationsStack(
      { PRESENCE_RECORD_INTERVAL_MS: '1000', LIVE_RELEASE_GRACE_MS: String(GRACE_MS) },
      {},
      { PRESENCE_ONLINE_WINDOW_MS: String(WINDOW_MS), PRESENCE_CHANGE_SETTLE_MS: String(SETTLE_MS), PROFILE_CACHE_TTL_MS: '600000' },
    );
    a = stack.replicas[0]!;
    b = await stack.addReplica();
    // a second friendship replica sees every change too: each must still be announced once
    await stack.addFriendshipReplica();
  });
  afterAll(async () => {
    await stack?.close();
  });

  const open = (replica: Pick<Replica, 'wsUrl'>, who: Gamer) => LiveClient.open(`${replica.wsUrl}${LIVE}`, { headers: who.auth });
  const call = async (method: string, path: string, who: Gamer, body?: unknown) => {
    const response = await stack.api(method, `/api/v1/friendship${path}`, { headers: who.auth, ...(body ? { body } : {}) });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body;
  };
  const join = async (name: string) => {
    const who = gamer(app, name);
    await call('GET', '', who);
    return who;
  };
  const befriend = async (x: Gamer, y: Gamer) => {
    const { id } = (await call('POST', '', x, { target: y.id })) as { id: string };
    await call('POST', `/${id}/accept`, y);
  };
  const entryOf = async (viewer: Gamer, friend: Gamer) =>
    ((await stack.api<FriendEntry[]>('GET', '/api/v1/friendship', { headers: viewer.auth })).body).find((e) => e.user.id === friend.id);
  const about = (live: LiveClient, who: Gamer) => live.ofType('presence.changed').filter((n) => n.data.userId === who.id);
  const next = (live: LiveClient, who: Gamer, status: 'online' | 'offline') =>
    live.next('presence.changed', (n) => n.data.userId === who.id && n.data.status === status);
  /** the presence bucket's hold keys of a gamer: one per replica holding a socket of theirs */
  const holdsOf = async (who: Gamer) => {
    const kv = await new Kvm(jetstream(await stack.nats())).open(stack.names.presenceBucket);
    const keys: string[] = [];
    for await (const k of await kv.keys()) if (k.endsWith(`.${app}.${who.id}`)) keys.push(k);
    return keys;
  };
  const holdCount = (who: Gamer, count: number) => eventually(async () => (await holdsOf(who)).length === count);

  it('tells a connected friend once that a gamer came online and once that they left; the friend list follows at once', async () => {
    const [ann, bob] = [await join('Ann'), await join('Bob')];
    await befriend(ann, bob);
    expect((await entryOf(bob, ann))?.presence).toEqual({ status: 'offline', lastSeenAt: null });

    const bobLive = await open(a, bob);
    const annLive = await open(b, ann);
    const online: PresenceNote = await next(bobLive, ann, 'online');
    expect(online.data).toEqual({ userId: ann.id, status: 'online', lastSeenAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect((await entryOf(bob, ann))?.presence.status).toBe('online');

    const closedAt = Date.now();
    annLive.close();
    const offline = await next(bobLive, ann, 'offline');
    expect(Date.parse(offline.data.lastSeenAt!)).toBeGreaterThanOrEqual(closedAt - 1_000);
    // offline in the list as soon as the last socket closed (not a window later), with the same last-seen time
    const entry = await eventually(async () => {
      const e = await entryOf(bob, ann);
      return e?.presence.status === 'offline' && e.presence.lastSeenAt === offline.data.lastSeenAt && e;
    });
    expect(entry.presence.lastSeenAt).toBe(offline.data.lastSeenAt);
    // once each, though two friendship replicas saw both changes; never to Ann about herself
    expect(about(bobLive, ann).map((n) => n.data.status)).toEqual(['online', 'offline']);
    expect(about(annLive, ann)).toEqual([]);
    // live only: nothing of it in the inbox
    const inbox = (await stack.api<Notification[]>('GET', '/api/v1/notifications', { headers: bob.auth })).body;
    expect(inbox.filter((n) => n.type === 'presence.changed')).toEqual([]);
    bobLive.close();
  });

  it('keeps a gamer online while any socket on any replica is open', async () => {
    const [ann, bob, mark] = [await join('Ann'), await join('Bob'), await join('Mark')];
    await befriend(ann, bob);
    await befriend(mark, bob);
    const bobLive = await open(a, bob);
    const [onA, onB] = [await open(a, ann), await open(b, ann)];
    await next(bobLive, ann, 'online');
    await holdCount(ann, 2);

    onA.close();
    await onA.closed;
    // replica a lets Ann go after the grace; b still holds her
    await holdCount(ann, 1);
    // a change after that one, settled as long: a wrong offline for Ann would reach Bob first
    const markLive = await open(a, mark);
    await next(bobLive, mark, 'online');
    expect((await entryOf(bob, ann))?.presence.status).toBe('online');
    expect(about(bobLive, ann).map((n) => n.data.status)).toEqual(['online']);
    markLive.close();

    const closedAt = Date.now();
    onB.close();
    const offline = await next(bobLive, ann, 'offline');
    expect(Date.parse(offline.data.lastSeenAt!)).toBeGreaterThanOrEqual(closedAt - 1_000);
    expect(about(bobLive, ann).map((n) => n.data.status)).toEqual(['online', 'offline']);
    bobLive.close();
  });

  it('keeps a gamer who is back within the release grace online, without a presence write', async () => {
    const [dot, bob, mia] = [await join('Dot'), await join('Bob'), await join('Mia')];
    await befriend(dot, bob);
    await befriend(mia, bob);
    const bobLive = await open(a, bob);
    const first = await open(a, dot);
    const miaLive = await open(a, mia);
    await next(bobLive, dot, 'online');
    await next(bobLive, mia, 'online');
    // the replica's key for Dot, as it stands after the first connect
    const kv = await new Kvm(jetstream(await stack.nats())).open(stack.names.presenceBucket);
    const keyOfDot = async () => {
      for await (const k of await kv.keys()) if (k.endsWith(`.${app}.${dot.id}`)) return k;
      return undefined;
    };
    const key = await eventually(keyOfDot);
    const held = (await kv.get(key))!.revision;

    first.close();
    await first.closed;
    // Mia leaves just after Dot, and does not come back: her release, a grace later, and its
    // settled offline come after anything a release of Dot would have caused
    miaLive.close();
    await miaLive.closed;
    const again = await open(a, dot);
    await next(bobLive, mia, 'offline');
    expect((await kv.get(key))?.revision).toBe(held);
    expect((await entryOf(bob, dot))?.presence.status).toBe('online');
    expect(about(bobLive, dot).map((n) => n.data.status)).toEqual(['online']);

    // gone for longer than the grace: released, offline, announced
    const closedAt = Date.now();
    again.close();
    const offline = await next(bobLive, dot, 'offline');
    expect(Date.parse(offline.data.lastSeenAt!)).toBeGreaterThanOrEqual(closedAt);
    expect(await keyOfDot()).toBeUndefined();
    bobLive.close();
  }, 30_000);

  it('turns a gamer offline a window after their replica\'s heartbeat stopped, and purges that replica\'s keys', async () => {
    const [cat, bob] = [await join('Cat'), await join('Bob')];
    await befriend(cat, bob);
    const bobLive = await open(a, bob);
    // what a notifications replica writes (a heartbeat, a gamer held once), from a replica that then stops beating
    const kv = await new Kvm(jetstream(await stack.nats())).open(stack.names.presenceBucket);
    const holder = randomUUID();
    await kv.put(presenceBeatKey(holder), String(Date.now()));
    await kv.put(presenceHoldKey(holder, app, cat.id), String(Date.now()));
    // the keys' times are when NATS stored them (not the writer's clock)
    const beatAt = (await kv.get(presenceBeatKey(holder)))!.created.getTime();
    const heldAt = (await kv.get(presenceHoldKey(holder, app, cat.id)))!.created.getTime();
    await next(bobLive, cat, 'online');
    const offline = await next(bobLive, cat, 'offline');
    // the last the board knew of that replica: its heartbeat, or the hold written just after it
    expect(Date.parse(offline.data.lastSeenAt!)).toBeGreaterThanOrEqual(beatAt);
    expect(Date.parse(offline.data.lastSeenAt!)).toBeLessThanOrEqual(heldAt);
    expect((await entryOf(bob, cat))?.presence.status).toBe('offline');
    // the dead replica's keys left the bucket
    const left = await eventually(async () => {
      const keys: string[] = [];
      for await (const k of await kv.keys(presenceHolderFilter(holder))) keys.push(k);
      return keys.length === 0 && keys;
    });
    expect(left).toEqual([]);
    bobLive.close();
  }, 30_000);

  it('turns the gamers of a SIGKILLed notifications process offline within the window, and tells their friends', async () => {
    const [eve, fay, bob] = [await join('Eve'), await join('Fay'), await join('Bob')];
    await befriend(eve, bob);
    await befriend(fay, bob);
    const bobLive = await open(a, bob);
    const doomed = await stack.spawnReplica();
    const [eveLive, fayLive] = [await open(doomed, eve), await open(doomed, fay)];
    const [eveOn, fayOn] = [await next(bobLive, eve, 'online'), await next(bobLive, fay, 'online')];
    const killedAt = Date.now();
    doomed.process.child.kill('SIGKILL');
    await doomed.process.exited;
    // no close reached NATS: only the missing heartbeat tells
    const [eveOff, fayOff] = [await next(bobLive, eve, 'offline'), await next(bobLive, fay, 'offline')];
    for (const [on, off] of [[eveOn, eveOff], [fayOn, fayOff]] as const) {
      // lastSeenAt is the replica's last heartbeat: not before the one the online event told, nor after the kill
      expect(Date.parse(off.data.lastSeenAt!)).toBeGreaterThanOrEqual(Date.parse(on.data.lastSeenAt!));
      expect(Date.parse(off.data.lastSeenAt!)).toBeLessThanOrEqual(killedAt);
    }
    expect((await entryOf(bob, eve))?.presence).toEqual({ status: 'offline', lastSeenAt: eveOff.data.lastSeenAt });
    expect(about(bobLive, eve).map((n) => n.data.status)).toEqual(['online', 'offline']);
    await Promise.all([eveLive.closed, fayLive.closed]);
    await doomed.close();
    bobLive.close();
  }, 60_000);

  it('keeps a gamer online when one of the two replicas holding them shuts down', async () => {
    const [gus, bob, mark] = [await join('Gus'), await join('Bob'), await join('Mark')];
    await befriend(gus, bob);
    await befriend(mark, bob);
    const bobLive = await open(a, bob);
    const leaving = await stack.spawnReplica();
    const [onA, onLeaving] = [await open(a, gus), await open(leaving, gus)];
    await next(bobLive, gus, 'online');
    await holdCount(gus, 2);
    // a drain: the socket gets 1001, the replica deletes its keys and its heartbeat
    await leaving.close();
    await onLeaving.closed;
    await holdCount(gus, 1);
    // a change after that one, settled as long: a wrong offline for Gus would reach Bob first
    const markLive = await open(a, mark);
    await next(bobLive, mark, 'online');
    expect((await entryOf(bob, gus))?.presence.status).toBe('online');
    expect(about(bobLive, gus).map((n) => n.data.status)).toEqual(['online']);
    markLive.close();
    onA.close();
    await next(bobLive, gus, 'offline');
    bobLive.close();
  }, 60_000);

  it('tells nothing across a block, either way, while common friends hear of both', async () => {
    const [ann, bob, dan] = [await join('Ann'), await join('Bob'), await join('Dan')];
    await befriend(ann, bob);
    await befriend(ann, dan);
    await befriend(bob, dan);
    await call('POST', '/block', bob, { target: ann.id });

    const danLive = await open(a, dan);
    const annLive = await open(a, ann);
    const bobLive = await open(b, bob);
    // Dan hears of both arrivals; Ann was connected when Bob came
    await next(danLive, ann, 'online');
    await next(danLive, bob, 'online');
    // Ann leaves while Dan and Bob are connected: Dan hears of it
    annLive.close();
    await next(danLive, ann, 'offline');
    // then Dan leaves: Bob hears of it after anything Ann's leaving could have told him
    danLive.close();
    await next(bobLive, dan, 'offline');

    expect(about(annLive, bob)).toEqual([]);
    expect(about(bobLive, ann)).toEqual([]);
    // (Ann may still get the block's friend.removed live, if its event was slower than her connect: that one is meant)
    expect(JSON.stringify(bobLive.ofType('presence.changed'))).not.toContain(ann.id);
    expect(JSON.stringify(annLive.ofType('presence.changed'))).not.toContain(bob.id);
    expect(await entryOf(bob, ann)).toBeUndefined();
    bobLive.close();
  });
});
