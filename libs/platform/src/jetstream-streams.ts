import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream';

/** A stream's settings as a service ensures them: everything but the name. */
export type EnsuredStreamConfig = Partial<Omit<StreamConfig, 'name'>>;

function isNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound;
}

/**
 * The consumer or its stream is gone (an operator's `nats consumer rm`, a JetStream store
 * lost): a pull loop that meets it makes them again, as its service's start does, instead
 * of retrying a consumer that will never come back until a restart.
 */
export function isConsumerOrStreamMissing(error: unknown): boolean {
  return error instanceof JetStreamApiError && (error.code === JetStreamApiCodes.ConsumerNotFound || error.code === JetStreamApiCodes.StreamNotFound);
}

/**
 * How long a consumer or stream must be found missing, at every look, before a pull loop
 * makes it again: a moment's "not found" (a leader moving, a server of an R1 consumer
 * restarting) must not make a new consumer that delivers its whole stream again.
 */
export const RECREATE_AFTER_MISSING_MS = 10_000;

/** Whether the looks of a pull loop have found its consumer missing for RECREATE_AFTER_MISSING_MS without a break. */
export class MissingSince {
  private since: number | undefined;
  private readonly afterMs: number;

  constructor(afterMs: number = RECREATE_AFTER_MISSING_MS) {
    this.afterMs = afterMs;
  }

  /** The consumer was found. */
  found(): void {
    this.since = undefined;
  }

  /**
   * After a failed look: makes the consumer (`what`, with its log `fields`) again with
   * `recreate` once it has been missing long enough, and says how that went. Gone for good until
   * made again: until 2026-11-29 a pull loop asked for it every second until a restart.
   */
  async recreateIfGone(error: unknown, recreate: (() => Promise<void>) | undefined, log: { warn(o: object, msg: string): void; error(o: object, msg: string): void }, what: string, fields: object = {}): Promise<void> {
    if (!recreate || !this.missingLongEnough(error)) return;
    await recreate().then(
      () => log.warn(fields, `${what} was gone: made again (it delivers what its stream still holds)`),
      (recreateError: unknown) => log.error({ ...fields, err: recreateError }, `${what} is gone and could not be made again`),
    );
  }

  /** A look failed with `error`: true once it and every look before it for `afterMs` found the consumer missing. */
  missingLongEnough(error: unknown, nowMs: number = performance.now()): boolean {
    if (!isConsumerOrStreamMissing(error)) {
      this.since = undefined;
      return false;
    }
    this.since ??= nowMs;
    return nowMs - this.since >= this.afterMs;
  }
}

/** JetStream's "stream name already in use with a different configuration" (JSStreamNameExistErr). */
const STREAM_NAME_IN_USE = 10058;

/**
 * Creates the stream, or updates an existing one to `config`, so that a changed setting (a
 * bound added, replicas raised) reaches a stream made by an earlier version. Safe from several
 * replicas or services at once.
 */
export async function ensureStream(jsm: JetStreamManager, name: string, config: EnsuredStreamConfig): Promise<void> {
  try {
    await jsm.streams.info(name);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    try {
      await jsm.streams.add({ name, ...config });
      return;
    } catch (addError) {
      // another replica created it in between: fall through to the update. Any other refusal
      // (too few servers for its replicas, subjects overlapping another stream's) is the
      // reason to report: the update would only say the stream does not exist.
      if (!(addError instanceof JetStreamApiError && addError.code === STREAM_NAME_IN_USE)) throw addError;
    }
  }
  await jsm.streams.update(name, config);
}
