import type { InventoryItem } from '@gfts/contracts';
import { isDuplicateKey, type GrantDoc, type Store } from './store.ts';

/** resetSince's allowance for the replicas' clocks. */
const RESET_CLOCK_MARGIN_MS = 5_000;

/**
 * The inventory is a ledger of grants; an item's quantity is the sum of its grants. Each
 * grant's id is `<gamerTaskId>:<reward index>`, so writing the grants of a claim again
 * (a retry, a recovery after a crash, a concurrent recovery) adds nothing: the second
 * insert of an id is refused by the primary key.
 */
export class InventoryRepository {
  private readonly store: Store;
  constructor(store: Store) {
    this.store = store;
  }

  /** Inserts the grants; answers how many were new. */
  async grant(grants: GrantDoc[]): Promise<number> {
    if (grants.length === 0) return 0;
    try {
      const result = await this.store.grants.insertMany(grants, { ordered: false });
      return result.insertedCount;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const inserted = (error as { insertedCount?: number; result?: { insertedCount?: number } }).insertedCount;
      return inserted ?? 0;
    }
  }

  /** Removes these grants, whoever holds them (a claim's own, when its gamer was erased under it); answers how many went. */
  async revoke(grants: Pick<GrantDoc, '_id'>[]): Promise<number> {
    if (grants.length === 0) return 0;
    return (await this.store.grants.deleteMany({ _id: { $in: grants.map((g) => g._id) } })).deletedCount;
  }

  /** Removes every grant of a gamer, and the time of their last reset (an erase); answers how many grants went. */
  async removeAllOf(applicationId: string, gamerId: string): Promise<number> {
    const { deletedCount } = await this.store.grants.deleteMany({ applicationId, gamerId });
    await this.store.inventoryResets.deleteOne({ _id: `${applicationId}:${gamerId}` });
    return deletedCount;
  }

  /**
   * Removes the grants of a gamer except those of the gamer tasks in `kept` (a reset of scope
   * all: the tasks it left, a claim in flight among them, keep what they paid); answers how
   * many went. The time is kept first (resetSince): a claim finishing late learns of it.
   */
  async removeAllBut(applicationId: string, gamerId: string, kept: string[], now: Date = new Date()): Promise<number> {
    await this.store.inventoryResets.updateOne({ _id: `${applicationId}:${gamerId}` }, { $max: { at: now }, $setOnInsert: { applicationId, gamerId } }, { upsert: true });
    return (await this.store.grants.deleteMany({ applicationId, gamerId, gamerTaskId: { $nin: kept } })).deletedCount;
  }

  /**
   * Whether a reset of scope all emptied the gamer's inventory at or after `since`, a few
   * seconds' margin for the clocks of the replicas that wrote the two times (until 2026-11-29
   * none: a claim started on a replica 2 s ahead missed a reset of the next second, and its
   * grants came back into the emptied inventory). Not erasingSince's minute: here the margin
   * also takes back the grants of a claim that began that long after a reset and was ended
   * by another finish, and a reset is an admin's act, not an erasure that must win.
   */
  async resetSince(owner: { applicationId: string; gamerId: string }, since: Date): Promise<boolean> {
    const after = new Date(since.getTime() - RESET_CLOCK_MARGIN_MS);
    return (await this.store.inventoryResets.findOne({ _id: `${owner.applicationId}:${owner.gamerId}`, at: { $gte: after } }, { projection: { _id: 1 } })) !== null;
  }

  async list(applicationId: string, gamerId: string): Promise<InventoryItem[]> {
    const rows = await this.store.grants
      .aggregate<{ _id: string; quantity: number }>([
        { $match: { applicationId, gamerId } },
        { $group: { _id: '$inventoryItemId', quantity: { $sum: '$quantity' } } },
      ])
      .toArray();
    return rows.map((r) => ({ inventoryItemId: r._id, quantity: r.quantity })).sort((a, b) => (a.inventoryItemId < b.inventoryItemId ? -1 : 1));
  }
}
