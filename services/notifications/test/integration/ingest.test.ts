import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { natsInboxPrefix, natsNames, NotificationType, type Notification } from '@gfts/contracts';
import { composeNatsPassword, composeNatsPasswords, databaseUrl, eventually, infra, natsPrefix, startConfiguredNats, tcpHop, type ConfiguredNats, type TcpHop } from '@gfts/testkit';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monotonicUuidv7 } from '../../src/domain/ids.ts';
import { INBOX_WRITE_MAX, startIngest } from '../../src/ingest.ts';
import { inboxRepository, type GamerRef } from '../../src/repository/inbox.ts';
import { ensureIndexes, openStore, type Store } from '../../src/repository/store.ts';

const completed = (gamer: GamerRef, id: string): Notification & GamerRef => ({
  ...gamer, id, type: NotificationType.TASK_COMPLETED, at: new Date().toISOString(), data: { gamerTaskId: randomUUID(), taskId: randomUUID() },
});

/**
 * The inbox write of the ingest on the real store, reached through a hop the test cuts: a
 * batch whose write failed is written again until it is stored, once, and only then
 * published live.
 */
describe('the ingest when the inbox write fails', () => {
  let hop: TcpHop;
  let connection: mongoose.Connection;
  let store: Store;
  let nc: NatsConnection;

  beforeAll(async () => {
    const { mongoUrl, natsUrl } = infra();
    const target = new URL(mongoUrl.replace(/^mongodb:/, 'http:'));
    hop = await tcpHop(target.hostname, Number(target.port));
    const db = new URL(databaseUrl(mongoUrl, 'ingest')).pathname.slice(1);
    // a write while the hop is cut fails within half a second instead of the driver's 30 s
    connection = await mongoose.createConnection(`mongodb://${hop.host}:${hop.port}/${db}?directConnection=true&serverSelectionTimeoutMS=500&connectTimeoutMS=500`).asPromise();
    store = openStore(connection);
    await (await ensureIndexes(store)).dedupe;
    nc = await connect({ servers: natsUrl });
  });
  afterAll(async () => {
    await connection?.close();
    await hop?.close();
    await nc?.close();
  });

  it('stores a batch again with the same ids: what an earlier attempt stored is not duplicated, the rest is stored', async () => {
    const inbox = inboxRepository(store, 60_000);
    const gamer = { applicationId: randomUUID(), gamerId: randomUUID() };
    const next = monotonicUuidv7();
    const [a, b, c] = [completed(gamer, next()), completed(gamer, next()), completed(gamer, next())];
    await inbox.add([a!, b!]);
    // the retry of a batch whose first attempt stored a and b only: a and b, refused for
    // their ids and their completions' keys at once, are stored, not copies of another
    expect((await inbox.add([a!, b!, c!])).duplicates).toEqual(new Set());
    expect((await inbox.after(gamer, '0', 10)).map((n) => n.id)).toEqual([a!.id, b!.id, c!.id]);
  });

  it('stores the rest of a batch holding copies of completions, and publishes all of it but the copies', async () => {
    const prefix = natsPrefix();
    const names = natsNames(prefix);
    const gamer = { applicationId: randomUUID(), gamerId: randomUUID() };
    const inbox = inboxRepository(store, 60_000);
    // the first batch is held until every later event is queued: they form the second batch
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const batches: (Notification & GamerRef)[][] = [];
    const gated = {
      add: async (batch: (Notification & GamerRef)[]) => {
        batches.push(batch);
        await held;
        return inbox.add(batch);
      },
    };
    let duplicates = 0;
    const ingest = startIngest({ nc, prefix, inbox: gated, nextId: monotonicUuidv7(), log: { warn: () => {}, error: () => {} }, backlogMax: 100, duplicates: (n) => (duplicates += n) });
    const watcher = await connect({ servers: infra().natsUrl });
    const live: Notification[] = [];
    watcher.subscribe(names.notifyGamer(gamer.applicationId, gamer.gamerId), { callback: (_error, msg) => void live.push(msg.json<Notification>()) });
    await watcher.flush();
    const completion = (gamerTaskId: string) => ({
      ...gamer, gamerTaskId, taskId: randomUUID(), parentGamerTaskId: null, isAchievement: false, completedAt: new Date().toISOString(), eventId: randomUUID(),
    });
    const [a, b, c] = [completion(randomUUID()), completion(randomUUID()), completion(randomUUID())];
    try {
      nc.publish(names.taskCompleted, JSON.stringify(a));
      await eventually(async () => batches.length === 1 || undefined);
      // a told again (stored before it, in the first batch), b told twice within the batch, c once
      for (const event of [a, b, b, c]) nc.publish(names.taskCompleted, JSON.stringify(event));
      // the ingest shares this connection: its callbacks have queued the four once the flush is answered
      await nc.flush();
      release();
      await eventually(async () => (batches.length === 2 && live.length >= 3 ? true : undefined));
      await nc.flush();
      await watcher.flush();
      expect(batches[1]!.map((n) => (n.data as { gamerTaskId: string }).gamerTaskId)).toEqual([a, b, b, c].map((e) => e.gamerTaskId));

      const stored = await store.notifications.find({ applicationId: gamer.applicationId, gamerId: gamer.gamerId }).sort({ _id: 1 }).toArray();
      expect(stored.map((n) => (n.data as { gamerTaskId: string }).gamerTaskId)).toEqual([a, b, c].map((e) => e.gamerTaskId));
      expect(live.map((n) => n.id), 'published: what was stored, once').toEqual(stored.map((n) => n._id));
      expect(duplicates).toBe(2);
    } finally {
      release();
      await ingest.stop();
      await watcher.close();
    }
  });

  it('publishes a notification whose inbox write failed only once it is stored, and stores it once', async () => {
    const prefix = natsPrefix();
    const names = natsNames(prefix);
    const gamer = { applicationId: randomUUID(), gamerId: randomUUID() };
    const failures: unknown[] = [];
    let failed!: () => void;
    const firstFailure = new Promise<void>((resolve) => (failed = resolve));
    const log = {
      warn: () => {},
      error: (fields: unknown) => {
        failures.push(fields);
        failed();
      },
    };
    const ingest = startIngest({ nc, prefix, inbox: inboxRepository(store, 60_000), nextId: monotonicUuidv7(), log, retryDelayMs: () => 100, backlogMax: 100 });
    const watcher = await connect({ servers: infra().natsUrl });
    const live: Notification[] = [];
    watcher.subscribe(names.notifyGamer(gamer.applicationId, gamer.gamerId), { callback: (_error, msg) => void live.push(msg.json<Notification>()) });
    await watcher.flush();
    try {
      hop.cut();
      const gamerTaskId = randomUUID();
      nc.publish(names.taskCompleted, JSON.stringify({
        ...gamer, gamerTaskId, taskId: randomUUID(), parentGamerTaskId: null, isAchievement: false, completedAt: new Date().toISOString(), eventId: randomUUID(),
      }));
      await firstFailure;
      // whatever the ingest published so far has reached the watcher
      await nc.flush();
      await watcher.flush();
      expect(live, 'published live before it was stored').toEqual([]);

      hop.restore();
      const [notification] = await eventually(async () => (live.length > 0 ? live : undefined));
      expect(notification).toMatchObject({ type: NotificationType.TASK_COMPLETED, data: { gamerTaskId } });
      const stored = await store.notifications.find({ applicationId: gamer.applicationId, gamerId: gamer.gamerId }).toArray();
      expect(stored.map((d) => d._id)).toEqual([notification!.id]);
      expect(failures.length).toBeGreaterThan(0);
    } finally {
      hop.restore();
      await ingest.stop();
      await watcher.close();
    }
    expect(live).toHaveLength(1);
  });

  it('counts only notifications for the inbox against its backlog: live-only ones behind a slow write hold no others out of it, and beyond their own bound are dropped, counted', async () => {
    const prefix = natsPrefix();
    const names = natsNames(prefix);
    const gamer = { applicationId: randomUUID(), gamerId: randomUUID() };
    const friends = [randomUUID(), randomUUID(), randomUUID()];
    const inbox = inboxRepository(store, 60_000);
    // the first write is slow (held until the test releases it), not failing
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let writing!: () => void;
    const firstWrite = new Promise<void>((resolve) => (writing = resolve));
    let writes = 0;
    const slow = {
      add: async (batch: (Notification & GamerRef)[]) => {
        if (writes++ === 0) {
          writing();
          await held;
        }
        return inbox.add(batch);
      },
    };
    let unstored = 0;
    let dropped = 0;
    const ingest = startIngest({
      nc, prefix, inbox: slow, nextId: monotonicUuidv7(), log: { warn: () => {}, error: () => {} }, backlogMax: 2,
      unstored: (n) => (unstored += n), liveDropped: (n) => (dropped += n),
    });
    const watcher = await connect({ servers: infra().natsUrl });
    const live: Notification[] = [];
    watcher.subscribe(`${prefix}.notify.>`, { callback: (_error, msg) => void live.push(msg.json<Notification>()) });
    await watcher.flush();
    const complete = (gamerTaskId: string) => nc.publish(names.taskCompleted, JSON.stringify({
      ...gamer, gamerTaskId, taskId: randomUUID(), parentGamerTaskId: null, isAchievement: false, completedAt: new Date().toISOString(), eventId: randomUUID(),
    }));
    // a gamer coming online, announced to their online friends: one live-only notification each
    const online = (recipients: string[]) => nc.publish(names.presenceChanged, JSON.stringify({
      applicationId: gamer.applicationId, gamerId: randomUUID(), status: 'online', lastSeenAt: null, occurredAt: new Date().toISOString(), recipients,
    }));
    const [a, b] = [randomUUID(), randomUUID()];
    try {
      complete(a);
      await firstWrite;
      // two live-only ones fill their bound; b is the inbox's first of two; a third live-only one is beyond its bound
      online(friends.slice(0, 2));
      complete(b);
      online([friends[2]!]);
      await nc.flush();
      await eventually(async () => (dropped === 1 ? true : undefined));
      expect(unstored).toBe(0);
      // nothing passes the write being made
      expect(live).toEqual([]);

      release();
      await eventually(async () => (live.length === 4 ? true : undefined));
      expect(live.map((n) => n.type)).toEqual([NotificationType.TASK_COMPLETED, NotificationType.PRESENCE_CHANGED, NotificationType.PRESENCE_CHANGED, NotificationType.TASK_COMPLETED]);
      expect(live.map((n) => n.id)).toEqual(live.map((n) => n.id).sort());
      const stored = await store.notifications.find({ applicationId: gamer.applicationId, gamerId: gamer.gamerId }).toArray();
      expect(stored.map((n) => (n.data as { gamerTaskId: string }).gamerTaskId).sort()).toEqual([a, b].sort());
      expect(unstored).toBe(0);
    } finally {
      release();
      await ingest.stop();
      await watcher.close();
    }
  });

  it('takes a presence change with more recipients than its bound whole when nothing waits', async () => {
    const prefix = natsPrefix();
    const names = natsNames(prefix);
    let dropped = 0;
    const ingest = startIngest({
      nc, prefix, inbox: inboxRepository(store, 60_000), nextId: monotonicUuidv7(), log: { warn: () => {}, error: () => {} }, backlogMax: 2,
      liveDropped: (n) => (dropped += n),
    });
    const watcher = await connect({ servers: infra().natsUrl });
    const live: Notification[] = [];
    watcher.subscribe(`${prefix}.notify.>`, { callback: (_error, msg) => void live.push(msg.json<Notification>()) });
    await watcher.flush();
    try {
      // a gamer with three online friends comes online: more than the bound of 2, nothing waiting
      const recipients = [randomUUID(), randomUUID(), randomUUID()];
      nc.publish(names.presenceChanged, JSON.stringify({
        applicationId: randomUUID(), gamerId: randomUUID(), status: 'online', lastSeenAt: null, occurredAt: new Date().toISOString(), recipients,
      }));
      await eventually(async () => (live.length === 3 ? true : undefined));
      // before: all three dropped, and the "inbox write slow or away" error logged with the inbox healthy
      expect(dropped).toBe(0);
    } finally {
      await ingest.stop();
      await watcher.close();
    }
  });

  it('writes a backlog in batches of at most INBOX_WRITE_MAX, in order', async () => {
    const prefix = natsPrefix();
    const names = natsNames(prefix);
    const gamer = { applicationId: randomUUID(), gamerId: randomUUID() };
    const inbox = inboxRepository(store, 60_000);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const batches: string[][] = [];
    const gated = {
      add: async (batch: (Notification & GamerRef)[]) => {
        batches.push(batch.map((n) => n.id));
        if (batches.length === 1) await held;
        return inbox.add(batch);
      },
    };
    const ingest = startIngest({ nc, prefix, inbox: gated, nextId: monotonicUuidv7(), log: { warn: () => {}, error: () => {} }, backlogMax: 20_000 });
    const total = 1 + INBOX_WRITE_MAX + 10;
    try {
      for (let i = 0; i < total; i++) {
        nc.publish(names.taskCompleted, JSON.stringify({
          ...gamer, gamerTaskId: randomUUID(), taskId: randomUUID(), parentGamerTaskId: null, isAchievement: false, completedAt: new Date().toISOString(), eventId: randomUUID(),
        }));
        if (i === 0) await eventually(async () => (batches.length === 1 ? true : undefined));
      }
      await nc.flush();
      release();
      await eventually(async () => (batches.flat().length === total ? true : undefined), 30_000);
      expect(batches.map((b) => b.length)).toEqual([1, INBOX_WRITE_MAX, 10]);
      expect(batches.flat()).toEqual(batches.flat().sort());
      // the last batch is handed over before its write is done
      await eventually(async () => ((await store.notifications.countDocuments({ applicationId: gamer.applicationId, gamerId: gamer.gamerId })) === total ? true : undefined), 30_000);
    } finally {
      release();
      await ingest.stop();
    }
  }, 60_000);

  it('stopping while the inbox is away, tries one write more and sends the rest of the backlog out live at once', async () => {
    const prefix = natsPrefix();
    const names = natsNames(prefix);
    const gamer = { applicationId: randomUUID(), gamerId: randomUUID() };
    let writes = 0;
    let writesAfterStop: number | undefined;
    const away = {
      add: async () => {
        writes++;
        throw new Error('store away');
      },
    };
    let unstored = 0;
    const ingest = startIngest({ nc, prefix, inbox: away, nextId: monotonicUuidv7(), log: { warn: () => {}, error: () => {} }, retryDelayMs: () => 50, backlogMax: 20_000, unstored: (n) => (unstored += n) });
    const watcher = await connect({ servers: infra().natsUrl });
    let live = 0;
    watcher.subscribe(names.notifyGamer(gamer.applicationId, gamer.gamerId), { callback: () => void live++ });
    await watcher.flush();
    const total = 1 + 2 * INBOX_WRITE_MAX;
    try {
      for (let i = 0; i < total; i++) {
        nc.publish(names.taskCompleted, JSON.stringify({
          ...gamer, gamerTaskId: randomUUID(), taskId: randomUUID(), parentGamerTaskId: null, isAchievement: false, completedAt: new Date().toISOString(), eventId: randomUUID(),
        }));
      }
      await nc.flush();
      await eventually(async () => (writes >= 2 ? true : undefined));
      const before = writes;
      await ingest.stop();
      writesAfterStop = writes - before;
      // the batch being written is tried once more; the two batches queued behind it are not
      // (until 2026-11-28 each was, one write attempt per INBOX_WRITE_MAX past the pod's grace)
      expect(writesAfterStop).toBeLessThanOrEqual(1);
      expect(unstored).toBe(total);
      await eventually(async () => (live === total ? true : undefined));
    } finally {
      await watcher.close();
    }
  });

  it('holds at most NOTIFY_INGEST_BACKLOG_MAX while the inbox is away: what comes beyond goes out live only, counted', async () => {
    const prefix = natsPrefix();
    const names = natsNames(prefix);
    const gamer = { applicationId: randomUUID(), gamerId: randomUUID() };
    let failed!: () => void;
    const firstFailure = new Promise<void>((resolve) => (failed = resolve));
    let unstored = 0;
    const ingest = startIngest({
      nc, prefix, inbox: inboxRepository(store, 60_000), nextId: monotonicUuidv7(), log: { warn: () => {}, error: () => failed() },
      retryDelayMs: () => 100, backlogMax: 2, unstored: (n) => (unstored += n),
    });
    const watcher = await connect({ servers: infra().natsUrl });
    const live: string[] = [];
    const liveIds: string[] = [];
    watcher.subscribe(names.notifyGamer(gamer.applicationId, gamer.gamerId), {
      callback: (_error, msg) => {
        const notification = msg.json<Notification & { data: { gamerTaskId: string } }>();
        live.push(notification.data.gamerTaskId);
        liveIds.push(notification.id);
      },
    });
    await watcher.flush();
    const complete = (gamerTaskId: string) => nc.publish(names.taskCompleted, JSON.stringify({
      ...gamer, gamerTaskId, taskId: randomUUID(), parentGamerTaskId: null, isAchievement: false, completedAt: new Date().toISOString(), eventId: randomUUID(),
    }));
    const [a, b, c, d] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    try {
      hop.cut();
      // a: the batch being written; b and c: the backlog, full; d: beyond it
      complete(a);
      await firstFailure;
      complete(b);
      complete(c);
      complete(d);
      await eventually(async () => (live.length > 1 ? true : undefined));
      await nc.flush();
      await watcher.flush();
      // the one beyond the backlog goes out live, unstored, and the batch being written (lower
      // ids) goes out before it: a client given d and resuming after it would never get a
      expect(live, 'while the inbox is away').toEqual([a, d]);
      expect(unstored).toBe(1);

      hop.restore();
      await eventually(async () => (live.length === 4 ? true : undefined));
      // a, once stored, is not sent again; the backlog follows: published in id order
      expect(live).toEqual([a, d, b, c]);
      expect(liveIds).toEqual([...liveIds].sort());
      const stored = await store.notifications.find({ applicationId: gamer.applicationId, gamerId: gamer.gamerId }).toArray();
      expect(stored.map((n) => (n.data as { gamerTaskId: string }).gamerTaskId).sort()).toEqual([a, b, c].sort());
    } finally {
      hop.restore();
      await ingest.stop();
      await watcher.close();
    }
  });
});

