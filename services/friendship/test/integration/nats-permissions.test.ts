import { natsNames } from '@gfts/contracts';
import { connectNats } from '@gfts/platform';
import { composeNatsPassword, startComposeNats, type ConfiguredNats } from '@gfts/testkit';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presenceBoard } from '../../src/presence/board.ts';
import { startPresenceWatch } from '../../src/presence/watch.ts';

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
    // the bucket exists with the online window as its max age (the friendship user may look it up)
    const jsm = await jetstreamManager(nc);
    let info;
    for (let i = 0; i < 100 && !info; i++) {
      info = await jsm.streams.info(names.presenceStream).catch(() => undefined);
      if (!info) await new Promise((r) => setTimeout(r, 100));
    }
    expect(info?.config.max_age).toBe(60_000 * 1_000_000);
    // the watch's consumer is there, and nothing was refused
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await jsm.streams.info(names.presenceStream)).state.consumer_count).toBe(1);
    expect(errors.filter((e) => /permission/i.test(e))).toEqual([]);
    await watch.close();
  });
});
