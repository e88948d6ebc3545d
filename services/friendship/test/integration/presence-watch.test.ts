import { randomUUID } from 'node:crypto';
import { natsNames, presenceBeatKey, presenceHoldKey } from '@gfts/contracts';
import { connectNats } from '@gfts/platform';
import { eventually, infra, natsPrefix } from '@gfts/testkit';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presenceBoard, type PresenceChange } from '../../src/presence/board.ts';
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
});
