import { FriendshipStatus } from '@gfts/contracts';
import type { Model } from 'mongoose';
import type { Relation } from '../domain/model.ts';
import { pairKeyOf } from '../domain/relation-rules.ts';
import { isDuplicateKey, type RelationDoc } from './models.ts';

function toRelation(doc: RelationDoc): Relation {
  return {
    id: doc._id,
    applicationId: doc.applicationId,
    pairKey: doc.pairKey,
    members: [doc.members[0]!, doc.members[1]!],
    requester: doc.requester,
    addressee: doc.addressee,
    status: doc.status,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

function toDoc(relation: Relation): RelationDoc {
  const { id, ...rest } = relation;
  return { _id: id, ...rest, members: [...relation.members] };
}

/**
 * A gamer's friendships are the accepted relations they requested plus those they were
 * asked for: two equality ranges on scalar fields. Each is served by the index of the
 * outgoing or incoming list, on MongoDB and on the SQLite store alike (which cannot seek an
 * index on the `members` array: scripts/images/ferretdb/README.md).
 */
function friendSides(applicationId: string, gamerId: string): [RelationFilter, RelationFilter] {
  return [
    { applicationId, requester: gamerId, status: FriendshipStatus.ACCEPTED },
    { applicationId, addressee: gamerId, status: FriendshipStatus.ACCEPTED },
  ];
}

/** The first `limit` documents of two lists sorted by _id, in _id order. */
export function mergeById<T extends { _id: string }>(a: T[], b: T[], limit: number): T[] {
  return [...a, ...b].sort((x, y) => (x._id < y._id ? -1 : x._id > y._id ? 1 : 0)).slice(0, limit);
}

/** Which side of a relation a list is about. */
export type RelationList = 'friends' | 'incoming' | 'outgoing';

type RelationFilter = Partial<Pick<RelationDoc, '_id' | 'applicationId' | 'requester' | 'addressee' | 'status' | 'pairKey'>> & { members?: string };

/**
 * Relations between gamers, written with the only two operations that are atomic on both
 * MongoDB and FerretDB v1: an insert checked by a unique index, and a delete whose count
 * says whether this call removed the document. There are no in-place updates: FerretDB v1
 * runs findAndModify and update as a read followed by a blind write by _id, so two racing
 * updates would both "succeed". Documents never change, so deleting by _id deletes exactly
 * the state that was read, and of two racing deletes exactly one counts 1.
 */
export function relationRepository(relations: Model<RelationDoc>) {
  /** Removes the document matching `filter` if this call is the one that removes it. */
  async function take(filter: RelationFilter): Promise<Relation | null> {
    const doc = await relations.findOne(filter).lean();
    if (!doc) return null;
    const { deletedCount } = await relations.deleteOne({ ...filter, _id: doc._id });
    return deletedCount === 1 ? toRelation(doc) : null;
  }

  return {
    async findByPair(applicationId: string, a: string, b: string): Promise<Relation | null> {
      const doc = await relations.findOne({ applicationId, pairKey: pairKeyOf(a, b) }).lean();
      return doc ? toRelation(doc) : null;
    },

    /** 'exists' when the pair already has a relation: the unique (applicationId, pairKey) index decides. */
    async insert(relation: Relation): Promise<'inserted' | 'exists'> {
      try {
        await relations.create(toDoc(relation));
        return 'inserted';
      } catch (error) {
        if (isDuplicateKey(error)) return 'exists';
        throw error;
      }
    },

    async findPendingIncoming(applicationId: string, id: string, addressee: string): Promise<Relation | null> {
      const doc = await relations.findOne({ _id: id, applicationId, addressee, status: FriendshipStatus.PENDING }).lean();
      return doc ? toRelation(doc) : null;
    },

    /** Accept (as the first half) and reject: only the addressee, only pending. */
    takePendingIncoming: (applicationId: string, id: string, addressee: string) =>
      take({ _id: id, applicationId, addressee, status: FriendshipStatus.PENDING }),

    /** Cancel: only the requester, only pending. */
    takePendingOutgoing: (applicationId: string, id: string, requester: string) =>
      take({ _id: id, applicationId, requester, status: FriendshipStatus.PENDING }),

    /** Unfriend: either member, only accepted. */
    takeFriendship: (applicationId: string, id: string, member: string) =>
      take({ _id: id, applicationId, members: member, status: FriendshipStatus.ACCEPTED }),

    /** Takes back a document this service just wrote (block race, quota overshoot). */
    async deleteById(applicationId: string, id: string): Promise<boolean> {
      return (await relations.deleteOne({ _id: id, applicationId })).deletedCount === 1;
    },

    /** Whatever relation the pair has, gone (blocking). */
    async deletePair(applicationId: string, a: string, b: string): Promise<number> {
      return (await relations.deleteMany({ applicationId, pairKey: pairKeyOf(a, b) })).deletedCount;
    },

    /** Counts up to `cap` (enough to compare with a limit without counting a huge list). */
    async countFriends(applicationId: string, gamerId: string, cap: number): Promise<number> {
      const counts = await Promise.all(
        friendSides(applicationId, gamerId).map((side) => relations.countDocuments(side, { limit: cap })),
      );
      return Math.min(cap, counts[0]! + counts[1]!);
    },

    async countPendingOutgoing(applicationId: string, gamerId: string, cap: number): Promise<number> {
      return relations.countDocuments({ applicationId, requester: gamerId, status: FriendshipStatus.PENDING }, { limit: cap });
    },

    /** Up to `limit` entries of a list after `afterId`, oldest first. */
    async list(applicationId: string, gamerId: string, which: RelationList, afterId: string | undefined, limit: number): Promise<Relation[]> {
      const page = (filter: RelationFilter) =>
        relations
          .find({ ...filter, ...(afterId ? { _id: { $gt: afterId } } : {}) })
          .sort({ _id: 1 })
          .limit(limit)
          .lean();
      if (which === 'incoming') return (await page({ applicationId, addressee: gamerId, status: FriendshipStatus.PENDING })).map(toRelation);
      if (which === 'outgoing') return (await page({ applicationId, requester: gamerId, status: FriendshipStatus.PENDING })).map(toRelation);
      // Friends: the two sides are two index ranges already in _id order; merge, keep `limit`.
      const sides = await Promise.all(friendSides(applicationId, gamerId).map(page));
      return mergeById(sides[0]!, sides[1]!, limit).map(toRelation);
    },
  };
}
export type RelationRepository = ReturnType<typeof relationRepository>;
