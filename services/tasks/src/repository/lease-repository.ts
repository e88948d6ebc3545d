import { isDuplicateKey, type Store } from './store.ts';

/**
 * Named leases: one holder at a time until the lease's time, the holder's to renew. One
 * document per lease, taken with a conditional upsert under its _id: free, expired or its
 * own, it is this holder's; held by another, the upsert's insert meets the _id and loses.
 */
export class LeaseRepository {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  /**
   * Whether `holder` holds lease `name` until `until`, having taken or renewed it now. Another
   * holder's lease is taken only once it ran out `skewMs` ago by this replica's clock: the
   * times are the replicas' own, and a replica whose clock runs ahead would take a lease
   * its holder still renews.
   */
  async take(name: string, holder: string, now: Date, until: Date, skewMs = 0): Promise<boolean> {
    try {
      const lease = await this.store.leases.findOneAndUpdate(
        { _id: name, $or: [{ until: { $lte: new Date(now.getTime() - skewMs) } }, { holder }] },
        { $set: { holder, until } },
        { upsert: true, returnDocument: 'after' },
      );
      return lease?.holder === holder;
    } catch (error) {
      // another holder's, not expired: the upsert's insert met its _id
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  /** Gives the lease back (a replica stopping), so that another takes it at its next tick. */
  async release(name: string, holder: string): Promise<void> {
    await this.store.leases.deleteOne({ _id: name, holder });
  }
}
