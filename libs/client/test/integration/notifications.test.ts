import { randomUUID } from 'node:crypto';
import { IDENTITY_HEADER } from '@gfts/contracts';
import { buildGateway } from '@gfts/gateway/app';
import { readGatewayConfig } from '@gfts/gateway/config';
import { createIdentitySigner } from '@gfts/platform';
import { databaseUrl, eventually, freePort, gamer, infra, listen, natsPrefix, tcpHop, TEST_INTERNAL_SECRET, TEST_JWT_SECRET, type Gamer, testLogLevel } from '@gfts/testkit';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The services are not dependencies of the client: imported by path, as the gateway's tests do.
import { buildFriendshipApp } from '../../../../services/friendship/src/app.ts';
import { readFriendshipConfig } from '../../../../services/friendship/src/config.ts';
import { buildNotificationsApp } from '../../../../services/notifications/src/app.ts';
import { readNotificationsConfig } from '../../../../services/notifications/src/config.ts';
import { BEFORE_EVERY_ID, connectNotifications, createApiClient, resumePoint, type NotificationsClient, type NotificationsClientOptions, type Notification } from '../../src/index.ts';

/** What a client saw: every notification in order of arrival, its opens and its disconnects. */
function watch(live: NotificationsClient) {
  const seen = { notifications: [] as Notification[], opens: [] as (string | undefined)[], disconnects: [] as number[], stops: [] as string[] };
  live.on('notification', (n) => seen.notifications.push(n));
  live.on('open', ({ since }) => seen.opens.push(since));
  live.on('disconnect', ({ code }) => seen.disconnects.push(code));
  live.on('stop', ({ reason }) => seen.stops.push(reason));
  return seen;
}

/**
 * The notifications client against the real product: friendship (the producer), two
 * notifications replicas on one inbox and NATS prefix, a gateway in front of replica A,
 * which is restarted on its port while the client is connected through it.
 */
