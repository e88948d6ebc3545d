import type { Model } from 'mongoose';
import type { BlockState } from '../domain/model.ts';
import { pairKeyOf } from '../domain/relation-rules.ts';
import type { BlockDoc, RelationDoc } from './models.ts';

/*
 * What keeps a blocked pair without a relation. A block record and a relation are two
 * documents in two collections, so no single-document operation covers both. Blocking
 * writes its record first and clears the pair's relation after it (clearPair); a new
 * request is written first and looks for a block after it (blockStateBetween), removing
 * itself if it finds one. In every interleaving one of the two sees the other's write. A
 * request found across a block by the other gamer's crossed request is not accepted either
 * (relations.ts, `request`): it stands only until one of the two removes it.
 */

/** A block record that stands between two gamers: what announces a friendship it ends. */
export type StandingBlock = Pick<BlockDoc, '_id' | 'blocker' | 'blocked'>;

/** Both directions of blocking between two gamers, with the records that stand. */
export interface PairBlocks extends BlockState {
  /** at most one per direction; none in the common case, so reading them costs nothing */
  standing: StandingBlock[];
}

/**
 * Both directions of blocking between two gamers, in one query. Written as two `$in`s rather
 * than an `$or` of the two pairs: the same documents (no gamer blocks themselves), but an
 * index seek of `(applicationId, blocker, blocked)` on the local store too, which evaluates
 * an `$or` in its handler over every block of the application
 * (scripts/images/ferretdb/README.md, "What it does not do").
 */
export async function blockStateBetween(blocks: Model<BlockDoc>, applicationId: string, caller: string, target: string): Promise<PairBlocks> {
  const pair = [caller, target];
  // the driver's collection: read on every new friend request, used as stored (relations.list)
  const standing = await blocks.collection
    .find<StandingBlock>({ applicationId, blocker: { $in: pair }, blocked: { $in: pair } }, { projection: { _id: 1, blocker: 1, blocked: 1 } })
    .toArray();
  return {
    callerBlocksTarget: standing.some((doc) => doc.blocker === caller),
    targetBlocksCaller: standing.some((doc) => doc.blocker === target),
    standing,
  };
}

/** Deletes whatever relation two gamers have, pending or accepted, and answers what it deleted. */
export async function clearPair(relations: Model<RelationDoc>, applicationId: string, a: string, b: string): Promise<RelationDoc | null> {
  return relations.findOneAndDelete({ applicationId, pairKey: pairKeyOf(a, b) }).lean<RelationDoc>();
}
