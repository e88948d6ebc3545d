import { FriendshipStatus } from '@gfts/contracts';
import { uuidv7 } from '@gfts/platform';
import type { Model } from 'mongoose';
import { withinLimit } from '../domain/limits.ts';
import type { Block } from '../domain/model.ts';
import { blockStateBetween, clearPair } from './blocked-pair.ts';
import type { FriendListRepository } from './friend-lists.ts';
import type { BlockDoc, RelationDoc } from './models.ts';
import type { GamerLookup } from './relations.ts';

function toBlock(doc: BlockDoc): Block {
  return { id: doc._id, applicationId: doc.applicationId, blocker: doc.blocker, blocked: doc.blocked, createdAt: doc.createdAt };
}

/** The relation a block removed (null when the pair had none), so its other side can be told. */
export type RemovedRelation = Pick<RelationDoc, '_id' | 'status' | 'requester' | 'addressee'> | null;

export type BlockOutcome =
  /** `announce`: this call is the one to announce the block (with `removed`, if any) */
  | { kind: 'blocked'; block: Block; removed: RemovedRelation; announce: boolean }
  /** the blocker already blocked this gamer: the existing record, nothing new (but a relation made meanwhile is removed, and announced) */
  | { kind: 'alreadyBlocked'; block: Block; removed: RemovedRelation; announce: boolean }
  | { kind: 'blockLimit' }
  /** the blocked gamer is not in the application's directory (never was, or erased meanwhile); nothing is stored */
  | { kind: 'unknownTarget' };

export type UnblockOutcome = { kind: 'unblocked'; block: Block } | { kind: 'notFound' };

