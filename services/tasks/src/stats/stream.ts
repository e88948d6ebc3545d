import { STAT_DEAD_LETTER_MAX_BYTES, STAT_EVENT_MAX_BYTES, type NatsNames } from '@gfts/contracts';
import { ensureStream } from '@gfts/platform';
import { AckPolicy, DeliverPolicy, DiscardPolicy, JetStreamApiCodes, JetStreamApiError, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';

const nanos = (ms: number) => ms * 1_000_000;

export interface StreamSettings {
  replicas: number;
  maxAgeMs: number;
  /** STATS_STREAM_MAX_BYTES: most bytes the stats stream holds per server */
  maxBytes: number;
  /** STATS_DEAD_LETTER_STREAM_MAX_BYTES: most bytes the dead-letter stream holds per server */
  deadLetterMaxBytes: number;
  duplicateWindowMs: number;
  maxDeliver: number;
  ackWaitMs: number;
}

function isNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound;
}

/**
 * What both streams share. Bounded in bytes as well as in age, with discard Old: under
 * load a full stream keeps less time instead of the server's store filling, which would
 * refuse writes to every stream (docs/operations.md, "Sizing the streams"). A message over
 * max_msg_size (a game server's junk) is refused by JetStream, not stored for a week.
 */
function limits(settings: StreamSettings, maxBytes: number, maxMsgSize: number) {
  return {
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    num_replicas: settings.replicas,
    max_age: nanos(settings.maxAgeMs),
    max_bytes: maxBytes,
    max_msg_size: maxMsgSize,
    duplicate_window: nanos(Math.min(settings.duplicateWindowMs, settings.maxAgeMs)),
  };
}

/**
 * The stats stream (every `<prefix>.stats.*` message, deduplicated by message id within
 * the duplicate window), its durable pull consumer shared by every tasks replica, and the
 * dead-letter stream. Safe to run from several replicas at once.
 */
export async function ensureStatsTopology(jsm: JetStreamManager, names: NatsNames, settings: StreamSettings): Promise<void> {
  await ensureStream(jsm, names.statsStream, { subjects: [names.statsSubjects], ...limits(settings, settings.maxBytes, STAT_EVENT_MAX_BYTES) });
  await ensureStream(jsm, names.statsDeadLetterStream, {
    subjects: [names.statsDeadLetter, names.statsDeadLetters],
    ...limits(settings, settings.deadLetterMaxBytes, STAT_DEAD_LETTER_MAX_BYTES),
  });
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
