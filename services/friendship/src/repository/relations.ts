import { FriendshipStatus } from '@gfts/contracts';
import type { Model, mongo } from 'mongoose';
import { friendLimitHolder, withinLimit, type Whose } from '../domain/limits.ts';
import type { FriendNotes, Relation } from '../domain/model.ts';
import { blockRefusal, pairKeyOf, refusalOf, type RequestChecks, type RequestRefusal } from '../domain/relation-rules.ts';
import { blockStateBetween, type PairBlocks, type StandingBlock } from './blocked-pair.ts';
import type { RemovedRelation } from './blocks.ts';
import type { FriendListRepository } from './friend-lists.ts';
import type { BlockDoc, RelationDoc } from './models.ts';

/** Whether gamers are in the application's directory (gamers.ts), read where a request or block is made. */
export interface GamerLookup {
  exists(applicationId: string, gamerId: string): Promise<boolean>;
  /** both of them, in one read */
  bothExist(applicationId: string, one: string, other: string): Promise<boolean>;
}

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
    ...(doc.notes ? { notes: doc.notes } : {}),
  };
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

/** A relation as a list page shows it: the pair, the status, and only the listing gamer's own notes. */
export type ListedRelation = Pick<Relation, 'id' | 'requester' | 'addressee' | 'status' | 'notes'>;

type ListedDoc = Pick<RelationDoc, '_id' | 'requester' | 'addressee' | 'status' | 'notes'>;

const toListed = ({ _id, requester, addressee, status, notes }: ListedDoc): ListedRelation => ({ id: _id, requester, addressee, status, ...(notes ? { notes } : {}) });

type RelationFilter = Partial<Pick<RelationDoc, '_id' | 'applicationId' | 'requester' | 'addressee' | 'status' | 'pairKey'>> & { members?: string } & Record<`notes.${string}`, unknown>;

/** Options of the friend list. */
export interface FriendListFilter {
  /** only the friends this gamer marked favorite */
  favoriteOnly?: boolean;
}

/** Only the two ids of an edge: the suggestion and mutual-friend reads need nothing else. */
const EDGE_FIELDS = { _id: 0, requester: 1, addressee: 1 } as const;
type Edge = Pick<RelationDoc, 'requester' | 'addressee'>;

/** The other end of each edge that touches `gamerId`. */
const partnersOf = (edges: Edge[], gamerId: string) => edges.map((e) => (e.requester === gamerId ? e.addressee : e.requester));

/** Every friend of a gamer (at most MAX_FRIENDS), ids only, by the relations: two index ranges. */
export async function friendIdsIn(relations: Model<RelationDoc>, applicationId: string, gamerId: string): Promise<string[]> {
  const sides = await Promise.all(friendSides(applicationId, gamerId).map((side) => relations.find(side, EDGE_FIELDS).lean<Edge[]>()));
  return partnersOf(sides.flat(), gamerId);
}

/**
 * The friendships of many gamers at once, as edges: two `$in` reads over the same indexes
 * as the friend list, so F gamers with F friends each cost two queries of about F x F index
 * entries, whatever the size of the application. Only the rebuild of friend-id lists reads
 * this (friend-lists.ts): on the local store each of those entries is a whole document
 * decoded (bench/results/2026-11-23-store.md).
 */
export async function friendEdgesIn(relations: Model<RelationDoc>, applicationId: string, gamerIds: string[]): Promise<Array<[string, string]>> {
  if (gamerIds.length === 0) return [];
  const $in = gamerIds;
  const [asked, askedBy] = await Promise.all([
    relations.find({ applicationId, requester: { $in }, status: FriendshipStatus.ACCEPTED }, EDGE_FIELDS).lean<Edge[]>(),
    relations.find({ applicationId, addressee: { $in }, status: FriendshipStatus.ACCEPTED }, EDGE_FIELDS).lean<Edge[]>(),
  ]);
  return [...asked, ...askedBy].map((e) => [e.requester, e.addressee]);
}

