import { randomUUID } from 'node:crypto';
import { natsNames, type PresenceChangedEvent } from '@gfts/contracts';
import { connectNats } from '@gfts/platform';
import { eventually, infra, interceptRequests, natsPrefix } from '@gfts/testkit';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetErasedGamers } from '../../src/gamer-erasure.ts';
import { startPresenceAnnouncer } from '../../src/presence/announcer.ts';
import { gamerKey, presenceBoard } from '../../src/presence/board.ts';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * A settled change is announced once, also when a step of it fails: the friends' read, or
 * the answer to its claim (which may have landed). Real NATS; faults injected at the client.
 */
describe('presence announcer, when a step fails', () => {
  let nc: NatsConnection;
  beforeAll(async () => {
    nc = await connectNats(infra().natsUrl, 'presence-announcer-test', quiet);
  });
  afterAll(async () => nc?.close());

  async function announcing(prefix: string, options: { recipients: () => Promise<string[]>; claimAnswersLost?: number; claimsLanding?: 'late'; claimsHeldUntil?: Promise<void>; received?: PresenceChangedEvent[] }) {
    const names = natsNames(prefix);
    const received: PresenceChangedEvent[] = options.received ?? [];
    const sub = options.received ? undefined : nc.subscribe(names.presenceChanged, { callback: (_e, msg) => void received.push(msg.json<PresenceChangedEvent>()) });
    await nc.flush();
    const faults = { claimAnswersLost: options.claimAnswersLost ?? 0, lateClaim: options.claimsLanding === 'late' };
    const claims = `$KV.${names.presenceAnnouncedBucket}.`;
    let held: (() => Promise<unknown>) | undefined;
    let claimHeld: () => void = () => undefined;
    const claimReached = new Promise<void>((resolve) => (claimHeld = resolve));
    const faulty = interceptRequests(nc, async (subject, send) => {
      if (subject.startsWith(claims) && faults.lateClaim) {
        // the first claim is held and its caller told it timed out; it lands just before the next one
        faults.lateClaim = false;
        held = send;
        throw new Error('injected: no answer (the claim is still on its way)');
      }
      if (subject.startsWith(claims) && options.claimsHeldUntil) {
        claimHeld();
        await options.claimsHeldUntil;
      }
      if (subject.startsWith(claims) && held) {
        const landing = held;
        held = undefined;
        await landing();
      }
      const answer = await send();
      if (subject.startsWith(claims) && faults.claimAnswersLost > 0) {
        faults.claimAnswersLost--;
        throw new Error('injected: the claim landed, its answer was lost');
      }
      return answer;
    });
    const board = presenceBoard({ onlineWindowMs: 60_000, maxEntries: 1_000 });
    const announcer = startPresenceAnnouncer({ nc: faulty, prefix, board, settleMs: 0, replicas: 1, maxBytes: 16 * 1_048_576, recipients: options.recipients, log: quiet });
    return { received, board, announcer, claimReached, close: async () => { await announcer.close(); sub?.unsubscribe(); } };
  }

  it('announces a change whose friends could not be read the first time', async () => {
    const [app, ann, bob] = [randomUUID(), randomUUID(), randomUUID()];
    let reads = 0;
    const run = await announcing(natsPrefix(), { recipients: async () => (++reads === 1 ? Promise.reject(new Error('injected: the store is away')) : [bob]) });
    try {
      run.announcer.changed(run.board.hold(gamerKey(app, ann), 'r1', Date.now()).change!);
      await eventually(async () => run.received.length === 1, 10_000);
      expect(run.received.map((e) => [e.gamerId, e.status, e.recipients])).toEqual([[ann, 'online', [bob]]]);
      expect(reads).toBe(2);
    } finally {
      await run.close();
    }
  });

  it('announces, once, a change whose claim landed while its answer was lost', async () => {
    const [app, ann, bob] = [randomUUID(), randomUUID(), randomUUID()];
    const run = await announcing(natsPrefix(), { recipients: async () => [bob], claimAnswersLost: 1 });
    try {
      run.announcer.changed(run.board.hold(gamerKey(app, ann), 'r1', Date.now()).change!);
      await eventually(async () => run.received.length === 1, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(run.received.map((e) => [e.gamerId, e.status, e.recipients])).toEqual([[ann, 'online', [bob]]]);
    } finally {
      await run.close();
    }
  });

  it('does not tell a change it could not tell once another replica has announced a newer one', async () => {
    const prefix = natsPrefix();
    const [app, ann, bob] = [randomUUID(), randomUUID(), randomUUID()];
    const key = gamerKey(app, ann);
    let aFails = true;
    // replica A claims "online" and cannot read the friends; replica B then announces "offline"
    const a = await announcing(prefix, { recipients: async () => (aFails ? Promise.reject(new Error('injected: the store is away')) : [bob]) });
    const b = await announcing(prefix, { recipients: async () => [bob], received: a.received });
    try {
      a.announcer.changed(a.board.hold(key, 'r1', Date.now()).change!);
      const records = await new Kvm(jetstream(nc)).open(natsNames(prefix).presenceAnnouncedBucket);
      await eventually(async () => ((await records.get(key))?.string() ?? '').includes('"online"'), 10_000);
      // the gamer leaves; both boards see it
      const at = Date.now();
      b.board.hold(key, 'r1', at - 1_000);
      const [offB, offA] = [b.board.release(key, 'r1', at).change!, a.board.release(key, 'r1', at).change!];
      b.announcer.changed(offB);
      a.announcer.changed(offA);
      await eventually(async () => a.received.some((e) => e.status === 'offline'), 10_000);
      // A's store is back: the "online" it kept is moot now
      aFails = false;
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(a.received.map((e) => e.status)).toEqual(['offline']);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('does not tell a status it claimed once a newer one was claimed and told while it read the friends', async () => {
    const prefix = natsPrefix();
    const [app, ann, bob] = [randomUUID(), randomUUID(), randomUUID()];
    const key = gamerKey(app, ann);
    let release!: () => void;
    const stalled = new Promise<void>((resolve) => (release = resolve));
    let reading!: () => void;
    const aReads = new Promise<void>((resolve) => (reading = resolve));
    // replica A claims "online", then its friends' query stalls (a store failover)
    const a = await announcing(prefix, { recipients: async () => { reading(); await stalled; return [bob]; } });
    const b = await announcing(prefix, { recipients: async () => [bob], received: a.received });
    try {
      a.announcer.changed(a.board.hold(key, 'r1', Date.now()).change!);
      await aReads;
      // the gamer leaves; replica B claims "offline" and tells it
      const at = Date.now();
      b.board.hold(key, 'r1', at - 1_000);
      b.announcer.changed(b.board.release(key, 'r1', at).change!);
      await eventually(async () => a.received.some((e) => e.status === 'offline'), 10_000);
      // A's query answers: its "online" is older than what friends were told (before: told after it)
      release();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(a.received.map((e) => e.status)).toEqual(['offline']);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('settles one change of a gamer at a time: a change settled while the last is still being told tells it once', async () => {
    const [app, ann, bob] = [randomUUID(), randomUUID(), randomUUID()];
    const key = gamerKey(app, ann);
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    let reads = 0;
    // the first read of the friends hangs (a store slow to answer), the next ones answer
    const run = await announcing(natsPrefix(), { recipients: async () => (++reads === 1 ? firstHeld.then(() => [bob]) : [bob]) });
    try {
      run.announcer.changed(run.board.hold(key, 'r1', Date.now()).change!);
      await eventually(async () => reads === 1, 10_000);
      // the gamer leaves while "online" is being told
      run.announcer.changed(run.board.release(key, 'r1', Date.now()).change!);
      await new Promise((resolve) => setTimeout(resolve, 500));
      releaseFirst();
      await eventually(async () => run.received.some((e) => e.status === 'offline'), 10_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(run.received.map((e) => e.status)).toEqual(['online', 'offline']);
    } finally {
      releaseFirst();
      await run.close();
    }
  });

  it('tells the newer status alone when the one it could not tell has moved on meanwhile', async () => {
    const [app, ann, bob] = [randomUUID(), randomUUID(), randomUUID()];
    const key = gamerKey(app, ann);
    let fails = true;
    const prefix = natsPrefix();
    const run = await announcing(prefix, { recipients: async () => (fails ? Promise.reject(new Error('injected: the store is away')) : [bob]) });
    try {
      run.announcer.changed(run.board.hold(key, 'r1', Date.now()).change!);
      const records = await new Kvm(jetstream(nc)).open(natsNames(prefix).presenceAnnouncedBucket);
      await eventually(async () => ((await records.get(key))?.string() ?? '').includes('"online"'), 10_000);
      // the gamer leaves before "online" could be told; the store comes back
      run.announcer.changed(run.board.release(key, 'r1', Date.now()).change!);
      fails = false;
      await eventually(async () => run.received.length > 0, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(run.received.map((e) => e.status)).toEqual(['offline']);
    } finally {
      await run.close();
    }
  });

  it('tells its own claim that landed late, after its next claim conflicted with it', async () => {
    const [app, ann, bob] = [randomUUID(), randomUUID(), randomUUID()];
    const run = await announcing(natsPrefix(), { recipients: async () => [bob], claimsLanding: 'late' });
    try {
      run.announcer.changed(run.board.hold(gamerKey(app, ann), 'r1', Date.now()).change!);
      await eventually(async () => run.received.length === 1, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(run.received.map((e) => [e.gamerId, e.status])).toEqual([[ann, 'online']]);
    } finally {
      await run.close();
    }
  });

  it('erases a gamer whose change is being settled after that settle, so no record of them is left', async () => {
    const [app, ann, bob] = [randomUUID(), randomUUID(), randomUUID()];
    const key = gamerKey(app, ann);
    let releaseClaims!: () => void;
    const claimsHeldUntil = new Promise<void>((resolve) => (releaseClaims = resolve));
    const prefix = natsPrefix();
    const run = await announcing(prefix, { recipients: async () => [bob], claimsHeldUntil });
    const records = async () => (await new Kvm(jetstream(nc)).open(natsNames(prefix).presenceAnnouncedBucket)).get(key);
    try {
      // the settle has read no record and its claim is on its way when the erasure comes
      run.announcer.changed(run.board.hold(key, 'r1', Date.now()).change!);
      await run.claimReached;
      const erased = run.announcer.forget(app, ann);
      setTimeout(() => releaseClaims(), 300);
      await erased;
      // the claim has landed by now, whenever the erasure ended
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect((await records())?.operation).not.toBe('PUT');
    } finally {
      releaseClaims();
      await run.close();
    }
  });

  it('a replica that did not erase the gamer purges what its settle under way wrote once the erasure is reported', async () => {
    const [app, ann, bob] = [randomUUID(), randomUUID(), randomUUID()];
    const key = gamerKey(app, ann);
    let releaseClaims!: () => void;
    const claimsHeldUntil = new Promise<void>((resolve) => (releaseClaims = resolve));
    const prefix = natsPrefix();
    const names = natsNames(prefix);
    // this replica is not the one that erases: it only hears the erasure's report
    const run = await announcing(prefix, { recipients: async () => [bob], claimsHeldUntil });
    const forgotten: string[] = [];
    const reports = forgetErasedGamers(nc, prefix, { caches: [{ forget: (a, g) => void forgotten.push(gamerKey(a, g)) }], presence: run.announcer }, quiet as never);
    const records = async () => (await new Kvm(jetstream(nc)).open(names.presenceAnnouncedBucket)).get(key);
    try {
      await nc.flush();
      // its settle has read no record and its claim is on its way when the erasure, elsewhere, is done and reported
      run.announcer.changed(run.board.hold(key, 'r1', Date.now()).change!);
      await run.claimReached;
      nc.publish(names.gamerErasureCompleted, JSON.stringify({ jobId: randomUUID(), applicationId: app, gamerId: ann, service: 'friendship', completedAt: new Date().toISOString() }));
      await eventually(async () => forgotten.includes(key), 5_000);
      releaseClaims();
      // the claim lands after the erasure's purge; the report's forget waits for it and purges it
      await eventually(async () => (await records())?.operation === 'PURGE', 10_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await records())?.operation).toBe('PURGE');
    } finally {
      releaseClaims();
      await reports.stop();
      await run.close();
    }
  });
});
