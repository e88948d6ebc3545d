import { databaseUrl, infra } from '@gfts/testkit';
import mongoose from 'mongoose';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GamerProgressRepository } from '../../src/repository/gamer-progress-repository.ts';
import { GamerTaskRepository } from '../../src/repository/gamer-task-repository.ts';
import { LeaseRepository } from '../../src/repository/lease-repository.ts';
import { openStore, type Store } from '../../src/repository/store.ts';
import { Sweeper } from '../../src/sweep.ts';

// one database for the file's sweeps, real store
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

/** One replica sweeps per period: the holder of the sweep lease. */
describe('the sweep lease', () => {

  const replica = (holder: string, opts: { gamerTasks?: GamerTaskRepository; clock?: () => Date; expiryPage?: number } = {}) => {
    const gamerTasks = opts.gamerTasks ?? new GamerTaskRepository(store);
    const noop = { recover: async () => 0, publishLeftOver: async () => 0, republishUnfinished: async () => 0, prune: async () => 0 };
    const quiet = { info: () => {}, warn: () => {} } as unknown as ConstructorParameters<typeof Sweeper>[0]['log'];
    return new Sweeper({
      gamerTasks, progress: new GamerProgressRepository(store, gamerTasks, 100), claims: noop as never, erasures: noop as never, processed: noop as never, keys: noop as never, log: quiet,
      lease: { leases: new LeaseRepository(store), holder },
      ...(opts.clock ? { clock: opts.clock } : {}),
      settings: { intervalMs: 60_000, claimRecoveryAfterMs: 60_000, processedEventRetentionMs: 0, idempotencyKeyRetentionMs: 0, expiryPage: opts.expiryPage ?? 100, erasureRepublishAfterMs: 60 * 60_000 },
    });
  };

  /** No lease held, and three gamer tasks of a new application expired a second ago: three pages of one. */
  async function noLeaseAndThreeExpiredTasks(): Promise<string> {
    await store.leases.deleteMany({});
    const app = randomUUID();
    const past = new Date(Date.now() - 1_000);
    await store.gamerTasks.insertMany([1, 2, 3].map((i) => ({ _id: `${app}:${i}`, applicationId: app, gamerId: randomUUID(), taskId: randomUUID(), expiredAt: past, claimState: 'none' }) as never));
    return app;
  }

  it('lets one of two replicas sweep a period, the same one again while it holds the lease, the other half a period after it ran out', async () => {
    await store.leases.deleteMany({});
    const [a, b] = [replica('a'), replica('b')];
    const start = new Date();
    // both at once, the store's first lease: one sweeps
    const first = await Promise.all([a.tick(start), b.tick(start)]);
    expect(first.filter(Boolean)).toHaveLength(1);
    const [holder, other] = first[0] ? [a, b] : [b, a];
    // within the lease (nine tenths of a period, until start + 54 s)
    const later = new Date(start.getTime() + 30_000);
    expect(await other.tick(later)).toBe(false);
    expect(await holder.tick(later)).toBe(true);
    // renewed at `later` (until later + 54 s = start + 84 s); ran out, but not half a period
    // ago by the other's clock: a clock 30 s ahead takes no lease its holder still renews
    expect(await other.tick(new Date(start.getTime() + 100_000))).toBe(false);
    // half a period after it ran out: the other's
    expect(await other.tick(new Date(start.getTime() + 115_000))).toBe(true);
    expect(await holder.tick(new Date(start.getTime() + 116_000))).toBe(false);
  });

  it('renews the lease at every page of a long sweep, and gives it back when the replica stops', async () => {
    const app = await noLeaseAndThreeExpiredTasks();
    // A's second and third pages wait for the test
    const gates: (() => void)[] = [];
    const real = new GamerTaskRepository(store);
    let pages = 0;
    const slow = Object.assign(Object.create(real) as GamerTaskRepository, {
      deleteExpiredPage: async (...args: Parameters<GamerTaskRepository['deleteExpiredPage']>) => {
        if (++pages > 1) await new Promise<void>((resolve) => gates.push(resolve));
        return real.deleteExpiredPage(...args);
      },
    });
    const start = new Date();
    let clockA = start;
    const a = replica('a', { gamerTasks: slow, clock: () => clockA, expiryPage: 1 });
    const b = replica('b');
    const sweeping = a.tick(start);
    await vi.waitFor(() => expect(gates).toHaveLength(1), { timeout: 15_000 });
    // a long sweep: A's clock is 80 s on when its first page ends and it renews the lease
    clockA = new Date(start.getTime() + 80_000);
    gates.shift()!();
    await vi.waitFor(() => expect(gates).toHaveLength(1), { timeout: 15_000 });
    // without the renewal the lease ran out at start + 54 s: B would take it and sweep too
    expect(await b.tick(new Date(start.getTime() + 115_000))).toBe(false);
    gates.shift()!();
    await vi.waitFor(() => expect(gates).toHaveLength(1), { timeout: 15_000 });
    gates.shift()!();
    expect(await sweeping).toBe(true);
    expect(await store.gamerTasks.countDocuments({ applicationId: app })).toBe(0);
    // stopped, A gives the lease back: B takes it at once
    await a.stop();
    expect(await b.tick(new Date(start.getTime() + 116_000))).toBe(true);
  });

  it('stops paging once another replica took its lease, and gives back no lease it no longer holds', async () => {
    const app = await noLeaseAndThreeExpiredTasks();
    // A's second page waits for the test
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const atSecondPage = new Promise<void>((resolve) => (reached = resolve));
    const real = new GamerTaskRepository(store);
    let pages = 0;
    const slow = Object.assign(Object.create(real) as GamerTaskRepository, {
      deleteExpiredPage: async (...args: Parameters<GamerTaskRepository['deleteExpiredPage']>) => {
        if (++pages === 2) {
          reached();
          await gate;
        }
        return real.deleteExpiredPage(...args);
      },
    });
    // B deletes nothing itself: what goes is A's doing
    const idle = Object.assign(Object.create(real) as GamerTaskRepository, { deleteExpiredPage: async () => ({ found: 0, removed: [] }) });
    const start = new Date();
    const a = replica('a', { gamerTasks: slow, clock: () => start, expiryPage: 1 });
    const b = replica('b', { gamerTasks: idle });
    const sweeping = a.tick(start);
    await atSecondPage;
    // A stalled past its lease (renewed at its first page, until start + 54 s): B takes it
    expect(await b.tick(new Date(start.getTime() + 115_000))).toBe(true);
    release();
    expect(await sweeping).toBe(true);
    // A's second page went, then its renewal failed: no third page (two sweepers at once)
    expect(await store.gamerTasks.countDocuments({ applicationId: app })).toBe(1);
    // stopped, A leaves B's lease alone: another replica still finds it held (a release of
    // any holder's lease would let C take it here)
    await a.stop();
    expect(await replica('c').tick(new Date(start.getTime() + 116_000))).toBe(false);
    expect(await b.tick(new Date(start.getTime() + 117_000))).toBe(true);
  });
});

