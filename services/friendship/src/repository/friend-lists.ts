import { FriendshipStatus } from '@gfts/contracts';
import type { AnyBulkWriteOperation, Model, mongo } from 'mongoose';
import { pairKeyOf } from '../domain/relation-rules.ts';
import { friendEdgesIn } from './relations.ts';
import type { FriendListDoc, RelationDoc } from './models.ts';

/*
 * Per-gamer friend-id lists (docs/friendship.md, "Friend-id lists"; docs/decisions.md):
 * one document per (applicationId, gamerId) holding the ids of the gamer's accepted
 * friends, so that suggestions read the caller's list and their friends' lists (1 + F small
 * documents) instead of the F x F relations of the friends.
 *
 * The relations are the truth and are always written first; a list change follows each
 * change of a friendship. What keeps a list right:
 * - every change is one idempotent single-document update ($addToSet / $pull) that also
 *   counts the list's `version`; on a gamer without a list it creates one marked not built
 *   (no `builtAt`), never a list that looks complete;
 * - a list that is missing, not built, or built longer ago than `maxAgeMs` is rebuilt from
 *   the relations when it is read, and the rebuild writes only if no change counted on the
 *   list since it was read (`version` in the filter), so a rebuild never undoes a change
 *   that raced it: a change whose relation write came after the rebuild's relation read
 *   also writes its list op after it, and so either moved `version` first or applies on top;
 * - what a crash between a relation write and its list op leaves wrong (a list missing a
 *   new friend, or keeping a removed one) lasts until the list is rebuilt: at most
 *   `maxAgeMs` after its last rebuild, on its next read.
 */

/** The `_id` of a gamer's list. Both parts are lower-case uuids, so the separator is unambiguous. */
export const friendListId = (applicationId: string, gamerId: string) => `${applicationId}:${gamerId}`;

export interface FriendListSettings {
  /** a list built longer ago than this is rebuilt from the relations when read */
  maxAgeMs: number;
  /**
   * Told when a list update after a friendship change failed. The change itself stands and
   * is answered (and announced) as usual: a failed list update is what a crash between the
   * two writes leaves, and heals the same way (rebuild by age).
   */
  onChangeFailed?: (error: unknown) => void;
  clock?: () => Date;
}

const isDuplicateKeyOnly = (error: unknown) => {
  const writeErrors = (error as { writeErrors?: Array<{ code?: number; err?: { code?: number } }> }).writeErrors;
  return Array.isArray(writeErrors) && writeErrors.length > 0 && writeErrors.every((e) => (e.code ?? e.err?.code) === 11000);
};

