import { AckPolicy, DeliverPolicy, DiscardPolicy, JetStreamApiCodes, JetStreamApiError, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsNames } from '@gfts/contracts';

const nanos = (ms: number) => ms * 1_000_000;

export interface StreamSettings {
  replicas: number;
  maxAgeMs: number;
  duplicateWindowMs: number;
  maxDeliver: number;
  ackWaitMs: number;
}

function isNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && (error.code === JetStreamApiCodes.StreamNotFound || error.code === JetStreamApiCodes.ConsumerNotFound);
}

async function ensureStream(jsm: JetStreamManager, name: string, subjects: string[], settings: StreamSettings, duplicateWindowMs: number): Promise<void> {
  const config = {
    subjects,
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    num_replicas: settings.replicas,
    max_age: nanos(settings.maxAgeMs),
    duplicate_window: nanos(Math.min(duplicateWindowMs, settings.maxAgeMs)),
  };
  try {
    await jsm.streams.info(name);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    try {
      await jsm.streams.add({ name, ...config });
      return;
    } catch (addError) {
      // another replica created it in between: fall through to the update
      if (!(addError instanceof JetStreamApiError)) throw addError;
    }
  }
  await jsm.streams.update(name, config);
}

/**
 * The stats stream (every `<prefix>.stats.*` message, deduplicated by message id within
 * the duplicate window), its durable pull consumer shared by every tasks replica, and the
 * dead-letter stream. Safe to run from several replicas at once.
 */
export async function ensureStatsTopology(jsm: JetStreamManager, names: NatsNames, settings: StreamSettings): Promise<void> {
  await ensureStream(jsm, names.statsStream, [names.statsSubjects], settings, settings.duplicateWindowMs);
  await ensureStream(jsm, names.statsDeadLetterStream, [names.statsDeadLetter, names.statsDeadLetters], settings, settings.duplicateWindowMs);
  const consumer = {
    ack_policy: AckPolicy.Explicit,
    max_deliver: settings.maxDeliver,
    ack_wait: nanos(settings.ackWaitMs),
    max_ack_pending: 10_000,
    filter_subject: names.statsSubjects,
  };
  try {
    await jsm.consumers.info(names.statsStream, names.statsConsumer);
    await jsm.consumers.update(names.statsStream, names.statsConsumer, consumer);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await jsm.consumers.add(names.statsStream, { durable_name: names.statsConsumer, deliver_policy: DeliverPolicy.All, ...consumer });
  }
}
