import type { Model } from 'mongoose';
import type { BlockState } from '../domain/model.ts';
import { pairKeyOf } from '../domain/relation-rules.ts';
import type { BlockDoc, RelationDoc } from './models.ts';

/*
 * What keeps a blocked pair without a relation. A block record and a relation are two
 * documents in two collections, so no single-document operation covers both. Blocking
 * writes its record first and clears the pair's relation after it (clearPair); a new
 * request is written first and looks for a block after it (blockStateBetween), removing
 * itself if it finds one. In every interleaving one of the two sees the other's write.
 */

/**
 * Both directions of blocking between two gamers, in one query. Written as two `$in`s rather
 * than an `$or` of the two pairs: the same documents (no gamer blocks themselves), but an
 * index seek of `(applicationId, blocker, blocked)` on the local store too, which evaluates
 * an `$or` in its handler over every block of the application
 * (scripts/images/ferretdb/README.md, "What it does not do").
 */
export async function blockStateBetween(blocks: Model<BlockDoc>, applicationId: string, caller: string, target: string): Promise<BlockState> {
  const pair = [caller, target];
  // the driver's collection: read on every new friend request, used as stored (relations.list)
  const docs = await blocks.collection
    .find<Pick<BlockDoc, 'blocker'>>({ applicationId, blocker: { $in: pair }, blocked: { $in: pair } }, { projection: { _id: 0, blocker: 1 } })
    .toArray();
  return {
    callerBlocksTarget: docs.some((doc) => doc.blocker === caller),
    targetBlocksCaller: docs.some((doc) => doc.blocker === target),
  };
}

/** Deletes whatever relation two gamers have, pending or accepted, and answers what it deleted. */
export async function clearPair(relations: Model<RelationDoc>, applicationId: string, a: string, b: string): Promise<RelationDoc | null> {
  return relations.findOneAndDelete({ applicationId, pairKey: pairKeyOf(a, b) }).lean<RelationDoc>();
}