/** One-way block records: written by an upsert, removed by a conditional delete. */
export function blockRepository(blocks: Model<BlockDoc>, relations: Model<RelationDoc>, friendLists: FriendListRepository, directory: GamerLookup) {
  const countOf = (applicationId: string, blocker: string, cap: number) => blocks.countDocuments({ applicationId, blocker }, { limit: cap });

  /**
   * The checks of `block` once its record is written (created by this call when `existing` is
   * null): the refusal, with the record withdrawn, or undefined when the block stands.
   */
  async function refusalAfterWrite(existing: BlockDoc | null, record: BlockDoc, applicationId: string, blocker: string, blocked: string, maxBlocks: number): Promise<BlockOutcome | undefined> {
    // The target is looked up after the write, as a request's is: an erasure deletes the
    // directory entry before the gamer's blocks, so either it deletes this record or this
    // read finds the entry gone (and the record is withdrawn). A record a repeat kept was
    // checked by that repeat.
    // the blocker too: one whose erasure ran while this call was under way withdraws the record
    if (!existing?.kept && !(await directory.bothExist(applicationId, blocker, blocked))) {
      if (!existing) await blocks.deleteOne({ _id: record._id, applicationId, kept: { $ne: true } });
      return { kind: 'unknownTarget' };
    }
    const overLimit = async () => !withinLimit(await countOf(applicationId, blocker, maxBlocks + 1), maxBlocks, 'after');
    if (existing && !existing.kept) {
      if (await overLimit()) return { kind: 'blockLimit' };
      const kept = await blocks.updateOne({ _id: existing._id, applicationId }, { $set: { kept: true } });
      // withdrawn by its creator before the mark: there is no block
      if (kept.matchedCount === 0) return { kind: 'blockLimit' };
    }
    if (!existing && (await overLimit())) {
      const withdrawn = await blocks.deleteOne({ _id: record._id, applicationId, kept: { $ne: true } });
      if (withdrawn.deletedCount === 1) return { kind: 'blockLimit' };
      // a repeat counted it within the limit and marked it kept first: it stands
    }
    return undefined;
  }

  return {
    /**
     * Blocks `blocked`, idempotently, within the blocker's quota, and clears whatever
     * relation the pair has, after the record is written (blocked-pair.ts). The unique
     * (applicationId, blocker, blocked) index keeps one record per direction; the upsert
     * tells whether this call created it. The quota is counted before and again including
     * the new record: of racing blocks that together pass the limit, the later ones see the
     * others and remove their own record, so the stored count never ends above the limit.
     *
     * A repeat may find a record whose creator is still counting and may withdraw it. It
     * acts on the record (clears the pair, is announced) only once that cannot happen: it
     * counts as the creator does and, within the limit, marks the record `kept`, which the
     * creator's withdrawal does not match. Without that, a double tap racing another block
     * ended the friendship for a block that was then withdrawn.
     */
    async block(applicationId: string, blocker: string, blocked: string, now: Date, maxBlocks: number): Promise<BlockOutcome> {
      const direction = { applicationId, blocker, blocked };
      const [already, count] = await Promise.all([blocks.exists(direction), countOf(applicationId, blocker, maxBlocks)]);
      // at the limit, a gamer unknown to the directory is still told apart (404 before 409),
      // as when the directory was read first: one read more, on this refusal only
      if (!already && !withinLimit(count, maxBlocks, 'before')) return (await directory.exists(applicationId, blocked)) ? { kind: 'blockLimit' } : { kind: 'unknownTarget' };
      const record: BlockDoc = { _id: uuidv7(now.getTime()), ...direction, createdAt: now };
      const existing = await blocks
        .findOneAndUpdate(direction, { $setOnInsert: { _id: record._id, createdAt: now } }, { upsert: true, returnDocument: 'before' })
        .lean();
      let refusal: BlockOutcome | undefined;
      try {
        refusal = await refusalAfterWrite(existing, record, applicationId, blocker, blocked, maxBlocks);
      } catch (error) {
        // A check could not be read: the call fails, and a record it created goes first, so a
        // retry blocks, clears the pair and announces it. Until 2026-11-28 it stood beside the
        // friendship it had not cleared, unannounced, and a retry answered 200 for it.
        if (!existing) await blocks.deleteOne({ _id: record._id, applicationId, kept: { $ne: true } }).catch(() => undefined);
        throw error;
      }
      if (refusal) return refusal;
      const removed = await clearPair(relations, applicationId, blocker, blocked);
      // a friendship the block ended leaves both friend-id lists (relation first, list after)
      if (removed?.status === FriendshipStatus.ACCEPTED) await friendLists.unlinked(applicationId, blocker, blocked);
      const id = existing?._id ?? record._id;
      // A relation removed is always announced, by the call that removed it. The block alone
      // is announced by its creator unless a repeat announced it first, with the relation it
      // removed before the creator's clearing (a double tap on a friend): until 2026-11-29
      // both announced, with and without the relation.
      const claimed = async () => {
        if ((await blocks.updateOne({ _id: id, applicationId, announced: { $ne: true } }, { $set: { announced: true } })).matchedCount === 1) return true;
        // not matched: announced by another call, or lifted meanwhile (its unblock is
        // announced, so the block is too, as before the mark). A double tap whose repeat
        // announced, with an unblock landing before the creator's mark, announces twice: the
        // record that said so is gone
        return (await blocks.exists({ _id: id, applicationId })) === null;
      };
      // a claim that fails announces: twice is better than never
      const announce = removed ? (await claimed().catch(() => true), true) : !existing && (await claimed().catch(() => true));
      return existing ? { kind: 'alreadyBlocked', block: toBlock(existing), removed, announce } : { kind: 'blocked', block: toBlock(record), removed, announce };
    },

    /** Unblock: only the blocker's own record. */
    async unblock(applicationId: string, id: string, blocker: string): Promise<UnblockOutcome> {
      const doc = await blocks.findOneAndDelete({ _id: id, applicationId, blocker }).lean();
      return doc ? { kind: 'unblocked', block: toBlock(doc) } : { kind: 'notFound' };
    },

    between: (applicationId: string, caller: string, target: string) => blockStateBetween(blocks, applicationId, caller, target),

    async blocks(applicationId: string, blocker: string, blocked: string): Promise<boolean> {
      return (await blocks.exists({ applicationId, blocker, blocked })) !== null;
    },

    /** The first `limit` gamers who block `gamerId` (the admin view). */
    async blockersOf(applicationId: string, gamerId: string, limit: number): Promise<string[]> {
      const docs = await blocks.find({ applicationId, blocked: gamerId }, { _id: 0, blocker: 1 }).sort({ _id: 1 }).limit(limit).lean();
      return docs.map((doc) => doc.blocker);
    },

    /**
     * Those of `candidates` who block `gamerId`: a read bounded by the candidates, not by how
     * many gamers block `gamerId` (any number may).
     */
    async blockersAmong(applicationId: string, gamerId: string, candidates: readonly string[]): Promise<Set<string>> {
      if (candidates.length === 0) return new Set();
      const docs = await blocks.find({ applicationId, blocker: { $in: [...candidates] }, blocked: gamerId }, { _id: 0, blocker: 1 }).lean();
      return new Set(docs.map((doc) => doc.blocker));
    },

    /** Gamers `blocker` blocks (at most MAX_BLOCKS). */
    async blockedBy(applicationId: string, blocker: string): Promise<string[]> {
      const docs = await blocks.find({ applicationId, blocker }, { _id: 0, blocked: 1 }).lean();
      return docs.map((doc) => doc.blocked);
    },

    async list(applicationId: string, blocker: string, afterId: string | undefined, limit: number): Promise<Block[]> {
      // the driver's collection: a read of every GET /blocked, used as stored (see relations.list)
      const docs = await blocks.collection
        .find<BlockDoc>({ applicationId, blocker, ...(afterId ? { _id: { $gt: afterId } } : {}) } as never, { sort: { _id: 1 }, limit })
        .toArray();
      return docs.map(toBlock);
    },
  };
}
export type BlockRepository = ReturnType<typeof blockRepository>;
