import { databaseUrl, infra } from '@gfts/testkit';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GamerProgressRepository } from '../../src/repository/gamer-progress-repository.ts';
import { GamerTaskRepository } from '../../src/repository/gamer-task-repository.ts';
import { LeaseRepository } from '../../src/repository/lease-repository.ts';
import { openStore, type Store } from '../../src/repository/store.ts';
import { Sweeper } from '../../src/sweep.ts';

/** One replica sweeps per period: the holder of the sweep lease. Real store. */
describe('the sweep lease', () => {
  let connection: mongoose.Connection;
  let store: Store;
  beforeAll(async () => {
    connection = await mongoose.createConnection(databaseUrl(infra().mongoUrl, 'sweep-lease')).asPromise();
    store = openStore(connection);
  });
  afterAll(async () => {
    await connection?.dropDatabase();
    await connection?.close();
  });

  const replica = (holder: string) => {
    const gamerTasks = new GamerTaskRepository(store);
    const noop = { recover: async () => 0, publishLeftOver: async () => 0, republishUnfinished: async () => 0, prune: async () => 0 };
    const quiet = { info: () => {}, warn: () => {} } as unknown as ConstructorParameters<typeof Sweeper>[0]['log'];
    return new Sweeper({
      gamerTasks, progress: new GamerProgressRepository(store, gamerTasks, 100), claims: noop as never, erasures: noop as never, processed: noop as never, keys: noop as never, log: quiet,
      lease: { leases: new LeaseRepository(store), holder },
      settings: { intervalMs: 60_000, claimRecoveryAfterMs: 60_000, processedEventRetentionMs: 0, idempotencyKeyRetentionMs: 0, expiryPage: 100, erasureRepublishAfterMs: 60 * 60_000 },
    });
  };

  it('lets one of two replicas sweep a period, the same one again while it holds the lease, the other once it ran out', async () => {
    const [a, b] = [replica('a'), replica('b')];
    const start = new Date();
    // both at once, the store's first lease: one sweeps
    const first = await Promise.all([a.tick(start), b.tick(start)]);
    expect(first.filter(Boolean)).toHaveLength(1);
    const [holder, other] = first[0] ? [a, b] : [b, a];
    // within the lease (nine tenths of a period)
    const later = new Date(start.getTime() + 30_000);
    expect(await other.tick(later)).toBe(false);
    expect(await holder.tick(later)).toBe(true);
    // renewed at `later`: still the holder's a period after the start
    expect(await other.tick(new Date(start.getTime() + 60_000))).toBe(false);
    // run out: the other's
    expect(await other.tick(new Date(later.getTime() + 60_000))).toBe(true);
    expect(await holder.tick(new Date(later.getTime() + 61_000))).toBe(false);
  });
});