/**
 * A friendship that a request's withdrawal across a block ended: the addressee accepted the
 * request in the milliseconds it stood. Announced as that block ending a friendship is.
 */
export interface EndedAcrossBlock {
  /** the block that refused the request: the addressee's if they block the requester */
  block: StandingBlock;
  removed: NonNullable<RemovedRelation>;
}

export type RequestOutcome =
  /** the new pending request is stored */
  | { kind: 'requested'; request: Relation }
  /** the pair already had a relation (maybe written a moment ago by a racing call): this one */
  | { kind: 'exists'; relation: Relation }
  /** refused (the target unknown, or the pending limit); nothing is stored */
  | Exclude<RequestRefusal, { kind: 'blocked' }>
  /** refused for a block either way; nothing is stored, and `ended` is a friendship that ended with it */
  | (Extract<RequestRefusal, { kind: 'blocked' }> & { ended?: EndedAcrossBlock });

export type AcceptOutcome =
  | { kind: 'accepted'; friendship: Relation }
  /** no pending request with this id addressed to this gamer (anymore) */
  | { kind: 'notFound' }
  /** `whose`: 'caller' is the accepting addressee, 'other' the requester */
  | { kind: 'friendLimit'; whose: Whose };

export type RemoveOutcome = { kind: 'removed'; relation: Relation } | { kind: 'notFound' };

/**
 * The reads of every request and accept (counts, the pair's relation, the pending request)
 * and of every list page, and the request's and the accept's own write, go through the
 * driver's collection: the same filters and documents, without mongoose building and
 * casting a query object per call (~0.1 ms of CPU per findOneAndUpdate here; issue #16,
 * docs/operations.md "Request cost"). Their documents are written whole by this file, in
 * the schema's types. The other writes stay on the model.
 *
 * Relations between gamers. Every state change is one single-document operation that is
 * atomic on MongoDB (and on the patched local store, which serializes them per
 * collection): an upsert for a request, a conditional findOneAndUpdate for accept, a
 * conditional findOneAndDelete for reject, cancel and unfriend. The filter carries the
 * owner and the expected status, so of racing calls exactly one matches, and the others
 * get notFound. Two things still need a second step after the write, because they span
 * several documents: the quotas (a count of many relations) and a racing block (another
 * collection). Each is one re-check that undoes the verb's own write. A verb that makes or
 * ends a friendship then updates both gamers' friend-id lists (friend-lists.ts): relation
 * first, list after.
 */
