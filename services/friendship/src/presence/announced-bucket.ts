import { natsNames } from '@gfts/contracts';
import { DiscardPolicy, jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';

/** How long the announced status of a gamer is remembered; longer than any session. */
const ANNOUNCED_TTL_MS = 30 * 86_400_000;

export interface AnnouncedBucketSettings {
  prefix: string;
  /** servers holding the bucket, when this service creates it */
  replicas: number;
  /** PRESENCE_ANNOUNCED_BUCKET_MAX_BYTES: most bytes the bucket holds per server */
  maxBytes: number;
}

/**
 * The announced-presence bucket (one key per gamer whose presence changed within 30 days),
 * created or bound, and held to `maxBytes` with discard Old: once full, the records of the
 * gamers whose presence has not changed for longest go first. Such a gamer's next change
 * finds no record and is announced as new (at worst friends hear a status they knew),
 * unless it is going offline: no record counts as offline, so that change is not
 * announced, and friends told "online" keep it until the gamer's next session (the friend
 * list shows them offline at once). The bucket's own discard New would instead refuse every
 * claim, and so every announcement.
 * Set on a bucket an earlier version created too (Kvm.create leaves an existing one as it is).
 */
export async function openAnnouncedBucket(nc: NatsConnection, settings: AnnouncedBucketSettings): Promise<KV> {
  const names = natsNames(settings.prefix);
  const kvm = new Kvm(jetstream(nc));
  const limits = { history: 1, ttl: ANNOUNCED_TTL_MS, storage: StorageType.File, replicas: settings.replicas, allow_direct: true, max_bytes: settings.maxBytes };
  const kv = await kvm.create(names.presenceAnnouncedBucket, limits).catch(() => kvm.open(names.presenceAnnouncedBucket, { allow_direct: true }));
  const jsm = await jetstreamManager(nc);
  const { config } = await jsm.streams.info(names.presenceAnnouncedStream);
  if (config.max_bytes !== settings.maxBytes || config.discard !== DiscardPolicy.Old) {
    await jsm.streams.update(names.presenceAnnouncedStream, { ...config, max_bytes: settings.maxBytes, discard: DiscardPolicy.Old });
  }
  return kv;
}
