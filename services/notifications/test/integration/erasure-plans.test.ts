import { randomUUID } from 'node:crypto';
import { NotificationType } from '@gfts/contracts';
import { databaseUrl, infra, mongoPlanOfThisStore, sqlitePlan, stagesOf, type Explain, type Stage } from '@gfts/testkit';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monotonicUuidv7 } from '../../src/domain/ids.ts';
import { inboxRepository } from '../../src/repository/inbox.ts';
import { ensureIndexes, MENTION_INDEXES, openStore, type NotificationDoc, type Store } from '../../src/repository/store.ts';

/**
 * An erasure deletes what other gamers' inboxes say of the erased gamer: it seeks the
 * notifications naming them by the mention indexes, instead of reading every notification of
 * the application (until 2026-11-28). Pinned by the store's own plan, on MongoDB; the local
 * store does not push a dotted path down to SQLite (scripts/images/ferretdb/README.md), and
 * its plan says so.
 */
describe('an erasure\'s search for the notifications naming a gamer', () => {
  let connection: mongoose.Connection;
  let store: Store;
  const app = randomUUID();
  const erased = randomUUID();
  const next = monotonicUuidv7();
  const doc = (gamerId: string, type: NotificationType, data: unknown): NotificationDoc => {
    const _id = next();
    return { _id, applicationId: app, gamerId, type, at: new Date().toISOString(), data, expiresAt: new Date(Date.now() + 86_400_000), dedupeKey: _id };
  };

  beforeAll(async () => {
    connection = await mongoose.createConnection(databaseUrl(infra().mongoUrl, 'notifications-erasure-plans')).asPromise();
    store = openStore(connection);
    const { mentions, dedupe } = await ensureIndexes(store);
    await Promise.all([mentions, dedupe]);
    const others = Array.from({ length: 40 }, () => randomUUID());
    await store.notifications.insertMany([
      // a crowd of the application's notifications that name nobody, and some that name others
      ...others.flatMap((g) => Array.from({ length: 10 }, () => doc(g, NotificationType.TASK_COMPLETED, { gamerTaskId: randomUUID(), taskId: randomUUID() }))),
      ...others.map((g, i) => doc(g, NotificationType.FRIEND_REQUEST_RECEIVED, { friendshipId: randomUUID(), user: { id: others[(i + 1) % others.length], displayName: 'x', avatarUrl: null } })),
      // what the erased gamer's requests and their end left in 12 inboxes
      ...others.slice(0, 8).map((g) => doc(g, NotificationType.FRIEND_REQUEST_RECEIVED, { friendshipId: randomUUID(), user: { id: erased, displayName: 'Eve', avatarUrl: null } })),
      ...others.slice(8, 12).map((g) => doc(g, NotificationType.FRIEND_REMOVED, { friendshipId: randomUUID(), userId: erased })),
    ]);
  });

  afterAll(async () => {
    await connection?.dropDatabase();
    await connection?.close();
  });

  it('seeks each field that names a gamer by its own index, reading only the notifications naming them', async () => {
    // the fields are the code's own list: an empty one would make this assert nothing
    expect(MENTION_INDEXES.map((i) => i.field).sort()).toEqual(['data.user.id', 'data.userId']);
    for (const { field, name } of MENTION_INDEXES) {
      const filter = { applicationId: app, [field]: erased };
      const explain = (await store.notifications.find(filter).explain('executionStats')) as Explain;
      if (mongoPlanOfThisStore(explain)) {
        const stages = stagesOf((explain.queryPlanner as { winningPlan: Stage }).winningPlan);
        expect({ field, scans: stages.filter((s) => s.stage === 'IXSCAN').map((s) => s.indexName) }).toEqual({ field, scans: [name] });
        const stats = explain.executionStats as { totalDocsExamined: number; nReturned: number };
        expect({ field, examined: stats.totalDocsExamined }).toEqual({ field, examined: stats.nReturned });
        continue;
      }
      // the local store pushes the application down and filters the dotted path itself
      const plan = sqlitePlan(explain);
      expect(plan, 'explain answered neither a MongoDB nor a SQLite plan').not.toBeNull();
      expect(explain.filterPushdown).toBe(true);
    }
  });

  it('deletes them all, and nothing else', async () => {
    const before = await store.notifications.countDocuments({ applicationId: app });
    const removed = await inboxRepository(store, 60_000).eraseGamer(app, erased);
    expect(removed).toEqual({ own: 0, mentions: 12 });
    expect(await store.notifications.countDocuments({ applicationId: app })).toBe(before - 12);
  });
});