export function relationRepository(relations: Model<RelationDoc>, blocksModel: Model<BlockDoc>, friendLists: FriendListRepository, directory: GamerLookup) {
  /** The driver's collection typed with the documents: its writes are checked against RelationDoc at compile time. */
  const relationsCollection = relations.collection as unknown as mongo.Collection<RelationDoc>;

  /**
   * Both gamers' friends, each counted up to `cap` (enough to compare with a limit), in one
   * read per side of the relation: the `$in` ranges of the friend list's two indexes,
   * grouped by gamer (two store commands where counting each gamer's sides was four).
   */
  async function countFriendsOfPair(applicationId: string, a: string, b: string, cap: number): Promise<[number, number]> {
    const groups = await Promise.all(
      (['requester', 'addressee'] as const).map((side) =>
        relationsCollection
          .aggregate<{ _id: string; n: number }>([
            { $match: { applicationId, [side]: { $in: [a, b] }, status: FriendshipStatus.ACCEPTED } },
            // neither gamer can hold much more than `cap` on a side (the limit is what it
            // counts for); the bound keeps the read finite whatever a database holds
            { $limit: 2 * cap },
            { $group: { _id: `$${side}`, n: { $sum: 1 } } },
          ])
          .toArray(),
      ),
    );
    const countOf = (gamerId: string) => Math.min(cap, groups.flat().reduce((n, group) => (group._id === gamerId ? n + group.n : n), 0));
    return [countOf(a), countOf(b)];
  }

  async function countPendingOutgoing(applicationId: string, gamerId: string, cap: number): Promise<number> {
    return relations.collection.countDocuments({ applicationId, requester: gamerId, status: FriendshipStatus.PENDING }, { limit: cap });
  }

  /** Whose friend quota a just-written friendship passed (it is counted), if either's. */
  async function friendQuotaAfter(friendship: Pick<Relation, 'applicationId' | 'addressee' | 'requester'>, max: number): Promise<Whose | undefined> {
    const [caller, other] = await countFriendsOfPair(friendship.applicationId, friendship.addressee, friendship.requester, max + 1);
    return friendLimitHolder({ caller, other }, max, 'after');
  }

  /** Whether the relation is (still) an accepted friendship: an `_id` read, nothing else of it. */
  async function isAccepted(applicationId: string, id: string): Promise<boolean> {
    return (await relationsCollection.findOne({ _id: id, applicationId, status: FriendshipStatus.ACCEPTED }, { projection: { _id: 1 } })) !== null;
  }

  /** What a new request is checked for after its write, read in one round. */
  async function checksOf({ applicationId, requester, addressee }: Relation, maxPending: number): Promise<RequestChecks & { blocks: PairBlocks }> {
    const [targetKnown, blocks, pending] = await Promise.all([
      // the requester too: one whose erasure ran while this call was under way (its entry
      // gone) withdraws the request, which the erasure's deletes may have run before
      directory.bothExist(applicationId, requester, addressee),
      blockStateBetween(blocksModel, applicationId, requester, addressee),
      countPendingOutgoing(applicationId, requester, maxPending + 1),
    ]);
    return { targetKnown, blocks, withinPendingLimit: withinLimit(pending, maxPending, 'after') };
  }

  /**
   * Withdraws a refused new request, only while pending and not kept. Answers the relation
   * when it stands: accepted by its addressee meanwhile, or kept by a repeat whose own checks
   * passed (the addressee registering at this instant, or a slot freed), it did happen;
   * already gone (a block's clearing, an erasure), it did not (undefined). Found pending and
   * not kept, it was accepted when the delete ran and put back by that accept's friend-limit
   * undo: it is still refused, so it is withdrawn again, once. Missing it again takes a
   * second refused accept in those milliseconds; it then stands, and is answered as stored
   * (docs/friendship.md, Limits).
   */
  async function withdrawUnlessItHappened(applicationId: string, id: string): Promise<RelationDoc | undefined> {
    for (let attempt = 1; ; attempt++) {
      const withdrawn = await relations.deleteOne({ _id: id, applicationId, status: FriendshipStatus.PENDING, kept: { $ne: true } });
      if (withdrawn.deletedCount === 1) return undefined;
      const found = await relationsCollection.findOne({ _id: id, applicationId });
      if (!found) return undefined;
      if (found.status === FriendshipStatus.ACCEPTED || found.kept === true || attempt === 2) return found;
    }
  }

  /** One attempt of `request` (below); `retried`: the second, after a repeat found its request gone. */
  async function requestOnce(request: Relation, maxPending: number, retried: boolean): Promise<RequestOutcome> {
    const { id, applicationId, pairKey, ...fields } = request;
    const { requester, addressee } = request;
    // The filter's fields go into the new document by themselves; setting only the others
    // lets MongoDB retry an upsert that lost to a concurrent insert on the unique index.
    const existing = await relationsCollection.findOneAndUpdate(
      { applicationId, pairKey },
      { $setOnInsert: { _id: id, ...fields, members: [...fields.members] } },
      { upsert: true, returnDocument: 'before', includeResultMetadata: false },
    );
    if (existing) {
      // The caller's own request, maybe written a moment ago by a racing identical call that
      // is still checking it and may withdraw it: answered only once that cannot happen, or
      // the answer would name a request that is not kept. Checked as that call checks it;
      // passing, marked kept, which that call's withdrawal does not match.
      if (existing.requester === requester && existing.status === FriendshipStatus.PENDING && !existing.kept) {
        const refusal = refusalOf(await checksOf(request, maxPending));
        if (refusal) return refusal;
        const kept = await relations.updateOne({ _id: existing._id, applicationId, status: FriendshipStatus.PENDING }, { $set: { kept: true } });
        // Gone or no longer pending before the mark: withdrawn by its call (over the limit, or
        // blocked or unknown as that call saw it), rejected, cancelled or accepted meanwhile.
        // Asked again, once, the pair's relation as it is now answers: a new request checked
        // as any (the limit, a block, the directory), or the friendship. Until 2026-11-28
        // this answered the pending limit whatever happened, and a mark on a request accepted
        // meanwhile answered `pending` for a friendship.
        if (kept.matchedCount === 0) return retried ? { kind: 'pendingLimit' } : requestOnce(request, maxPending, true);
      } else if (existing.status === FriendshipStatus.PENDING && existing.requester !== requester) {
        // The other gamer's request, which the caller would accept. Across a block it is
        // there only for the milliseconds before its own check (or the block's clearing)
        // removes it; accepted then, it became a friendship that removal ended. Refused as
        // a request across a block is.
        const refusal = blockRefusal(await blockStateBetween(blocksModel, applicationId, requester, addressee));
        if (refusal) return refusal;
      }
      return { kind: 'exists', relation: toRelation(existing) };
    }

    let checks: Awaited<ReturnType<typeof checksOf>>;
    try {
      checks = await checksOf(request, maxPending);
    } catch (error) {
      // A check that could not be read (a timeout, a failover) fails the call: its request,
      // written but neither checked nor announced, is withdrawn, so a retry makes and
      // announces it anew. Until 2026-11-28 it stayed: unchecked (across a block, over the
      // limit), and a retry took it for its own repeat and answered without announcing it.
      // Not one a repeat marked kept (it was checked and answered), nor one accepted meanwhile.
      await relations.deleteOne({ _id: id, applicationId, status: FriendshipStatus.PENDING, kept: { $ne: true } }).catch(() => undefined);
      throw error;
    }
    const refusal = refusalOf(checks);
    if (refusal?.kind === 'blocked') {
      // Whatever it became meanwhile, nothing may stay between a blocked pair. Its addressee
      // may have accepted it in these milliseconds (an accept reads no blocks): then this
      // ends a friendship, which must be announced as a block's end of one is. Not one a
      // repeat marked kept: the repeat read no block, after this call's read (the block was
      // lifted: it may stand, and the repeat answered its id) or before the block was
      // written (whose own clearing of the pair, after its write, removes it).
      const removed = await relations.findOneAndDelete({ _id: id, applicationId, kept: { $ne: true } }).lean();
      if (!removed) {
        // Kept by that repeat, which answered its id. With the block lifted it stands, and
        // this call, its creator, answers and announces it as the other refusals' withdrawal
        // does when it finds a kept request (until 2026-11-29 this answered 403 and nobody
        // announced it). With a block standing (the repeat read before it was written) the
        // block's clearing removes it: refused, and announced by nobody but the block.
        const stands = await relationsCollection.findOne({ _id: id, applicationId });
        if (stands?.kept !== true) return refusal;
        if (stands.status !== FriendshipStatus.PENDING) return { kind: 'exists', relation: toRelation(stands) };
        const blockedNow = blockRefusal(await blockStateBetween(blocksModel, applicationId, requester, addressee));
        return blockedNow ?? { kind: 'requested', request };
      }
      if (removed.status !== FriendshipStatus.ACCEPTED) return refusal;
      // relation first, list after (a request found pending was linked only by an accept
      // refused for the friend limit, which unlinks the pair itself after putting it back)
      await friendLists.unlinked(applicationId, requester, addressee);
      const block = checks.blocks.standing.find((b) => b.blocker === addressee) ?? checks.blocks.standing[0]!;
      return { ...refusal, ended: { block, removed } };
    }
    if (refusal) {
      const stands = await withdrawUnlessItHappened(applicationId, id);
      if (!stands) return refusal;
      // Accepted by its addressee in these milliseconds, and announced by that accept: the
      // pair is friends, answered as the relation it is (409 ALREADY_FRIENDS), with no
      // `requested` after the `accepted`. Until 2026-11-28 this answered `pending` and
      // announced a request already accepted.
      if (stands.status === FriendshipStatus.ACCEPTED) {
        // unless a gamer of it is still not in the directory: erased while this call ran, and
        // its request accepted after the erasure's deletes (until 2026-11-29 that friendship
        // stood, naming the erased gamer). Removed as the erasure removes one, unannounced.
        if (refusal.kind === 'unknownTarget') {
          const known = await Promise.all([directory.exists(applicationId, requester), directory.exists(applicationId, addressee)]);
          if (!known.every(Boolean)) {
            const removed = await relations.findOneAndDelete({ _id: id, applicationId }).lean();
            if (removed?.status === FriendshipStatus.ACCEPTED) {
              await friendLists.erasedFriend(applicationId, requester, addressee, [requester, addressee].filter((_, i) => !known[i]));
            }
            return refusal;
          }
        }
        return { kind: 'exists', relation: toRelation(stands) };
      }
    }
    return { kind: 'requested', request };
  }

  async function removeOne(filter: RelationFilter): Promise<RemoveOutcome> {
    const doc = await relations.findOneAndDelete(filter).lean();
    return doc ? { kind: 'removed', relation: toRelation(doc) } : { kind: 'notFound' };
  }

  return {
    /**
     * Stores a new pending request unless the pair already has a relation. The unique
     * (applicationId, pairKey) index is what keeps racing requests (20 identical ones, or
     * A->B and B->A at once) to one document per pair: the upsert inserts for exactly one
     * of them and hands the others the relation that is there, to decide on once.
     *
     * A new request is then checked, in one round of three reads (checksOf), for what a
     * single-document write cannot guard, and withdraws itself when one fails (refusalOf):
     * - the addressee is in the gamer directory (a relation is only ever made between
     *   gamers of the directory);
     * - no block stands either way: either a block's clearing of the pair comes after this
     *   write and removes it, or this read sees the block's record (blocked-pair.ts);
     * - the pending quota, counted including this request: over the limit, the request
     *   withdraws itself, so that of racing requests the later ones see the others and the
     *   stored count never ends above the limit.
     * Checked after the write only: the common request costs three reads besides its write
     * (it was four), one refused costs an insert and a delete it did not before. A refused
     * request exists for the milliseconds in between, visible to a list read then (the
     * requester's outgoing list; across a block, the other gamer's incoming list), and is
     * never announced. A crossed request, which finds the pair's relation, is checked for
     * blocks only (a relation exists only between gamers of the directory): one read more on
     * that path. A repeat of the caller's own request is checked once, as its creator checks
     * it (below).
     */
    request: (request: Relation, maxPending: number): Promise<RequestOutcome> => requestOnce(request, maxPending, false),

    /**
     * pending -> accepted, in place: the request's id stays the friendship's id. Only the
     * addressee, only while pending; of an accept, a reject and a cancel racing on one
     * request, the store applies exactly one. Then both gamers' friends are counted
     * including this friendship: over the limit (a gamer already full, or racing accepts
     * that together passed it), this one puts the request back to pending as it was, so the
     * stored count never ends above the limit (at worst a racing accept is refused that
     * would have fit). Counting after the write only saves the common accept a read and
     * four counts; an accept refused for the limit leaves the friendship visible to reads for
     * the milliseconds until it is put back, and announces nothing.
     *
     * The friend-id lists take the pair right after the write, and the relation is read
     * again after that and after the counts, as the last step: a block or unfriend whose
     * list update landed before this one's finds the relation gone here, and the pair leaves
     * the lists again (the accept then answers notFound: the friendship is gone). Either that
     * read sees the relation still accepted, and then whatever ends it later updates the
     * lists after this and answers after this read.
     */
    async accept(applicationId: string, id: string, addressee: string, now: Date, maxFriends: number): Promise<AcceptOutcome> {
      const pending = { _id: id, applicationId, addressee, status: FriendshipStatus.PENDING };
      // the request as it was, so that a refusal can put it back exactly
      const request = await relationsCollection.findOneAndUpdate(
        pending,
        { $set: { status: FriendshipStatus.ACCEPTED, updatedAt: now } },
        { returnDocument: 'before', includeResultMetadata: false },
      );
      if (!request) return { kind: 'notFound' };
      const friendship: RelationDoc = { ...request, status: FriendshipStatus.ACCEPTED, updatedAt: now };
      const { requester } = friendship;
      const undo = async () => {
        // only this call accepted it, so an accepted document with this id is ours to undo
        await relations.updateOne(
          { _id: id, applicationId, status: FriendshipStatus.ACCEPTED },
          { $set: { status: FriendshipStatus.PENDING, updatedAt: request.updatedAt } },
        );
        // an accept retried between the undo and this unlink may have linked the pair first (and
        // may itself be refused and unlink while we link again): `unlinked` then makes the lists
        // follow the pair's relation as it stands (until 2026-11-29 a second loop, by this id,
        // did the same once more)
        await friendLists.unlinked(applicationId, requester, addressee);
      };
      let over: Whose | undefined;
      let stands = false;
      try {
        await friendLists.linked(applicationId, requester, addressee);
        over = await friendQuotaAfter(friendship, maxFriends);
        // Read again last, after the list update and the counts: a block or unfriend that ended
        // the friendship meanwhile (and announced it) is seen here, so this accept is not
        // announced after that end; it may also have unlinked the pair before we linked it.
        if (!over) stands = await isAccepted(applicationId, id);
      } catch (error) {
        // The lists, the friend count or the last read failed: the call fails, and the request
        // goes back to pending first (if it still is this accept's), so the addressee's retry
        // accepts and announces it. Until 2026-11-28 the friendship stood unannounced (over the
        // limit, maybe), and the retry answered 404.
        await undo().catch(() => undefined);
        throw error;
      }
      if (over) {
        await undo();
        return { kind: 'friendLimit', whose: over };
      }
      if (!stands) {
        await friendLists.unlinked(applicationId, requester, addressee);
        // ended meanwhile, and announced so by what ended it: an accepted after that would
        // show a friend who is not one to a client that applies events in order
        return { kind: 'notFound' };
      }
      return { kind: 'accepted', friendship: toRelation(friendship) };
    },

    /** Reject: only the addressee, only pending. */
    reject: (applicationId: string, id: string, addressee: string) =>
      removeOne({ _id: id, applicationId, addressee, status: FriendshipStatus.PENDING }),

    /** Cancel: only the requester, only pending. */
    cancel: (applicationId: string, id: string, requester: string) =>
      removeOne({ _id: id, applicationId, requester, status: FriendshipStatus.PENDING }),

    /** Unfriend: either member, only accepted; then neither is in the other's friend-id list. */
    async unfriend(applicationId: string, id: string, member: string): Promise<RemoveOutcome> {
      const outcome = await removeOne({ _id: id, applicationId, members: member, status: FriendshipStatus.ACCEPTED });
      if (outcome.kind === 'removed') await friendLists.unlinked(applicationId, outcome.relation.requester, outcome.relation.addressee);
      return outcome;
    },

    /**
     * The caller's private notes on a friend, in one conditional update: only a member of
     * the friendship, only while accepted, and only that member's own `notes.<member>`
     * fields. The member id is a validated, lower-cased uuid from the gateway's identity,
     * so the field path holds no `.` or `$` of a caller's choosing. '' removes the alias.
     */
    async setNotes(applicationId: string, id: string, member: string, notes: FriendNotes): Promise<Relation | null> {
      const set: Record<string, unknown> = {};
      const unset: Record<string, ''> = {};
      if (notes.alias !== undefined) {
        if (notes.alias === '') unset[`notes.${member}.alias`] = '';
        else set[`notes.${member}.alias`] = notes.alias;
      }
      if (notes.favorite !== undefined) set[`notes.${member}.favorite`] = notes.favorite;
      const update = { ...(Object.keys(set).length > 0 ? { $set: set } : {}), ...(Object.keys(unset).length > 0 ? { $unset: unset } : {}) };
      const doc = await relations
        .findOneAndUpdate({ _id: id, applicationId, members: member, status: FriendshipStatus.ACCEPTED }, update, { returnDocument: 'after' })
        .lean();
      return doc ? toRelation(doc) : null;
    },

    /** Every friend of a gamer (at most MAX_FRIENDS), ids only, by the relations: two index ranges. */
    friendIds: (applicationId: string, gamerId: string) => friendIdsIn(relations, applicationId, gamerId),

    /** The friendships of many gamers at once, as edges, by the relations (friendEdgesIn). */
    friendEdgesOf: (applicationId: string, gamerIds: string[]) => friendEdgesIn(relations, applicationId, gamerIds),

    /**
     * Those of `candidates` with a pending request from or to `gamerId`: a read bounded by the
     * candidates (incoming requests are not bounded).
     */
    async pendingAmong(applicationId: string, gamerId: string, candidates: readonly string[]): Promise<Set<string>> {
      if (candidates.length === 0) return new Set();
      const docs = await relations
        .find({ applicationId, pairKey: { $in: candidates.map((c) => pairKeyOf(gamerId, c)) }, status: FriendshipStatus.PENDING }, EDGE_FIELDS)
        .lean<Edge[]>();
      return new Set(partnersOf(docs, gamerId));
    },

    /**
     * Up to `limit` entries of a list after `afterId`, oldest first: only the fields a page
     * shows (about half of a relation's bytes, and of what the service decodes per row), with
     * the listing gamer's own notes and not the other member's. The member id in the
     * projection's path is a validated, lower-cased uuid (as in setNotes).
     */
    async list(applicationId: string, gamerId: string, which: RelationList, afterId: string | undefined, limit: number, filter: FriendListFilter = {}): Promise<ListedRelation[]> {
      // the favorite mark is not in the index: it filters the gamer's friend range (at most MAX_FRIENDS)
      const favorite: RelationFilter = which === 'friends' && filter.favoriteOnly ? { [`notes.${gamerId}.favorite`]: true } : {};
      const projection = { requester: 1, addressee: 1, status: 1, ...(which === 'friends' ? { [`notes.${gamerId}`]: 1 } : {}) };
      // The driver's collection, not the model: a page is read on every list call, and the
      // documents are used as stored (no casting of the filter, no mongoose query object).
      const page = (filter: RelationFilter) =>
        relations.collection
          .find<ListedDoc>({ ...filter, ...favorite, ...(afterId ? { _id: { $gt: afterId } } : {}) } as never, { sort: { _id: 1 }, limit, projection })
          .toArray();
      if (which === 'incoming') return (await page({ applicationId, addressee: gamerId, status: FriendshipStatus.PENDING })).map(toListed);
      if (which === 'outgoing') return (await page({ applicationId, requester: gamerId, status: FriendshipStatus.PENDING })).map(toListed);
      // Friends: the two sides are two index ranges already in _id order; merge, keep `limit`.
      const sides = await Promise.all(friendSides(applicationId, gamerId).map(page));
      return mergeById(sides[0]!, sides[1]!, limit).map(toListed);
    },
  };
}
export type RelationRepository = ReturnType<typeof relationRepository>;