/** The sweep's steps: their order, and each failing on its own. */
describe('the sweep\'s steps', () => {

  /** A sweeper whose other steps say when they ran, and whose page of expired tasks `pageOf` may replace. */
  function sweeper(ran: string[], pageOf?: (real: GamerTaskRepository) => GamerTaskRepository['deleteExpiredPage']) {
    const real = new GamerTaskRepository(store);
    const gamerTasks = pageOf ? Object.assign(Object.create(real) as GamerTaskRepository, { deleteExpiredPage: pageOf(real) }) : real;
    const step = (name: string) => async () => {
      ran.push(name);
      return 0;
    };
    const quiet = { info: () => {}, warn: () => {} } as unknown as ConstructorParameters<typeof Sweeper>[0]['log'];
    return new Sweeper({
      gamerTasks, progress: new GamerProgressRepository(store, real, 100), log: quiet,
      claims: { recover: step('recover') } as never,
      erasures: { publishLeftOver: step('publishLeftOver'), republishUnfinished: step('republishUnfinished') } as never,
      processed: { prune: step('prune events') } as never,
      keys: { prune: step('prune keys') } as never,
      settings: { intervalMs: 60_000, claimRecoveryAfterMs: 60_000, processedEventRetentionMs: 0, idempotencyKeyRetentionMs: 0, expiryPage: 100, erasureRepublishAfterMs: 60 * 60_000 },
    });
  }

  it('publishes erasures first, and runs every other step when the expired tasks\' step fails', async () => {
    const ran: string[] = [];
    const failing = sweeper(ran, () => async () => {
      ran.push('expired');
      throw new Error('injected: the store refused the page');
    });
    await failing.runOnce(new Date());
    // before: recover, then the failing page, and nothing after it: erasures were never published
    expect(ran).toEqual(['publishLeftOver', 'republishUnfinished', 'recover', 'expired', 'prune events', 'prune keys']);
  });

  it('runs no step after the one during which it lost its lease', async () => {
    const ran: string[] = [];
    let asked = 0;
    // the lease is lost during the third step
    await sweeper(ran).runOnce(new Date(), async () => ++asked < 3);
    expect(ran).toEqual(['publishLeftOver', 'republishUnfinished', 'recover']);
  });
});