/**
 * A NATS server whose permission file lacks one of the ingest's subjects (a rollout that
 * reloads an older file) refuses that subscription; nats.js then closes it for good. The
 * ingest subscribes again (until 2026-11-29 that kind of event stopped on every replica
 * until a restart, and the replica's stop failed on the closed subscription).
 */
describe('the ingest when NATS refuses one of its subjects', () => {
  const authFile = fileURLToPath(new URL('../../../../deploy/compose/nats-auth.conf', import.meta.url));
  const composeFile = fileURLToPath(new URL('../../../../deploy/compose/nats.conf', import.meta.url));
  let server: ConfiguredNats;
  let connection: mongoose.Connection;
  let store: Store;

  beforeAll(async () => {
    connection = await mongoose.createConnection(databaseUrl(infra().mongoUrl, 'ingest-refused')).asPromise();
    store = openStore(connection);
    await (await ensureIndexes(store)).dedupe;
    const full = readFileSync(authFile, 'utf8');
    // the notifications user without `gfts.task.completed` among its subscriptions
    const section = full.indexOf('user: "notifications"');
    const at = full.indexOf('"gfts.task.completed"', section);
    const older = join(mkdtempSync(join(tmpdir(), 'ingest-refused-')), 'nats-auth.conf');
    writeFileSync(older, full.slice(0, at) + full.slice(full.indexOf('\n', at) + 1));
    server = await startConfiguredNats([{ source: composeFile, name: 'nats.conf' }, { source: older, name: 'nats-auth.conf' }], composeNatsPasswords());
  });
  afterAll(async () => {
    await server?.stop();
    await connection?.close();
  });

  it('subscribes again, stores the events once NATS allows them, and stops cleanly', async () => {
    const user = (name: string) => connect({ servers: server.url, user: name, pass: composeNatsPassword(`NATS_${name.toUpperCase()}_PASSWORD`), inboxPrefix: natsInboxPrefix(name) });
    const [notifications, tasks] = await Promise.all([user('notifications'), user('tasks')]);
    const names = natsNames('gfts');
    const warnings: string[] = [];
    const inbox = inboxRepository(store, 60_000);
    const ingest = startIngest({
      nc: notifications, prefix: 'gfts', inbox,
      nextId: monotonicUuidv7(), log: { warn: (_o: unknown, message?: string) => void warnings.push(message ?? ''), error: () => {} } as never, backlogMax: 100,
    });
    const gamer = { applicationId: randomUUID(), gamerId: randomUUID() };
    const completion = () => JSON.stringify({ ...gamer, gamerTaskId: randomUUID(), taskId: randomUUID(), parentGamerTaskId: null, isAchievement: false, completedAt: new Date().toISOString(), eventId: randomUUID() });
    let stopped = false;
    try {
      await eventually(async () => warnings.some((w) => w.includes('subscribing again')), 10_000);
      await server.reload([{ text: readFileSync(authFile, 'utf8'), name: 'nats-auth.conf' }]);
      // the next try after the reload takes (1 s, then 2 s… apart)
      await eventually(async () => {
        tasks.publish(names.taskCompleted, completion());
        await tasks.flush();
        return (await inbox.newestFirst(gamer, undefined, 1)).length > 0;
      }, 20_000, 500);
      expect((await inbox.newestFirst(gamer, undefined, 1))[0]).toMatchObject({ type: NotificationType.TASK_COMPLETED });
      await ingest.stop();
      stopped = true;
    } finally {
      if (!stopped) await ingest.stop().catch(() => undefined);
      await Promise.allSettled([notifications.close(), tasks.close()]);
    }
  });
});
