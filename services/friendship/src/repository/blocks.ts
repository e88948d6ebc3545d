import { uuidv7 } from '@gfts/platform';
import type { Model } from 'mongoose';
import type { Block, BlockState } from '../domain/model.ts';
import { isDuplicateKey, type BlockDoc } from './models.ts';

function toBlock(doc: BlockDoc): Block {
  return { id: doc._id, applicationId: doc.applicationId, blocker: doc.blocker, blocked: doc.blocked, createdAt: doc.createdAt };
}

/** One-way block records. Like relations, they are only inserted and deleted, never changed. */
export function blockRepository(blocks: Model<BlockDoc>) {
  return {
    /**
     * Idempotent: the existing record when `blocker` already blocks `blocked`, with
     * created=false. Insert first and let the unique index decide, rather than an upsert
     * (FerretDB v1 runs upserts as read-then-write, so the index would decide anyway).
     */
    async upsert(applicationId: string, blocker: string, blocked: string, now: Date): Promise<{ block: Block; created: boolean }> {
      for (let attempt = 0; ; attempt++) {
        const doc: BlockDoc = { _id: uuidv7(now.getTime()), applicationId, blocker, blocked, createdAt: now };
        try {
          await blocks.create(doc);
          return { block: toBlock(doc), created: true };
        } catch (error) {
          if (!isDuplicateKey(error)) throw error;
        }
        const existing = await blocks.findOne({ applicationId, blocker, blocked }).lean();
        if (existing) return { block: toBlock(existing), created: false };
        // unblocked between our insert and our read: try again, a few times at most
        if (attempt >= 2) throw new Error('block record kept changing');
      }
    },

    /** Both directions between two gamers in one query. */
    async between(applicationId: string, caller: string, target: string): Promise<BlockState> {
      const docs = await blocks
        .find({ applicationId, $or: [{ blocker: caller, blocked: target }, { blocker: target, blocked: caller }] }, { _id: 0, blocker: 1 })
        .lean();
      return {
        callerBlocksTarget: docs.some((doc) => doc.blocker === caller),
        targetBlocksCaller: docs.some((doc) => doc.blocker === target),
      };
    },

    async blocks(applicationId: string, blocker: string, blocked: string): Promise<boolean> {
      return (await blocks.exists({ applicationId, blocker, blocked })) !== null;
    },

    /** Gamers who block `gamerId` (search hides them from `gamerId`). */
    async blockersOf(applicationId: string, gamerId: string): Promise<string[]> {
      const docs = await blocks.find({ applicationId, blocked: gamerId }, { _id: 0, blocker: 1 }).lean();
      return docs.map((doc) => doc.blocker);
    },

    /** Unblock: only the blocker's own record; null unless this call removed it (block records never change). */
    async deleteOwn(applicationId: string, id: string, blocker: string): Promise<Block | null> {
      const doc = await blocks.findOne({ _id: id, applicationId, blocker }).lean();
      if (!doc) return null;
      const { deletedCount } = await blocks.deleteOne({ _id: id, applicationId, blocker });
      return deletedCount === 1 ? toBlock(doc) : null;
    },

    async deleteById(applicationId: string, id: string): Promise<void> {
      await blocks.deleteOne({ _id: id, applicationId });
    },

    async count(applicationId: string, blocker: string, cap: number): Promise<number> {
      return blocks.countDocuments({ applicationId, blocker }, { limit: cap });
    },

    async list(applicationId: string, blocker: string, afterId: string | undefined, limit: number): Promise<Block[]> {
      const docs = await blocks
        .find({ applicationId, blocker, ...(afterId ? { _id: { $gt: afterId } } : {}) })
        .sort({ _id: 1 })
        .limit(limit)
        .lean();
      return docs.map(toBlock);
    },
  };
}
export type BlockRepository = ReturnType<typeof blockRepository>;
