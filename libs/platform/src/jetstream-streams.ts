import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream';

/** A stream's settings as a service ensures them: everything but the name. */
export type EnsuredStreamConfig = Partial<Omit<StreamConfig, 'name'>>;

function isNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound;
}

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
      // another replica created it in between: fall through to the update
      if (!(addError instanceof JetStreamApiError)) throw addError;
    }
  }
  await jsm.streams.update(name, config);
}
