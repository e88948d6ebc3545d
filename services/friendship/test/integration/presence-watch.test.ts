import { randomUUID } from 'node:crypto';
import { natsNames, presenceBeatKey, presenceHoldKey } from '@gfts/contracts';
import { connectNats } from '@gfts/platform';
import { eventually, infra, interceptRequests, natsPrefix, tcpHop } from '@gfts/testkit';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { gamerKey, presenceBoard, type PresenceChange } from '../../src/presence/board.ts';
import { startPresenceWatch } from '../../src/presence/watch.ts';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('presence watch, loading the bucket at start', () => {
  let nc: NatsConnection;
  beforeAll(async () => {
    nc = await connectNats(infra().natsUrl, 'presence-watch-test', quiet);
  });
  afterAll(async () => nc?.close());

  it('does not take a live notifications replica for dead while its old holds load before its heartbeat', async () => {
    const prefix = natsPrefix();
    const names = natsNames(prefix);
    const windowMs = 5_000;
    const start = (changes: PresenceChange[]) => {
      const board = presenceBoard({ onlineWindowMs: windowMs, maxEntries: 100_000 });
      // a sweep every millisecond: one certainly runs while the bucket loads
      const watch = startPresenceWatch({ nc, prefix, board, onlineWindowMs: windowMs, replicas: 1, sweepMs: 1, persist: async () => undefined, changed: (c) => void changes.push(c), log: quiet });
      return { board, watch };
    };
    // a first watch creates the bucket
    const first = start([]);
    const jsm = await jetstreamManager(nc);
    await eventually(async () => (await jsm.streams.info(names.presenceStream).catch(() => undefined)) !== undefined);
    await first.watch.close();

    // a notifications replica that has held its gamers for two hours, its heartbeat just rewritten:
    // in the stream the holds come first, with their old times, and the heartbeat last
    const kv = await new Kvm(jetstream(nc)).open(names.presenceBucket);
    const [holder, app] = [randomUUID(), randomUUID()];
    const gamers = Array.from({ length: 2_000 }, () => randomUUID());
    const twoHoursAgo = String(Date.now() - 2 * 3_600_000);
    for (let i = 0; i < gamers.length; i += 200) await Promise.all(gamers.slice(i, i + 200).map((g) => kv.put(presenceHoldKey(holder, app, g), twoHoursAgo)));
    await kv.put(presenceBeatKey(holder), String(Date.now()));

    // a friendship replica starts and loads it
    const changes: PresenceChange[] = [];
    const second = start(changes);
    try {
      await eventually(async () => second.board.size === gamers.length && second.board.isOnline(app, gamers.at(-1)!, Date.now()));
      // every gamer is online, none was announced offline, and the replica's keys are all still there
      expect(gamers.every((g) => second.board.isOnline(app, g, Date.now()))).toBe(true);
      expect(changes.filter((c) => c.status === 'offline')).toEqual([]);
      expect((await jsm.streams.info(names.presenceStream)).state.messages).toBe(gamers.length + 1);
      expect(await kv.get(presenceBeatKey(holder))).not.toBeNull();
    } finally {
      await second.watch.close();
    }
  });

  it('closes while it is starting its watch, instead of waiting for ever', async () => {
    // its watch's consumer is being created when the replica stops (a shutdown during start)
    let reached!: () => void;
    const creating = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const faulty = interceptRequests(nc, async (subject, send) => {
      if (subject.includes('.CONSUMER.CREATE.')) {
        reached();
        await held;
      }
      return send();
    });
    const board = presenceBoard({ onlineWindowMs: 5_000, maxEntries: 100 });
    const watch = startPresenceWatch({ nc: faulty, prefix: natsPrefix(), board, onlineWindowMs: 5_000, replicas: 1, sweepMs: 1_000, persist: async () => undefined, log: quiet });
    await creating;
    const closed = watch.close().then(() => 'closed');
    release();
    // before the fix the watch started after the close and nothing stopped it: the close never ended
    expect(await Promise.race([closed, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5_000))])).toBe('closed');
  });
});

