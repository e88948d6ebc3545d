import { isDuplicateKey, type IdempotencyDoc, type Store } from './store.ts';

/** Stat events already processed in full (kept PROCESSED_EVENT_RETENTION_MS): a redelivery or a re-publication is skipped. */
export class ProcessedEventRepository {
  private readonly store: Store;
  constructor(store: Store) {
    this.store = store;
  }

  /** Which of these events were processed already: one query for a whole batch. */
  async findProcessed(eventIds: string[]): Promise<Set<string>> {
    if (eventIds.length === 0) return new Set();
    const docs = await this.store.processedEvents.find({ _id: { $in: eventIds } }, { projection: { _id: 1 } }).toArray();
    return new Set(docs.map((d) => d._id));
  }

  /** One write for many events (the consumer batches); an id already recorded is fine. */
  async recordMany(docs: { _id: string; processedAt: Date }[]): Promise<void> {
    if (docs.length === 0) return;
    try {
      await this.store.processedEvents.insertMany(docs, { ordered: false });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }

  async prune(before: Date): Promise<number> {
    return (await this.store.processedEvents.deleteMany({ processedAt: { $lt: before } })).deletedCount;
  }
}

/**
 * What `begin` found: the key is now this request's (`taken`), another request holds or held
 * it (`seen`, its record), or it changed hands under every attempt (`contended`: requests with
 * this key are running; retry in a moment).
 */
export type KeyBegin = { kind: 'taken' } | { kind: 'seen'; stored: IdempotencyDoc } | { kind: 'contended' };

/** How many times `begin` inserts a key that was freed between its insert and its read. */
const BEGIN_ATTEMPTS = 3;

/** Idempotency keys of assign, one per (application, gamer, key). */
export class IdempotencyRepository {
  private readonly store: Store;
  constructor(store: Store) {
    this.store = store;
  }

  /**
   * Claims the key for this request; answers the stored record when it was taken before. A
   * key refused as a duplicate and gone when read was freed in between (its holder failed):
   * the insert is tried again, as the first request after the release would.
   */
  async begin(id: string, fingerprint: string, now: Date): Promise<KeyBegin> {
    for (let attempt = 0; attempt < BEGIN_ATTEMPTS; attempt++) {
      try {
        await this.store.idempotencyKeys.insertOne({ _id: id, fingerprint, state: 'pending', startedAt: now });
        return { kind: 'taken' };
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      const stored = await this.store.idempotencyKeys.findOne({ _id: id });
      if (stored !== null) return { kind: 'seen', stored };
    }
    return { kind: 'contended' };
  }

  async find(id: string): Promise<IdempotencyDoc | null> {
    return this.store.idempotencyKeys.findOne({ _id: id });
  }

  /** Takes over a pending key whose request must have died (it started at `startedAt`). */
  async takeOver(id: string, startedAt: Date, now: Date): Promise<boolean> {
    const result = await this.store.idempotencyKeys.updateOne({ _id: id, state: 'pending', startedAt }, { $set: { startedAt: now } });
    return result.modifiedCount === 1;
  }

  /** Stores the answer of the request holding the key (the one that took it at `startedAt`). */
  async complete(id: string, startedAt: Date, response: unknown): Promise<void> {
    await this.store.idempotencyKeys.updateOne({ _id: id, state: 'pending', startedAt }, { $set: { state: 'done', response } });
  }

  /** A request that failed frees its key, so a retry runs again; only while it still holds it. */
  async release(id: string, startedAt: Date): Promise<void> {
    await this.store.idempotencyKeys.deleteOne({ _id: id, state: 'pending', startedAt });
  }

  async prune(before: Date): Promise<number> {
    return (await this.store.idempotencyKeys.deleteMany({ startedAt: { $lt: before } })).deletedCount;
  }

  /** Every key of one gamer (erase): their ids start `<applicationId>:<gamerId>:`, a range on _id (';' follows ':'). */
  async removeAllOf(applicationId: string, gamerId: string): Promise<number> {
    const prefix = `${applicationId}:${gamerId}`;
    return (await this.store.idempotencyKeys.deleteMany({ _id: { $gt: `${prefix}:`, $lt: `${prefix};` } })).deletedCount;
  }
}
