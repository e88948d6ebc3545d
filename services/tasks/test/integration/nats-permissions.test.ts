import { gameServerUser, natsInboxPrefix, natsNames } from '@gfts/contracts';
import { connectNats, ensureGamersConsumer, startGamerErasure } from '@gfts/platform';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { composeNatsPassword, startComposeNats, type ConfiguredNats } from '@gfts/testkit';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureStatsTopology } from '../../src/stats/stream.ts';

/**
 * The NATS users of deploy/compose (nats.conf and its generated nats-auth.conf, the same
 * permissions as Kubernetes) against a real server: each credential can do its job and
 * nothing the contracts do not give it. Its own container, because the shared one runs
 * without users.
 */
// the example application of deploy/compose/nats-game-servers.txt
const APP = '6f1c2a9e-0d4b-4c8e-9f3a-1b2c3d4e5f60';
const OTHER_APP = '11111111-2222-4333-8444-555555555555';
const names = natsNames('gfts');
const MIB = 1_048_576;
const log = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Resolves with the server's permission error for `subject`, or rejects after `ms`. */
function permissionError(nc: NatsConnection, subject: string, ms = 3_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no permissions violation for ${subject}`)), ms);
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === 'error' && String(status.error).includes(`"${subject}"`)) {
          clearTimeout(timer);
          resolve(String(status.error));
          return;
        }
      }
    })();
  });
}

/** The first message's body, or rejects after `ms`. */
async function firstMessage(subscription: Subscription, ms = 5_000): Promise<string> {
  const timer = setTimeout(() => subscription.unsubscribe(), ms);
  try {
    for await (const msg of subscription) return msg.string();
    throw new Error(`nothing on ${subscription.getSubject()} within ${ms} ms`);
  } finally {
    clearTimeout(timer);
  }
}

async function expectPublishDenied(nc: NatsConnection, subject: string): Promise<void> {
  const denied = permissionError(nc, subject);
  nc.publish(subject, '{}');
  await nc.flush();
  await expect(denied).resolves.toMatch(/Permissions Violation for Publish/i);
}

describe('NATS users and permissions (deploy/compose/nats-auth.conf)', () => {
  let server: ConfiguredNats;
  let url: string;
  const open: NatsConnection[] = [];
  const as = async (user: string, password: string) => {
    const nc = await connect({ servers: url, user, pass: password, inboxPrefix: natsInboxPrefix(user) });
    open.push(nc);
    return nc;
  };
  const gameServer = () => as(gameServerUser(APP), composeNatsPassword('NATS_GS_6F1C2A9E_0D4B_4C8E_9F3A_1B2C3D4E5F60_PASSWORD'));

  beforeAll(async () => {
    server = await startComposeNats();
    url = server.url;
  });
  afterAll(async () => {
    await Promise.allSettled(open.map((nc) => nc.close()));
    await server?.stop();
  });

  it('refuses a connection without credentials', async () => {
    await expect(connect({ servers: url, reconnect: false })).rejects.toThrow(/authoriz/i);
  });

  it('lets tasks set up its stream and consumer, lets a game server publish its own stats, and tasks consume and ack them', async () => {
    // the service's own connection code and setup, with its credential
    const tasks = await connectNats(url, 'tasks', log, { user: 'tasks', password: composeNatsPassword('NATS_TASKS_PASSWORD') });
    open.push(tasks);
    const jsm = await jetstreamManager(tasks);
    await ensureStatsTopology(jsm, names, { replicas: 1, maxAgeMs: 60_000, maxBytes: 16 * MIB, deadLetterMaxBytes: 16 * MIB, duplicateWindowMs: 60_000, maxDeliver: 3, ackWaitMs: 5_000 });
    // a second run (another replica starting) takes the update path
    await ensureStatsTopology(jsm, names, { replicas: 1, maxAgeMs: 60_000, maxBytes: 16 * MIB, deadLetterMaxBytes: 16 * MIB, duplicateWindowMs: 60_000, maxDeliver: 3, ackWaitMs: 5_000 });

    const eventId = randomUUID();
    const ack = await jetstream(await gameServer()).publish(names.statsSubject(APP), JSON.stringify({ eventId }), { msgID: eventId });
    expect(ack).toMatchObject({ stream: names.statsStream, duplicate: false });

    const consumer = await jetstream(tasks).consumers.get(names.statsStream, names.statsConsumer);
    expect((await consumer.info()).config.ack_policy).toBe(AckPolicy.Explicit);
    const msg = await consumer.next({ expires: 5_000 });
    expect(msg?.subject).toBe(names.statsSubject(APP));
    expect(msg?.json<{ eventId: string }>().eventId).toBe(eventId);
    // ackAck waits for the server's confirmation: the ack subject is allowed
    await expect(msg!.ackAck()).resolves.toBe(true);

    // the HTTP stats route and the dead-letter copy publish through JetStream too
    await expect(jetstream(tasks).publish(names.statsSubject(OTHER_APP), '{}', { msgID: randomUUID() })).resolves.toMatchObject({ stream: names.statsStream });
    await expect(jetstream(tasks).publish(names.statsDeadLetterOf(APP), '{}')).resolves.toMatchObject({ stream: names.statsDeadLetterStream });
  });

  it('keeps a game server to its own stats subject', async () => {
    const nc = await gameServer();
    await expectPublishDenied(nc, names.statsSubject(OTHER_APP));
    await expectPublishDenied(nc, names.taskCompleted);
    await expectPublishDenied(nc, '$JS.API.STREAM.DELETE.GFTS_STATS');
  });

  it('keeps a game server out of the tasks service\'s inbox', async () => {
    const nc = await gameServer();
    const denied = permissionError(nc, `${natsInboxPrefix('tasks')}.>`);
    nc.subscribe(`${natsInboxPrefix('tasks')}.>`);
    await expect(denied).resolves.toMatch(/Permissions Violation for Subscription/i);
  });

  it('lets tasks and friendship each run their part of gamer erasure, and nothing of the other\'s', async () => {
    const tasks = await connectNats(url, 'tasks', log, { user: 'tasks', password: composeNatsPassword('NATS_TASKS_PASSWORD') });
    const friendship = await connectNats(url, 'friendship', log, { user: 'friendship', password: composeNatsPassword('NATS_FRIENDSHIP_PASSWORD') });
    open.push(tasks, friendship);
    const settings = { stream: { replicas: 1, maxBytes: 16 * MIB }, durable: { ackWaitMs: 5_000, retryBaseMs: 100 } };
    const erased: string[] = [];
    const consumers = [
      // friendship first: either service may create the stream
      await startGamerErasure({ js: jetstream(friendship), jsm: await jetstreamManager(friendship), names, service: 'friendship', log, ...settings }, async (e) => void erased.push(`friendship:${e.gamerId}`)),
      await startGamerErasure({ js: jetstream(tasks), jsm: await jetstreamManager(tasks), names, service: 'tasks', log, ...settings }, async (e) => void erased.push(`tasks:${e.gamerId}`)),
    ];
    try {
      await ensureGamersConsumer(await jetstreamManager(tasks), names, names.erasureProgressConsumer, names.gamerErasureCompleted, settings.durable);
      const gamerId = randomUUID();
      const jobId = randomUUID();
      await jetstream(tasks).publish(names.gamerErased, JSON.stringify({ jobId, applicationId: APP, gamerId, requestedAt: new Date().toISOString() }), { msgID: jobId });
      const progress = await jetstream(tasks).consumers.get(names.gamersStream, names.erasureProgressConsumer);
      const reports: string[] = [];
      while (reports.length < 2) {
        const msg = await progress.next({ expires: 5_000 });
        if (!msg) throw new Error('no erasure report');
        reports.push(msg.json<{ service: string }>().service);
        await msg.ackAck();
      }
      expect(reports.sort()).toEqual(['friendship', 'tasks']);
      expect(erased.sort()).toEqual([`friendship:${gamerId}`, `tasks:${gamerId}`]);
      // friendship reports, it does not request erasures, nor touch the tasks service's consumers
      await expectPublishDenied(friendship, names.gamerErased);
      await expectPublishDenied(friendship, `$JS.API.CONSUMER.INFO.${names.gamersStream}.${names.erasureProgressConsumer}`);
      await expectPublishDenied(friendship, `$JS.API.STREAM.DELETE.${names.gamersStream}`);
    } finally {
      await Promise.all(consumers.map((c) => c.stop()));
    }
  });

  it('lets friendship publish its events but not task events', async () => {
    const nc = await connectNats(url, 'friendship', log, { user: 'friendship', password: composeNatsPassword('NATS_FRIENDSHIP_PASSWORD') });
    open.push(nc);
    // notifications reads friendship's events: a denied publish would never reach it
    const reader = await connectNats(url, 'notifications', log, { user: 'notifications', password: composeNatsPassword('NATS_NOTIFICATIONS_PASSWORD') });
    open.push(reader);
    const subject = names.friendshipEvent('request-sent');
    const received = reader.subscribe(subject, { max: 1 });
    await reader.flush();
    const body = JSON.stringify({ marker: randomUUID() });
    nc.publish(subject, body);
    await nc.flush();
    await expect(firstMessage(received)).resolves.toBe(body);
    await expectPublishDenied(nc, names.taskCompleted);
    await expectPublishDenied(nc, names.statsSubject(APP));
  });

  it('lets notifications read the domain events and carry notifications, and publish nothing else', async () => {
    const nc = await connectNats(url, 'notifications', log, { user: 'notifications', password: composeNatsPassword('NATS_NOTIFICATIONS_PASSWORD') });
    open.push(nc);
    const tasks = await connectNats(url, 'tasks', log, { user: 'tasks', password: composeNatsPassword('NATS_TASKS_PASSWORD') });
    open.push(tasks);
    const gamerSubject = names.notifyGamer(APP, randomUUID());
    const progress = nc.subscribe(names.taskProgress, { max: 1 });
    const notification = nc.subscribe(gamerSubject, { max: 1 });
    // the other services' erasure reports, in the follow-up's queue group
    const report = nc.subscribe(names.gamerErasureCompleted, { max: 1, queue: names.notificationsErasureFollowUpQueue });
    await nc.flush();
    tasks.publish(names.taskProgress, '{"progress":1}');
    nc.publish(gamerSubject, '{"id":"n1"}');
    tasks.publish(names.gamerErasureCompleted, '{"service":"tasks"}');
    for (const subscription of [progress, notification, report]) {
      for await (const msg of subscription) expect(msg.data.length).toBeGreaterThan(0);
    }
    await expectPublishDenied(nc, names.friendshipEvent('requested'));
    await expectPublishDenied(nc, names.taskCompleted);
  });
});
