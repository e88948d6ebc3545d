import { randomUUID } from 'node:crypto';
import { NotificationType, type InventoryGrantedEvent, type Notification, type TaskCompletedEvent } from '@gfts/contracts';
import { databaseUrl, gamer, infra } from '@gfts/testkit';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monotonicUuidv7 } from '../../src/domain/ids.ts';
import { inboxRepository, type GamerRef } from '../../src/repository/inbox.ts';
import { ensureIndexes, openStore, type NotificationDoc } from '../../src/repository/store.ts';
import { LiveClient } from '../support/live-client.ts';
import { startNotificationsStack, type NotificationsStack } from '../support/stack.ts';

const LIVE = '/api/v1/notifications/live';

/**
 * The tasks service announces a completion, and a claim's grant, at least once (a crash
 * between its write and its acknowledgement, a redelivery to another replica, a retried
 * claim), each copy with the time it stored: the inbox keeps one of each, and a socket is
 * told once.
 */
describe('a completion told twice', () => {
  let stack: NotificationsStack;
  const app = randomUUID();
  beforeAll(async () => {
    stack = await startNotificationsStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('is stored and sent once, as the first copy was; so is a grant told twice', async () => {
    const ann = gamer(app, 'Ann');
    const live = await LiveClient.open(`${stack.replicas[0]!.wsUrl}${LIVE}`, { headers: ann.auth });
    const nc = await stack.nats();
    const gamerTaskId = randomUUID();
    const completed: TaskCompletedEvent = {
      applicationId: app, gamerId: ann.id, gamerTaskId, taskId: randomUUID(), parentGamerTaskId: null, isAchievement: false, completedAt: '2026-11-28T12:00:00.000Z', eventId: randomUUID(),
    };
    nc.publish(stack.names.taskCompleted, JSON.stringify(completed));
    const first = await live.next(NotificationType.TASK_COMPLETED);

    // the same completion again, later (a redelivery handled by another replica)
    nc.publish(stack.names.taskCompleted, JSON.stringify(completed));
    // the claim's grant twice at once (its request retried after a lost reply), with the
    // claim's stored time both times
    const granted: InventoryGrantedEvent = { applicationId: app, gamerId: ann.id, gamerTaskId, items: [{ inventoryItemId: randomUUID(), quantity: 2 }], grantedAt: '2026-11-28T12:01:00.000Z' };
    nc.publish(stack.names.inventoryGranted, JSON.stringify(granted));
    nc.publish(stack.names.inventoryGranted, JSON.stringify(granted));
    // a marker last: one replica takes them in order and publishes in id order, so once it
    // arrived everything before it was stored or refused, and sent or not
    const marker = { ...completed, gamerTaskId: randomUUID(), eventId: randomUUID() };
    nc.publish(stack.names.taskCompleted, JSON.stringify(marker));
    await live.next(NotificationType.TASK_COMPLETED, (n) => n.data.gamerTaskId === marker.gamerTaskId);

    expect(live.ofType(NotificationType.TASK_COMPLETED).map((n) => n.data.gamerTaskId), 'one toast per completion').toEqual([gamerTaskId, marker.gamerTaskId]);
    expect(live.ofType(NotificationType.INVENTORY_GRANTED), 'one toast per grant').toEqual([
      { id: expect.any(String), type: NotificationType.INVENTORY_GRANTED, at: granted.grantedAt, data: { items: granted.items, gamerTaskId } },
    ]);
    const inbox = (await stack.api<Notification[]>('GET', '/api/v1/notifications', { headers: ann.auth })).body;
    expect([...inbox].reverse(), 'the inbox holds what was sent, once').toEqual(live.messages);
    expect(inbox.find((n) => n.type === NotificationType.TASK_COMPLETED && n.data.gamerTaskId === gamerTaskId), 'the first copy, as it was').toEqual(first);
    live.close();
  });
});

describe('the inbox refusing copies of completions, on the store', () => {
  let connection: mongoose.Connection;
  beforeAll(async () => {
    connection = await mongoose.createConnection(databaseUrl(infra().mongoUrl, 'dedupe')).asPromise();
  });
  afterAll(async () => {
    await connection?.close();
  });

  // a copy carries the time the tasks service stored: one time for every completion here
  const completion = (gamer: GamerRef, id: string, gamerTaskId: string, type: 'task.completed' | 'achievement.completed' = NotificationType.TASK_COMPLETED, at = '2026-11-28T12:00:00.000Z'): Notification & GamerRef =>
    ({ ...gamer, id, type, at, data: { gamerTaskId, taskId: randomUUID() } });

  it('answers which of a batch were copies, and stores every other one of it', async () => {
    const store = openStore(connection);
    await (await ensureIndexes(store)).dedupe;
    const inbox = inboxRepository(store, 60_000);
    const [ann, bob] = [{ applicationId: randomUUID(), gamerId: randomUUID() }, { applicationId: randomUUID(), gamerId: randomUUID() }];
    const next = monotonicUuidv7();
    const [x, y] = [randomUUID(), randomUUID()];
    const stored = completion(ann, next(), x);
    expect((await inbox.add([stored])).duplicates).toEqual(new Set());

    const batch = [
      completion(ann, next(), x), // a copy of the stored one
      completion(ann, next(), x, NotificationType.ACHIEVEMENT_COMPLETED), // another type: its own
      completion(bob, next(), x), // another gamer's: their own
      completion(ann, next(), y),
      completion(ann, next(), y), // a copy of the one before it in the batch
      completion(ann, next(), x, NotificationType.TASK_COMPLETED, '2026-11-29T08:00:00.000Z'), // completed again, later: its own
    ];
    const { duplicates } = await inbox.add(batch);
    expect(duplicates).toEqual(new Set([batch[0]!.id, batch[4]!.id]));
    const ids = async (gamer: GamerRef) => (await inbox.after(gamer, '0', 10)).map((n) => n.id);
    expect(await ids(ann)).toEqual([stored.id, batch[1]!.id, batch[3]!.id, batch[5]!.id]);
    expect(await ids(bob)).toEqual([batch[2]!.id]);
    const { applicationId: _a, gamerId: _g, ...first } = stored;
    expect((await inbox.after(ann, '0', 1))[0], 'the first copy, as it was').toEqual(first);
  });

  it('builds its index over an inbox that holds copies from before, which stay; a copy of one of them is stored once more', async () => {
    // a deployment from before dedupe keys: notifications without one, copies among them
    const db = connection.useDb(`${connection.db!.databaseName}_upgrade`);
    const store = openStore(db);
    const gamer = { applicationId: randomUUID(), gamerId: randomUUID() };
    const next = monotonicUuidv7();
    const gamerTaskId = randomUUID();
    const old = [completion(gamer, next(), gamerTaskId), completion(gamer, next(), gamerTaskId), completion(gamer, next(), randomUUID())];
    const expiresAt = new Date(Date.now() + 60_000);
    await store.notifications.createIndex({ applicationId: 1, gamerId: 1, _id: 1 }, { name: 'inbox' });
    await store.notifications.insertMany(old.map(({ id, ...n }): NotificationDoc => ({ _id: id, ...n, expiresAt })));

    await (await ensureIndexes(store)).dedupe;
    // the same as a second replica starting
    await (await ensureIndexes(store)).dedupe;
    const inbox = inboxRepository(store, 60_000);
    expect((await inbox.after(gamer, '0', 10)).map((n) => n.id)).toEqual(old.map((n) => n.id));
    // the old ones carry no completion key: a new copy is stored, and is the last
    const [again, onceMore] = [completion(gamer, next(), gamerTaskId), completion(gamer, next(), gamerTaskId)];
    expect((await inbox.add([again])).duplicates).toEqual(new Set());
    expect((await inbox.add([onceMore])).duplicates).toEqual(new Set([onceMore.id]));
    expect((await inbox.after(gamer, '0', 10)).map((n) => n.id)).toEqual([...old, again].map((n) => n.id));
    await db.dropDatabase();
  });

  it('builds its index over an inbox holding keyed copies stored while no index refused them, keeping the first of each', async () => {
    // copies of one completion an older replica or a build under way let through (MongoDB
    // fails a unique build at its commit): every start failed the same way before the fix
    const db = connection.useDb(`${connection.db!.databaseName}_copies`);
    const store = openStore(db);
    const gamer = { applicationId: randomUUID(), gamerId: randomUUID() };
    const next = monotonicUuidv7();
    const gamerTaskId = randomUUID();
    const [first, copy, other] = [completion(gamer, next(), gamerTaskId), completion(gamer, next(), gamerTaskId), completion(gamer, next(), randomUUID())];
    const expiresAt = new Date(Date.now() + 60_000);
    const keyed = (n: Notification & GamerRef, key: string): NotificationDoc => {
      const { id, ...rest } = n;
      return { _id: id, ...rest, expiresAt, dedupeKey: key };
    };
    await store.notifications.createIndex({ applicationId: 1, gamerId: 1, _id: 1 }, { name: 'inbox' });
    await store.notifications.insertMany([keyed(first, `completed:${gamerTaskId}`), keyed(copy, `completed:${gamerTaskId}`), keyed(other, `completed:${other.id}`)]);

    await (await ensureIndexes(store)).dedupe;
    const inbox = inboxRepository(store, 60_000);
    expect((await inbox.after(gamer, '0', 10)).map((n) => n.id)).toEqual([first.id, other.id]);
    expect((await store.notifications.indexes()).map((i) => i.name)).toContain('dedupe');
    await db.dropDatabase();
  });

  it('stores a copy whose first is past its retention but not yet removed by the store, in its place; two such copies in a batch store one', async () => {
    const store = openStore(connection);
    await (await ensureIndexes(store)).dedupe;
    let now = new Date();
    const inbox = inboxRepository(store, 60_000, () => now);
    const gamer = { applicationId: randomUUID(), gamerId: randomUUID() };
    const next = monotonicUuidv7();
    const [x, y] = [randomUUID(), randomUUID()];
    const first = [completion(gamer, next(), x), completion(gamer, next(), y)];
    expect((await inbox.add(first)).duplicates).toEqual(new Set());
    // a minute and more later: both past their retention, still in the store (its TTL monitor
    // or the sweep removes them later)
    now = new Date(now.getTime() + 61_000);
    expect(await store.notifications.countDocuments({ _id: { $in: first.map((n) => n.id) } })).toBe(2);
    const again = [completion(gamer, next(), x), completion(gamer, next(), y), completion(gamer, next(), y)];
    // before the fix: all three answered copies, none stored or sent
    expect((await inbox.add(again)).duplicates).toEqual(new Set([again[2]!.id]));
    expect((await inbox.after(gamer, '0', 10)).map((n) => n.id)).toEqual([again[0]!.id, again[1]!.id]);
    expect(await store.notifications.countDocuments({ _id: { $in: first.map((n) => n.id) } })).toBe(0);
    // and while these are kept, a copy is a copy again
    const third = completion(gamer, next(), x);
    expect((await inbox.add([third])).duplicates).toEqual(new Set([third.id]));
  });
});
