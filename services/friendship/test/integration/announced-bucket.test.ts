import { natsNames } from '@gfts/contracts';
import { infra, natsPrefix } from '@gfts/testkit';
import { DiscardPolicy, jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAnnouncedBucket } from '../../src/presence/announced-bucket.ts';

const MIB = 1_048_576;

describe('the announced-presence bucket', () => {
  let nc: NatsConnection;
  beforeAll(async () => {
    nc = await connect({ servers: infra().natsUrl });
  });
  afterAll(async () => nc?.drain());

  it('bounds a bucket an earlier version created without max_bytes, keeping its keys', async () => {
    const prefix = natsPrefix();
    const names = natsNames(prefix);
    // as the service created it before
    const old = await new Kvm(jetstream(nc)).create(names.presenceAnnouncedBucket, { history: 1, ttl: 30 * 86_400_000, storage: StorageType.File, replicas: 1, allow_direct: true });
    await old.create('app.gamer', '{"status":"online"}');
    const jsm = await jetstreamManager(nc);
    expect((await jsm.streams.info(names.presenceAnnouncedStream)).config).toMatchObject({ max_bytes: -1, discard: DiscardPolicy.New });

    const kv = await openAnnouncedBucket(nc, { prefix, replicas: 1, maxBytes: 8 * MIB });
    expect((await jsm.streams.info(names.presenceAnnouncedStream)).config).toMatchObject({ max_bytes: 8 * MIB, discard: DiscardPolicy.Old });
    expect((await kv.get('app.gamer'))?.string()).toBe('{"status":"online"}');
  });

  it('once full, drops the oldest records and keeps taking claims', async () => {
    const prefix = natsPrefix();
    const kv = await openAnnouncedBucket(nc, { prefix, replicas: 1, maxBytes: MIB });
    const record = JSON.stringify({ status: 'online', lastSeenAt: new Date().toISOString(), at: new Date().toISOString(), pad: 'x'.repeat(1000) });
    const keys = Array.from({ length: 1_500 }, () => `${randomUUID()}.${randomUUID()}`); // about 1.7 MiB
    for (const key of keys) await kv.create(key, record);
    const { state } = await (await jetstreamManager(nc)).streams.info(natsNames(prefix).presenceAnnouncedStream);
    expect(state.bytes).toBeLessThanOrEqual(MIB);
    expect(await kv.get(keys[0]!)).toBeNull();
    expect((await kv.get(keys.at(-1)!))?.string()).toBe(record);
  });
});