describe('notifications client (@gfts/client) against the notifications service', () => {
  const { mongoUrl, natsUrl } = infra();
  const common = { NATS_URL: natsUrl, NATS_PREFIX: natsPrefix(), INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: testLogLevel() };
  const notificationsEnv = { ...common, MONGO_URL: databaseUrl(mongoUrl, 'notifications'), NOTIFY_DRAIN_MS: '500' };
  const app = randomUUID();
  let friendship: FastifyInstance;
  let replicaA: FastifyInstance | undefined;
  let replicaB: FastifyInstance;
  let portA: number;
  let gateway: FastifyInstance;
  let gatewayUrl: string;
  const clients: NotificationsClient[] = [];

  const startReplicaA = async () => {
    replicaA = await buildNotificationsApp(readNotificationsConfig(notificationsEnv));
    await replicaA.listen({ port: portA, host: '127.0.0.1' });
  };
  const live = (who: Gamer, options: Partial<NotificationsClientOptions> = {}) => {
    const client = connectNotifications({ baseUrl: gatewayUrl, token: who.token, backoff: { initialDelayMs: 50, maxDelayMs: 500 }, ...options });
    clients.push(client);
    return client;
  };
  const api = (who: Gamer) => createApiClient({ baseUrl: gatewayUrl, token: who.token });
  /** A new gamer of the application, registered in the directory (a friendship call does; only those do). */
  const join = async (name: string) => {
    const who = gamer(app, name);
    expect((await api(who).GET('/api/v1/friendship')).response.status).toBe(200);
    return who;
  };
  const requestFriendship = async (from: Gamer, to: Gamer) => {
    expect((await api(from).POST('/api/v1/friendship', { body: { target: to.id } })).data).toEqual({ ok: true, id: expect.any(String), status: 'pending' });
  };

  beforeAll(async () => {
    friendship = await buildFriendshipApp(readFriendshipConfig({ ...common, MONGO_URL: databaseUrl(mongoUrl, 'friendship') }));
    const friendshipUrl = await listen(friendship);
    portA = await freePort();
    await startReplicaA();
    replicaB = await buildNotificationsApp(readNotificationsConfig(notificationsEnv));
    await listen(replicaB);
    gateway = await buildGateway(readGatewayConfig({
      FRIENDSHIP_URL: friendshipUrl, TASKS_URL: 'http://127.0.0.1:9', NOTIFICATIONS_URL: `http://127.0.0.1:${portA}`,
      JWT_SECRET: TEST_JWT_SECRET, INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: testLogLevel(), RATE_LIMIT_MAX: '1000000',
    }));
    gatewayUrl = await listen(gateway);
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await gateway?.close();
    await Promise.allSettled([replicaA?.close(), replicaB?.close(), friendship?.close()]);
  });

  it('receives a friend request, survives a restart of its replica and resumes without gap or duplicate', async () => {
    const ann = await join('Ann');
    const suitors = await Promise.all(['Bob', 'Cid', 'Dan', 'Eve'].map((name) => join(name)));
    const [bob, cid, dan, eve] = suitors as [Gamer, Gamer, Gamer, Gamer];
    const client = live(ann);
    const seen = watch(client);
    await eventually(async () => seen.opens.length === 1);

    await requestFriendship(bob, ann);
    const first = await eventually(async () => seen.notifications[0]);
    expect(first).toMatchObject({ type: 'friend.request.received', data: { user: { id: bob.id, displayName: 'Bob', avatar: '' } } });
    if (first.type !== 'friend.request.received') throw new Error('unexpected type');
    const incoming = await api(ann).GET('/api/v1/friendship/requests/incoming');
    expect(first.data.friendshipId).toBe(incoming.data![0]!.id);

    // Replica A drains (1001 "going away") and stays down a while; replica B takes the
    // events meanwhile and keeps them in the shared inbox.
    await replicaA!.close();
    await eventually(async () => seen.disconnects.length > 0);
    expect(seen.disconnects[0]).toBe(1001);
    await requestFriendship(cid, ann);
    await requestFriendship(dan, ann);
    // (the gateway answers 502 for the inbox while A is down: ask B's inbox through its own port)
    await eventually(async () => (await inboxOf(ann)).length === 3, 10_000);
    await startReplicaA();

    await eventually(async () => seen.opens.length === 2, 15_000);
    // a few seconds before the last id received (the resume overlap); what it replays again is dropped by id
    expect(seen.opens[1]).toBe(resumePoint(first.id, BEFORE_EVERY_ID, 5_000));
    await requestFriendship(eve, ann);
    await eventually(async () => seen.notifications.length >= 4);

    // Every request once, in order; the same notifications as the inbox holds.
    expect(seen.notifications.map((n) => n.type === 'friend.request.received' && n.data.user.displayName)).toEqual(['Bob', 'Cid', 'Dan', 'Eve']);
    const ids = seen.notifications.map((n) => n.id);
    expect(new Set(ids).size).toBe(4);
    expect((await inboxOf(ann)).map((n) => n.id).reverse()).toEqual(ids);
    expect(client.lastId).toBe(ids[3]);
    expect(seen.stops).toEqual([]);
  });

  it('notices a connection that went silent without a close (a dropped NAT entry), reconnects and resumes what it missed', async () => {
    const [ann, bob] = [await join('Ann'), await join('Bob')];
    const { port } = new URL(gatewayUrl);
    const path = await tcpHop('127.0.0.1', Number(port));
    try {
      const client = live(ann, { baseUrl: `http://127.0.0.1:${path.port}`, heartbeat: { intervalMs: 2_000, timeoutMs: 1_000 }, openTimeoutMs: 2_000 });
      const seen = watch(client);
      const reasons: string[] = [];
      client.on('disconnect', ({ reason }) => reasons.push(reason));
      await eventually(async () => seen.opens.length === 1);
      // pings answered: it stays open over several intervals
      await new Promise((resolve) => setTimeout(resolve, 4_500));
      expect(seen.disconnects).toEqual([]);

      path.silence();
      // sent while the path carries nothing: the service writes it into a connection that looks open
      await requestFriendship(bob, ann);
      // the client's heartbeat noticed it (the service's own would take two 30 s beats): the
      // interval maths is the unit tests'; here, that the dead path is found at all
      await eventually(async () => seen.disconnects.length > 0 || undefined, 10_000);
      expect(reasons[0]).toBe('no answer to the heartbeat ping');
      // The reconnect may first try a kept-alive connection of the same dead path (the
      // runtime's pool), whose handshake never ends: the open timeout gives it up.
      await eventually(async () => seen.opens.length === 2 || undefined, 10_000);
      expect(seen.disconnects.length).toBeLessThanOrEqual(2);
      expect(seen.disconnects.every((code) => code === 1006)).toBe(true);
      const received = await eventually(async () => seen.notifications[0], 10_000);
      expect(received).toMatchObject({ type: 'friend.request.received', data: { user: { id: bob.id } } });
      expect(seen.stops).toEqual([]);
    } finally {
      await path.close();
    }
  });

  it('loses nothing to a drop before its first notification: it starts from the inbox, not from nothing', async () => {
    const [ann, bob] = [await join('Ann'), await join('Bob')];
    const seen = watch(live(ann));
    await eventually(async () => seen.opens.length === 1);
    expect(seen.opens[0]).toBe(BEFORE_EVERY_ID);
    await replicaA!.close();
    await eventually(async () => seen.disconnects.length > 0);
    await requestFriendship(bob, ann);
    await eventually(async () => (await inboxOf(ann)).length === 1, 10_000);
    await startReplicaA();
    const received = await eventually(async () => seen.notifications[0], 15_000);
    expect(received).toMatchObject({ type: 'friend.request.received', data: { user: { id: bob.id } } });
  });

  it('connects with a single-use ticket, as a browser does', async () => {
    const ann = await join('Ann');
    const bob = await join('Bob');
    const seen = watch(live(ann, { auth: 'ticket' }));
    await eventually(async () => seen.opens.length === 1);
    await requestFriendship(bob, ann);
    const received = await eventually(async () => seen.notifications[0]);
    expect(received).toMatchObject({ type: 'friend.request.received', data: { user: { id: bob.id } } });
  });

  it('stops, instead of retrying, when the gateway refuses the token', async () => {
    const expired = gamer(app, 'Old', { expiresIn: -60 });
    for (const auth of ['header', 'ticket'] as const) {
      const seen = watch(live(expired, { auth }));
      await eventually(async () => seen.stops.length > 0);
      expect({ auth, stops: seen.stops, opens: seen.opens }).toEqual({ auth, stops: ['unauthorized'], opens: [] });
    }
  });

  /** The inbox through replica B directly, newest first, with the identity the gateway would assert. */
  async function inboxOf(who: Gamer): Promise<Notification[]> {
    const assertion = createIdentitySigner(TEST_INTERNAL_SECRET)({ gamerId: who.id, applicationId: who.app, displayName: who.name, roles: [] });
    const address = replicaB.server.address() as { port: number };
    const response = await fetch(`http://127.0.0.1:${address.port}/api/v1/notifications?limit=50`, { headers: { [IDENTITY_HEADER]: assertion } });
    expect(response.status).toBe(200);
    return (await response.json()) as Notification[];
  }
});