describe('presence watch across an outage of its NATS connection', () => {
  let writer: NatsConnection;
  beforeAll(async () => {
    writer = await connectNats(infra().natsUrl, 'presence-writer-test', quiet);
  });
  afterAll(async () => writer?.close());

  /** A notifications replica holding `gamers`, its heartbeat written every 300 ms, stamped `skewMs` off the server's clock. */
  async function holding(prefix: string, app: string, gamers: string[], skewMs = 0) {
    const names = natsNames(prefix);
    const kv = await new Kvm(jetstream(writer)).open(names.presenceBucket);
    const holder = randomUUID();
    const stamp = () => String(Date.now() + skewMs);
    for (const g of gamers) await kv.put(presenceHoldKey(holder, app, g), stamp());
    await kv.put(presenceBeatKey(holder), stamp());
    const beats = setInterval(() => void kv.put(presenceBeatKey(holder), stamp()).catch(() => undefined), 300);
    return { kv, holder, stop: () => clearInterval(beats) };
  }

  it('shows the gamers held all along online once it is back, after an outage longer than the online window', async () => {
    const prefix = natsPrefix();
    const windowMs = 2_000;
    const url = new URL(infra().natsUrl);
    const hop = await tcpHop(url.hostname, Number(url.port));
    const nc = await connectNats(`nats://${hop.host}:${hop.port}`, 'presence-watch-hop-test', quiet);
    const board = presenceBoard({ onlineWindowMs: windowMs, maxEntries: 1_000 });
    const changes: PresenceChange[] = [];
    const watch = startPresenceWatch({ nc, prefix, board, onlineWindowMs: windowMs, replicas: 1, sweepMs: 100, persist: async () => undefined, changed: (c) => void changes.push(c), log: quiet });
    const jsm = await jetstreamManager(writer);
    await eventually(async () => (await jsm.streams.info(natsNames(prefix).presenceStream).catch(() => undefined)) !== undefined);
    const [app, kept, left] = [randomUUID(), randomUUID(), randomUUID()];
    const replica = await holding(prefix, app, [kept, left]);
    try {
      await eventually(async () => board.isOnline(app, kept, Date.now()) && board.isOnline(app, left, Date.now()));
      // this replica loses NATS for twice the online window; the writer goes on, and lets one gamer go meanwhile
      hop.cut();
      await new Promise((resolve) => setTimeout(resolve, 500));
      await replica.kv.purge(presenceHoldKey(replica.holder, app, left));
      await new Promise((resolve) => setTimeout(resolve, 2 * windowMs));
      hop.restore();
      await eventually(async () => board.isOnline(app, kept, Date.now()) && !board.isOnline(app, left, Date.now()), 10_000);
      // the one held all along was never announced offline
      expect(changes.filter((c) => c.status === 'offline').map((c) => c.key)).toEqual([gamerKey(app, left)]);
    } finally {
      replica.stop();
      await watch.close();
      await nc.close();
      await hop.close();
    }
  });

  it('stores an ended session\'s last-seen time after a failed write, trying again', async () => {
    const prefix = natsPrefix();
    const board = presenceBoard({ onlineWindowMs: 60_000, maxEntries: 1_000 });
    const nc = await connectNats(infra().natsUrl, 'presence-watch-persist-test', quiet);
    let attempts = 0;
    const stored: string[] = [];
    const persist = async (ended: { gamerId: string }[]) => {
      if (++attempts === 1) throw new Error('injected: the store is away');
      stored.push(...ended.map((e) => e.gamerId));
    };
    const watch = startPresenceWatch({ nc, prefix, board, onlineWindowMs: 60_000, replicas: 1, sweepMs: 1_000, persist, log: quiet });
    const jsm = await jetstreamManager(writer);
    await eventually(async () => (await jsm.streams.info(natsNames(prefix).presenceStream).catch(() => undefined)) !== undefined);
    const [app, gamer] = [randomUUID(), randomUUID()];
    const replica = await holding(prefix, app, [gamer]);
    try {
      await eventually(async () => board.isOnline(app, gamer, Date.now()));
      await replica.kv.purge(presenceHoldKey(replica.holder, app, gamer));
      await eventually(async () => stored.includes(gamer), 10_000);
      expect(attempts).toBe(2);
    } finally {
      replica.stop();
      await watch.close();
      await nc.close();
    }
  });

  it('takes a writer whose clock is behind for live: its times are the server\'s', async () => {
    const prefix = natsPrefix();
    const windowMs = 2_000;
    const board = presenceBoard({ onlineWindowMs: windowMs, maxEntries: 1_000 });
    const nc = await connectNats(infra().natsUrl, 'presence-watch-skew-test', quiet);
    const watch = startPresenceWatch({ nc, prefix, board, onlineWindowMs: windowMs, replicas: 1, sweepMs: 100, persist: async () => undefined, log: quiet });
    const jsm = await jetstreamManager(writer);
    await eventually(async () => (await jsm.streams.info(natsNames(prefix).presenceStream).catch(() => undefined)) !== undefined);
    const [app, gamer] = [randomUUID(), randomUUID()];
    // its clock 10 s behind: five online windows
    const replica = await holding(prefix, app, [gamer], -10_000);
    try {
      await eventually(async () => board.isOnline(app, gamer, Date.now()));
      // several sweeps later, still online, and its keys still there
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(board.isOnline(app, gamer, Date.now())).toBe(true);
      expect((await replica.kv.get(presenceHoldKey(replica.holder, app, gamer)))?.operation).toBe('PUT');
    } finally {
      replica.stop();
      await watch.close();
      await nc.close();
    }
  });

  it('ages heartbeats on the server\'s time: a friendship replica whose clock is ahead takes the notifications replicas for live', async () => {
    const prefix = natsPrefix();
    const windowMs = 2_000;
    const [app, gamer] = [randomUUID(), randomUUID()];
    const nc = await connectNats(infra().natsUrl, 'presence-watch-ahead-test', quiet);
    const changes: PresenceChange[] = [];
    const real = Date.now.bind(Date);
    // this replica's clock: 90 s (45 online windows) ahead of the server's
    const ahead = vi.spyOn(Date, 'now').mockImplementation(() => real() + 90_000);
    const board = presenceBoard({ onlineWindowMs: windowMs, maxEntries: 1_000 });
    const watch = startPresenceWatch({ nc, prefix, board, onlineWindowMs: windowMs, replicas: 1, sweepMs: 100, persist: async () => undefined, changed: (c) => void changes.push(c), log: quiet });
    let replica: Awaited<ReturnType<typeof holding>> | undefined;
    try {
      const jsm = await jetstreamManager(writer);
      await eventually(async () => (await jsm.streams.info(natsNames(prefix).presenceStream).catch(() => undefined)) !== undefined);
      // the writer's stamps on its own clock, as the server's (its values are not read)
      replica = await holding(prefix, app, [gamer], -90_000);
      await eventually(async () => board.isOnline(app, gamer, board.now()));
      // several sweeps later: still online, never announced offline, its keys still there
      // (before: its heartbeat looked 90 s old at every sweep, the replica was ended and purged)
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(board.isOnline(app, gamer, board.now())).toBe(true);
      expect(changes.filter((c) => c.status === 'offline')).toEqual([]);
      expect((await replica.kv.get(presenceHoldKey(replica.holder, app, gamer)))?.operation).toBe('PUT');
    } finally {
      ahead.mockRestore();
      replica?.stop();
      await watch.close();
      await nc.close();
    }
  });

  it('ends no notifications replica while the bucket does not answer (JetStream away, the connection up), and shows its gamers online once it answers', async () => {
    const prefix = natsPrefix();
    const names = natsNames(prefix);
    const windowMs = 2_000;
    const [app, gamer] = [randomUUID(), randomUUID()];
    let jetStreamAway = false;
    const base = await connectNats(infra().natsUrl, 'presence-watch-js-away-test', quiet);
    // JetStream's answers to this replica: none while away (a cluster that lost its quorum)
    const nc = interceptRequests(base, async (subject, send) => {
      if (jetStreamAway && subject.startsWith('$JS.')) throw new Error('injected: JetStream does not answer');
      return send();
    });
    const board = presenceBoard({ onlineWindowMs: windowMs, maxEntries: 1_000 });
    const changes: PresenceChange[] = [];
    const watch = startPresenceWatch({ nc, prefix, board, onlineWindowMs: windowMs, replicas: 1, sweepMs: 100, persist: async () => undefined, changed: (c) => void changes.push(c), log: quiet });
    const jsm = await jetstreamManager(writer);
    await eventually(async () => (await jsm.streams.info(names.presenceStream).catch(() => undefined)) !== undefined);
    const replica = await holding(prefix, app, [gamer]);
    let beats: ReturnType<typeof setInterval> | undefined;
    try {
      await eventually(async () => board.isOnline(app, gamer, board.now()));
      // the outage: the replica's heartbeat writes fail (it writes none), and this replica's looks get no answer
      replica.stop();
      jetStreamAway = true;
      await new Promise((resolve) => setTimeout(resolve, 3 * windowMs));
      // back: JetStream answers, and the replica's next heartbeat lands a moment later (within
      // its interval, here half a window): the old one in the bucket proves nothing yet
      jetStreamAway = false;
      await new Promise((resolve) => setTimeout(resolve, windowMs / 2));
      beats = setInterval(() => void replica.kv.put(presenceBeatKey(replica.holder), String(Date.now())).catch(() => undefined), 300);
      await eventually(async () => board.isOnline(app, gamer, board.now()), 10_000);
      await new Promise((resolve) => setTimeout(resolve, windowMs));
      // held all along: online, never announced offline, its keys kept (before: the sweep ended
      // the replica during the outage, or at its first look after it, and purged its keys)
      expect(board.isOnline(app, gamer, board.now())).toBe(true);
      expect(changes.filter((c) => c.status === 'offline')).toEqual([]);
      expect((await replica.kv.get(presenceHoldKey(replica.holder, app, gamer)))?.operation).toBe('PUT');
    } finally {
      clearInterval(beats);
      await watch.close();
      await base.close();
    }
  });
});
