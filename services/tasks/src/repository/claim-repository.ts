import { isDuplicateKey, type ClaimDoc, type Store } from './store.ts';

/** Claim records, one per claimed gamer task, ever. */
export class ClaimRepository {
  private readonly store: Store;
  constructor(store: Store) {
    this.store = store;
  }

  /**
   * Claim step 1: insert the claim record. The primary key is the gamer task id, so of any
   * number of concurrent claims (on any replica) exactly one inserts it.
   */
  async begin(claim: ClaimDoc): Promise<boolean> {
    try {
      await this.store.claims.insertOne(claim);
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async markClaimed(id: string, now: Date): Promise<void> {
    await this.store.claims.updateOne({ _id: id }, { $set: { state: 'claimed', claimedAt: now } });
  }

  /** Claims a crash left between step 1 and step 3, started before `before`. */
  async unfinished(before: Date, limit = 500): Promise<ClaimDoc[]> {
    return this.store.claims.find({ state: 'claiming', startedAt: { $lte: before } }).limit(limit).toArray();
  }
}