export function friendListRepository(lists: Model<FriendListDoc>, relations: Model<RelationDoc>, settings: FriendListSettings) {
  const now = settings.clock ?? (() => new Date());

  /**
   * One change of a gamer's list: add friends ($addToSet) or remove one ($pull), both
   * idempotent, counted in `version`, creating a not-built list when none exists.
   */
  const listOp = (applicationId: string, gamerId: string, change: { add: string[] } | { remove: string }): mongo.AnyBulkWriteOperation<FriendListDoc> => ({
    updateOne: {
      filter: { _id: friendListId(applicationId, gamerId) },
      update: {
        ...('add' in change ? { $addToSet: { friends: { $each: change.add } } } : { $pull: { friends: change.remove } }),
        $inc: { version: 1 },
        $setOnInsert: { applicationId, gamerId },
      },
      upsert: true,
    },
  });

  // the driver's collection, typed with the documents, not the model: every accept, unfriend
  // and block writes here, and the operations are written whole by listOp, in the schema's
  // types (the rebuild's writes below stay on the model)
  const listsCollection = lists.collection as unknown as mongo.Collection<FriendListDoc>;
  async function apply(ops: mongo.AnyBulkWriteOperation<FriendListDoc>[]): Promise<void> {
    if (ops.length > 0) await listsCollection.bulkWrite(ops, { ordered: false });
  }

  /** The list side of a friendship change, after its relation write: never fails the change. */
  async function follow(ops: mongo.AnyBulkWriteOperation<FriendListDoc>[]): Promise<void> {
    try {
      await apply(ops);
    } catch (error) {
      settings.onChangeFailed?.(error);
    }
  }

  /**
   * A friendship ended (its relation is gone): neither is in the other's list. Harmless when
   * they were not friends. Then the lists follow the pair's relation as it is now, a few
   * rounds at most (as an accept's undo does): an unlink landing late (a slow store) may come
   * after a new friendship of the same pair linked them, which it would otherwise leave out of
   * both lists until they age (until 2026-11-29). One read more per unfriend or block of a friend.
   */
  async function unlinked(applicationId: string, a: string, b: string): Promise<void> {
    const link = (on: boolean) => follow(on ? [listOp(applicationId, a, { add: [b] }), listOp(applicationId, b, { add: [a] })] : [listOp(applicationId, a, { remove: b }), listOp(applicationId, b, { remove: a })]);
    let linked = false;
    await link(linked);
    for (let round = 1; round <= 3; round++) {
      let friends: boolean;
      try {
        friends = (await relations.exists({ applicationId, pairKey: pairKeyOf(a, b), status: FriendshipStatus.ACCEPTED })) !== null;
      } catch (error) {
        // as a failed list update: the lists heal by age
        settings.onChangeFailed?.(error);
        return;
      }
      if (friends === linked) return;
      linked = friends;
      await link(linked);
    }
  }

  /** The friends of each gamer by the relations (the rebuild's read): two `$in` reads over the list indexes. */
  async function friendsByRelations(applicationId: string, gamerIds: string[]): Promise<Map<string, Set<string>>> {
    const byGamer = new Map(gamerIds.map((id) => [id, new Set<string>()]));
    for (const [a, b] of await friendEdgesIn(relations, applicationId, gamerIds)) {
      byGamer.get(a)?.add(b);
      byGamer.get(b)?.add(a);
    }
    return byGamer;
  }

  return {
    /** A friendship was accepted (its relation is written): each is in the other's list. */
    linked: (applicationId: string, a: string, b: string) =>
      follow([listOp(applicationId, a, { add: [b] }), listOp(applicationId, b, { add: [a] })]),

    unlinked,

    /**
     * A friendship with a gamer erased while it was made was removed: the pair is unlinked,
     * and an erased gamer's list left empty goes (the friendship's accept made it again after
     * the erasure's `forget`). One that still names friends is kept: the erasure's `forget`
     * has not run yet (it was retried, say) and reads it to clean their friends' lists.
     */
    async erasedFriend(applicationId: string, a: string, b: string, erased: string[]): Promise<void> {
      await unlinked(applicationId, a, b);
      for (const gamerId of erased) {
        await lists.deleteOne({ _id: friendListId(applicationId, gamerId), $or: [{ friends: { $size: 0 } }, { friends: { $exists: false } }] }).catch((error: unknown) => settings.onChangeFailed?.(error));
      }
    },

    /**
     * Gamer erasure, before the relations go: the gamer's own list holds at least the
     * friends the relations name, so that `forget` (after them) still finds every list to
     * clean, also when an erasure interrupted after deleting the relations is retried.
     * Unlike a change's list update, a failure here fails the erasure, which is retried.
     */
    remember: (applicationId: string, gamerId: string, friends: string[]) =>
      apply([listOp(applicationId, gamerId, { add: friends })]),

    /**
     * Gamer erasure, after the relations: the gamer leaves every friend's list, then their
     * own list goes. Running it again finds nothing more to do.
     */
    async forget(applicationId: string, gamerId: string): Promise<number> {
      const own = await lists.collection.findOne<Pick<FriendListDoc, 'friends'>>({ _id: friendListId(applicationId, gamerId) } as never, { projection: { friends: 1 } });
      const friends = own?.friends ?? [];
      await apply(friends.map((friend) => listOp(applicationId, friend, { remove: gamerId })));
      await lists.deleteOne({ _id: friendListId(applicationId, gamerId) });
      return friends.length;
    },

    /**
     * The friends of each gamer (at most MAX_FRIENDS each), read from their lists in one
     * `_id $in` query. Lists missing, not built or too old are rebuilt from the relations
     * in one batch (two `$in` reads) and written back where nothing changed them meanwhile;
     * the answer uses the relations' view for those. `rebuildsAtMost` bounds the rebuilds of
     * one call (missing lists first, then never built, then too old, oldest first): past it a list that
     * exists is answered as it stands (a list a friendship change made, never built, follows
     * every change since it was made), and a missing one not at all, until a later read
     * rebuilds it.
     */
    async friendsOf(applicationId: string, gamerIds: string[], rebuildsAtMost = Number.POSITIVE_INFINITY): Promise<Map<string, string[]>> {
      const unique = [...new Set(gamerIds)];
      if (unique.length === 0) return new Map();
      // no projection: it would leave out only `_id` and `applicationId`, and on the local
      // store projecting costs more than those two short strings (a copy of each document)
      const docs = await lists.collection.find<FriendListDoc>({ _id: { $in: unique.map((id) => friendListId(applicationId, id)) } } as never).toArray();
      const found = new Map(docs.map((doc) => [doc.gamerId, doc]));
      const at = now();
      const oldest = at.getTime() - settings.maxAgeMs;
      const result = new Map<string, string[]>();
      const missing: string[] = [];
      const unbuilt: string[] = [];
      const aged: string[] = [];
      for (const id of unique) {
        const doc = found.get(id);
        if (doc?.builtAt && doc.builtAt.getTime() >= oldest) result.set(id, doc.friends);
        else if (doc?.builtAt) aged.push(id);
        else if (doc) unbuilt.push(id);
        else missing.push(id);
      }
      // the aged ones oldest first: in the caller's order the same first ones were rebuilt on
      // every call made past FRIEND_LIST_MAX_AGE_S, and those past the bound never (until 2026-11-29)
      aged.sort((a, b) => found.get(a)!.builtAt!.getTime() - found.get(b)!.builtAt!.getTime());
      const due = [...missing, ...unbuilt, ...aged];
      const stale = due.slice(0, rebuildsAtMost);
      for (const id of due.slice(stale.length)) {
        const doc = found.get(id);
        if (doc) result.set(id, doc.friends);
      }
      if (stale.length === 0) return result;

      const rebuilt = await friendsByRelations(applicationId, stale);
      const writes: AnyBulkWriteOperation<FriendListDoc>[] = stale.map((gamerId) => {
        const friends = [...rebuilt.get(gamerId)!];
        result.set(gamerId, friends);
        const doc = found.get(gamerId);
        const _id = friendListId(applicationId, gamerId);
        // an existing list only if no change counted since it was read; a new one only if none appeared
        return doc
          ? { updateOne: { filter: { _id, version: doc.version }, update: { $set: { friends, builtAt: at } } } }
          : { insertOne: { document: { _id, applicationId, gamerId, friends, version: 0, builtAt: at } } };
      });
      try {
        await lists.bulkWrite(writes, { ordered: false });
      } catch (error) {
        // a list another call created meanwhile is left as it is: it is rebuilt on a later read if need be
        if (!isDuplicateKeyOnly(error)) throw error;
      }
      return result;
    },
  };
}
export type FriendListRepository = ReturnType<typeof friendListRepository>;
