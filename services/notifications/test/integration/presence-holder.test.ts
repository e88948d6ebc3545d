import { randomUUID } from 'node:crypto';
import { natsNames } from '@gfts/contracts';
import { connectNats } from '@gfts/platform';
import { eventually, infra, natsPrefix } from '@gfts/testkit';
import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presenceHolder } from '../../src/presence/holder.ts';

describe('presence holder', () => {
  let nc: NatsConnection;
  beforeAll(async () => {
    nc = await connectNats(infra().natsUrl, 'presence-holder-test', { info: () => undefined, warn: () => undefined, error: () => undefined });
  });
  afterAll(async () => nc?.close());

  it('says when its writes fail and when they go through again, for every outage, not only the first', async () => {
    const prefix = natsPrefix();
    const names = natsNames(prefix);
    // the bucket as the friendship service makes it
    const bucket = () => new Kvm(jetstream(nc)).create(names.presenceBucket, { history: 1, storage: StorageType.Memory, allow_direct: true, markerTTL: 5_000 });
    await bucket();
    const jsm = await jetstreamManager(nc);
    const said: string[] = [];
    const log = { info: (_o: unknown, msg: string) => void said.push(msg), warn: (_o: unknown, msg: string) => void said.push(msg) };
    const holder = presenceHolder({ nc, prefix, holderId: randomUUID(), refreshMs: 100, maxInFlight: 16, log: log as never });
    const count = (msg: string) => said.filter((m) => m === msg).length;
    try {
      holder.held({ applicationId: randomUUID(), gamerId: randomUUID() });
      await eventually(async () => count('presence of connected gamers recorded') === 1);
      for (let outage = 1; outage <= 2; outage++) {
        // the bucket is gone (NATS lost its memory stream), then back
        await jsm.streams.delete(names.presenceStream);
        await eventually(async () => count('presence not written; retried at the next heartbeat') === outage);
        await bucket();
        await eventually(async () => count('presence written again') === outage);
      }
    } finally {
      await holder.close();
    }
    expect(count('presence not written; retried at the next heartbeat')).toBe(2);
  });
});
