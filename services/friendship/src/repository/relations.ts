import { FriendshipStatus } from '@gfts/contracts';
import { uuidv7 } from '@gfts/platform';
import type { Model } from 'mongoose';
import type { Relation } from '../domain/model.ts';
import { membersOf, pairKeyOf } from '../domain/relation-rules.ts';
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
const orNull = (doc: RelationDoc | null) => (doc ? toRelation(doc) : null);

/** Which side of a relation a list is about. */
export type RelationList = 'friends' | 'incoming' | 'outgoing';

/**
 * Relations between gamers. Every state change is one conditional single-document write
 * whose filter states who may make it and from which status, so two racing changes can
 * never both apply: the second finds nothing that matches and changes nothing.
 */
export function relationRepository(relations: Model<RelationDoc>) {
  return {
    async findByPair(applicationId: string, a: string, b: string): Promise<Relation | null> {
      return orNull(await relations.findOne({ applicationId, pairKey: pairKeyOf(a, b) }).lean());
    },

    /** A new pending request, or 'exists' when the pair already has a relation (unique index). */
    async insertPending(applicationId: string, requester: string, addressee: string, now: Date): Promise<Relation | 'exists'> {
      const doc: RelationDoc = {
        _id: uuidv7(now.getTime()),
        applicationId,
        pairKey: pairKeyOf(requester, addressee),
        members: membersOf(requester, addressee),
        requester,
        addressee,
        status: FriendshipStatus.PENDING,
        createdAt: now,
        updatedAt: now,
      };
      try {
        await relations.create(doc);
      } catch (error) {
        if (isDuplicateKey(error)) return 'exists';
        throw error;
      }
      return toRelation(doc);
    },

    async findPendingIncoming(applicationId: string, id: string, addressee: string): Promise<Relation | null> {
      return orNull(await relations.findOne({ _id: id, applicationId, addressee, status: FriendshipStatus.PENDING }).lean());
    },

    /** pending -> accepted, only by the addressee and only while still pending. */
    async accept(applicationId: string, id: string, addressee: string, now: Date): Promise<Relation | null> {
      return orNull(
        await relations
          .findOneAndUpdate(
            { _id: id, applicationId, addressee, status: FriendshipStatus.PENDING },
            { $set: { status: FriendshipStatus.ACCEPTED, updatedAt: now } },
            { returnDocument: 'after' },
          )
          .lean(),
      );
    },

    /** Undoes an accept that took a gamer over the friend limit (see friendship-service). */
    async revertToPending(applicationId: string, id: string, now: Date): Promise<void> {
      await relations.updateOne({ _id: id, applicationId, status: FriendshipStatus.ACCEPTED }, { $set: { status: FriendshipStatus.PENDING, updatedAt: now } });
    },

    /** Reject: only the addressee, only pending. */
    async deleteIncoming(applicationId: string, id: string, addressee: string): Promise<Relation | null> {
      return orNull(await relations.findOneAndDelete({ _id: id, applicationId, addressee, status: FriendshipStatus.PENDING }).lean());
    },

    /** Cancel: only the requester, only pending. */
    async deleteOutgoing(applicationId: string, id: string, requester: string): Promise<Relation | null> {
      return orNull(await relations.findOneAndDelete({ _id: id, applicationId, requester, status: FriendshipStatus.PENDING }).lean());
    },

    /** Unfriend: either member, only accepted. */
    async deleteFriendship(applicationId: string, id: string, member: string): Promise<Relation | null> {
      return orNull(await relations.findOneAndDelete({ _id: id, applicationId, members: member, status: FriendshipStatus.ACCEPTED }).lean());
    },

    /** Removes a request this service just inserted and must take back (block race, limit overshoot). */
    async deletePending(applicationId: string, id: string): Promise<void> {
      await relations.deleteOne({ _id: id, applicationId, status: FriendshipStatus.PENDING });
    },

    /** Whatever relation the pair has, gone (blocking). */
    async deletePair(applicationId: string, a: string, b: string): Promise<Relation | null> {
      return orNull(await relations.findOneAndDelete({ applicationId, pairKey: pairKeyOf(a, b) }).lean());
    },

    /** Counts up to `cap` (enough to compare with a limit without counting a huge list). */
    async countFriends(applicationId: string, gamerId: string, cap: number): Promise<number> {
      return relations.countDocuments({ applicationId, members: gamerId, status: FriendshipStatus.ACCEPTED }, { limit: cap });
    },

    async countPendingOutgoing(applicationId: string, gamerId: string, cap: number): Promise<number> {
      return relations.countDocuments({ applicationId, requester: gamerId, status: FriendshipStatus.PENDING }, { limit: cap });
    },

    /** Up to `limit` entries of a list after `afterId`, oldest first. */
    async list(applicationId: string, gamerId: string, which: RelationList, afterId: string | undefined, limit: number): Promise<Relation[]> {
      const filter =
        which === 'friends'
          ? { applicationId, members: gamerId, status: FriendshipStatus.ACCEPTED }
          : which === 'incoming'
            ? { applicationId, addressee: gamerId, status: FriendshipStatus.PENDING }
            : { applicationId, requester: gamerId, status: FriendshipStatus.PENDING };
      const docs = await relations
        .find({ ...filter, ...(afterId ? { _id: { $gt: afterId } } : {}) })
        .sort({ _id: 1 })
        .limit(limit)
        .lean();
      return docs.map(toRelation);
    },
  };
}
export type RelationRepository = ReturnType<typeof relationRepository>;
