import { randomUUID } from 'node:crypto';
import { natsNames, presenceBeatKey, presenceHoldKey, type PresenceChangedEvent } from '@gfts/contracts';
import { connectNats } from '@gfts/platform';
import { composeNatsPassword, eventually, startComposeNats, type ConfiguredNats } from '@gfts/testkit';
import { DiscardPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPresenceAnnouncer } from '../../src/presence/announcer.ts';
import { gamerKey, presenceBoard } from '../../src/presence/board.ts';
import { startPresenceWatch } from '../../src/presence/watch.ts';
import { forgetErasedGamers } from '../../src/gamer-erasure.ts';

/**
 * The friendship user of deploy/compose (generated from libs/contracts) can run the
 * presence watch: create the bucket, and start and keep its ordered consumer, with no
 * permissions violation. Its own NATS container with compose's files.
 */

describe('presence watch under the friendship NATS user', () => {
  let server: ConfiguredNats;
  let nc: NatsConnection;
  const errors: string[] = [];
  beforeAll(async () => {
    server = await startComposeNats();
    const log = { info: () => undefined, warn: (o: unknown) => errors.push(JSON.stringify(o)), error: (o: unknown) => errors.push(JSON.stringify(o)) };
    nc = await connectNats(server.url, 'friendship', log, { user: 'friendship', password: composeNatsPassword('NATS_FRIENDSHIP_PASSWORD') });
    void (async () => {
      for await (const status of nc.status()) if (status.type === 'error') errors.push(String(status.error));
    })();
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it('creates the presence bucket and keeps its watch running', async () => {
    const log = { info: () => undefined, warn: (o: unknown) => errors.push(JSON.stringify(o)) };
    const watch = startPresenceWatch({
      nc, prefix: 'gfts', board: presenceBoard({ onlineWindowMs: 60_000, maxEntries: 1_000 }), onlineWindowMs: 60_000, replicas: 1,
      sweepMs: 1_000, persist: async () => undefined, log,
    });
    const names = natsNames('gfts');
    // the bucket exists without a max age (liveness is each replica's heartbeat), with per-message TTLs for the release markers
    const jsm = await jetstreamManager(nc);
    let info;
    for (let i = 0; i < 100 && !info; i++) {
      info = await jsm.streams.info(names.presenceStream).catch(() => undefined);
      if (!info) await new Promise((r) => setTimeout(r, 100));
    }
    expect(info?.config.max_age).toBe(0);
    expect(info?.config.allow_msg_ttl).toBe(true);
    // the watch's consumer is there, and nothing was refused
    await expect.poll(async () => (await jsm.streams.info(names.presenceStream)).state.consumer_count, { timeout: 10_000, interval: 100 }).toBe(1);
    expect(errors.filter((e) => /permission/i.test(e))).toEqual([]);
    await watch.close();
  });

  it('purges the keys of a notifications replica whose heartbeat stopped, under the same user', async () => {
    const names = natsNames('gfts');
    const log = { info: () => undefined, warn: (o: unknown) => errors.push(JSON.stringify(o)) };
    const board = presenceBoard({ onlineWindowMs: 5_000, maxEntries: 1_000 });
    const watch = startPresenceWatch({ nc, prefix: 'gfts', board, onlineWindowMs: 5_000, replicas: 1, sweepMs: 500, persist: async () => undefined, log });
    // a notifications replica (as its own user) writes a heartbeat and a gamer, then dies
    const writer = await connectNats(server.url, 'notifications', { info: () => undefined, warn: () => undefined, error: () => undefined }, { user: 'notifications', password: composeNatsPassword('NATS_NOTIFICATIONS_PASSWORD') });
    try {
      let kv;
      for (let i = 0; i < 100 && !kv; i++) {
        kv = await new Kvm(jetstream(writer)).open(names.presenceBucket).then(async (b) => (await b.status(), b)).catch(() => undefined);
        if (!kv) await new Promise((r) => setTimeout(r, 100));
      }
      const [holder, app, gamer] = [randomUUID(), randomUUID(), randomUUID()];
      await kv!.put(presenceBeatKey(holder), String(Date.now()));
      await kv!.put(presenceHoldKey(holder, app, gamer), String(Date.now()));
      for (let i = 0; i < 50 && !board.isOnline(app, gamer, Date.now()); i++) await new Promise((r) => setTimeout(r, 100));
      expect(board.isOnline(app, gamer, Date.now())).toBe(true);
      // no more heartbeats: a window later the sweep ends the replica and purges its keys (the bucket held nothing else)
      const jsm = await jetstreamManager(nc);
      const messages = async () => (await jsm.streams.info(names.presenceStream)).state.messages;
      expect(await messages()).toBe(2);
      for (let i = 0; i < 150 && (await messages()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await messages()).toBe(0);
      expect(board.isOnline(app, gamer, Date.now())).toBe(false);
      expect(errors.filter((e) => /permission/i.test(e))).toEqual([]);
    } finally {
      await watch.close();
      await writer.close();
    }
  }, 30_000);

  it('creates the announced bucket, claims changes in it and publishes them, under the same user', async () => {
    const names = natsNames('gfts');
    // the notifications user is the one that reads settled changes
    const reader = await connectNats(server.url, 'notifications', { info: () => undefined, warn: () => undefined, error: () => undefined }, { user: 'notifications', password: composeNatsPassword('NATS_NOTIFICATIONS_PASSWORD') });
    const received: PresenceChangedEvent[] = [];
    reader.subscribe(names.presenceChanged, { callback: (_e, msg) => void received.push(msg.json<PresenceChangedEvent>()) });
    await reader.flush();
    const log = { info: () => undefined, warn: (o: unknown) => errors.push(JSON.stringify(o)) };
    const board = presenceBoard({ onlineWindowMs: 60_000, maxEntries: 1_000 });
    const [app, ann, bob] = [randomUUID(), randomUUID(), randomUUID()];
    const announcer = startPresenceAnnouncer({ nc, prefix: 'gfts', board, settleMs: 0, replicas: 1, maxBytes: 16 * 1_048_576, recipients: async () => [bob], log });
    try {
      const key = gamerKey(app, ann);
      announcer.changed(board.hold(key, 'r1', Date.now()).change!);
      // the bucket may still be being created: announce again until the claim went through
      for (let i = 0; i < 100 && received.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        if (i % 10 === 9) announcer.changed({ key, status: 'online', at: Date.now() });
      }
      expect(received.map((e) => [e.gamerId, e.status, e.recipients])).toEqual([[ann, 'online', [bob]]]);
      // going offline: the claim is an update at the revision read
      announcer.changed(board.release(key, 'r1', Date.now()).change!);
      for (let i = 0; i < 100 && received.length === 1; i++) await new Promise((r) => setTimeout(r, 100));
      expect(received.map((e) => e.status)).toEqual(['online', 'offline']);
      expect(errors.filter((e) => /permission/i.test(e))).toEqual([]);
      // bounded by the same user (a stream update)
      const { config } = await (await jetstreamManager(nc)).streams.info(names.presenceAnnouncedStream);
      expect(config).toMatchObject({ max_bytes: 16 * 1_048_576, discard: DiscardPolicy.Old });
    } finally {
      await announcer.close();
      await reader.close();
    }
  });

  it('logs a permissions violation with the error, which names the subject', async () => {
    const warnings: { nats?: string; err?: unknown }[] = [];
    const log = { info: () => undefined, warn: (o: { nats?: string; err?: unknown }) => warnings.push(o), error: () => undefined };
    const other = await connectNats(server.url, 'friendship', log, { user: 'friendship', password: composeNatsPassword('NATS_FRIENDSHIP_PASSWORD') });
    try {
      // stats are the game servers' and the tasks service's, not friendship's
      other.publish('gfts.stats.not-mine', 'x');
      await other.flush();
      await eventually(async () => warnings.some((w) => w.nats === 'error' && /Permissions Violation.*gfts\.stats\.not-mine/i.test(String(w.err))), 5_000);
    } finally {
      await other.close();
    }
  });

  it('hears finished erasures, naming its own service only, under the same user', async () => {
    const names = natsNames('gfts');
    const log = { info: () => undefined, warn: (o: unknown) => errors.push(JSON.stringify(o)), error: (o: unknown) => errors.push(JSON.stringify(o)) } as never;
    const forgotten: string[] = [];
    const reports = forgetErasedGamers(nc, 'gfts', { caches: [{ forget: (app, gamer) => void forgotten.push(`${app}:${gamer}`) }], presence: { forget: async () => undefined } }, log);
    await nc.flush();
    // the tasks user's report is another service's; then friendship's own, as its consumer publishes it
    const tasks = await connectNats(server.url, 'tasks', { info: () => undefined, warn: () => undefined, error: () => undefined }, { user: 'tasks', password: composeNatsPassword('NATS_TASKS_PASSWORD') });
    try {
      const report = (service: string) => ({ jobId: randomUUID(), applicationId: randomUUID(), gamerId: randomUUID(), service, completedAt: new Date().toISOString() });
      const theirs = report('tasks');
      const ours = report('friendship');
      tasks.publish(names.gamerErasureCompleted, JSON.stringify(theirs));
      await tasks.flush();
      nc.publish(names.gamerErasureCompleted, JSON.stringify(ours));
      await eventually(async () => forgotten.length > 0, 5_000);
      expect(forgotten).toEqual([`${ours.applicationId}:${ours.gamerId}`]);
      expect(errors.filter((e) => /permission/i.test(e))).toEqual([]);
    } finally {
      await reports.stop();
      await tasks.close();
    }
  });

  it('subscribes again to erasure reports when the server refused it (an older permission file), warning each time', async () => {
    // the gateway user may not subscribe to the reports: what a friendship replica meets
    // while NATS still runs a permission file from before the subscription existed
    const warnings: string[] = [];
    const refused = await connectNats(server.url, 'gateway', { info: () => undefined, warn: () => undefined, error: () => undefined }, { user: 'gateway', password: composeNatsPassword('NATS_GATEWAY_PASSWORD') });
    const log = { info: () => undefined, warn: (_o: unknown, message: string) => void warnings.push(message), error: () => undefined } as never;
    const reports = forgetErasedGamers(refused, 'gfts', { caches: [], presence: { forget: async () => undefined } }, log);
    try {
      // refused at once, then again 1 s later: it keeps trying instead of going quiet
      await eventually(async () => warnings.length >= 2, 10_000);
      expect(warnings[0]).toMatch(/subscribing again/);
    } finally {
      await reports.stop();
      await refused.close();
    }
  });
});
