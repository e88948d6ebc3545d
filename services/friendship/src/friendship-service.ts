import { ErrorCode, FriendshipEventType, FriendshipStatus, type BlockedEntry, type FriendshipEntry, type Identity, type UserSummary } from '@gfts/contracts';
import { badRequest, conflict, notFound, uuidv7 } from '@gfts/platform';
import { decodeCursor, encodeCursor } from './domain/cursor.ts';
import { displayNameKey } from './domain/display-name.ts';
import { limitReached, pageSize, Quota, searchSize, withinLimit } from './domain/limits.ts';
import type { BlockState, GamerProfile, Relation } from './domain/model.ts';
import { assertNotBlocked, assertNotSelf, decideFriendRequest, friendshipFrom, otherMember, pendingRequest } from './domain/relation-rules.ts';
import type { PublishEvent } from './events.ts';
import type { RegistrationCache } from './registration-cache.ts';
import type { FriendshipRepositories, RelationList } from './repository/index.ts';

export interface FriendshipLimits {
  maxFriends: number;
  maxPendingOutgoing: number;
  maxBlocks: number;
}

export interface FriendshipServiceDeps {
  repositories: FriendshipRepositories;
  publish: PublishEvent;
  limits: FriendshipLimits;
  registrations: RegistrationCache;
  clock?: () => Date;
}

/** Who is calling: the verified identity from the gateway. */
export type Caller = Pick<Identity, 'gamerId' | 'applicationId' | 'displayName' | 'avatar'>;

export interface PageRequest {
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface Page<T> {
  items: T[];
  /** the page size used, repeated in the next-page link */
  limit: number;
  /** present when more entries follow */
  nextCursor?: string;
}

/**
 * A write that loses a race on the pair's unique index re-reads and decides again (a
 * send-request whose insert collided, a friendship whose insert met a request that
 * slipped in). Each retry follows a real change by the other gamer, so a few are plenty.
 */
const RACE_RETRIES = 4;

type Befriended = { kind: 'friends'; friendship: Relation } | { kind: 'gone' } | { kind: 'blocked'; blocks: BlockState };

const unknownRelation = () => notFound('no such friendship or friend request of yours');

/**
 * The friendship use cases: domain rules + data access + events. Handlers call these and
 * only map results to HTTP. There are no transactions (FerretDB has none): each state
 * change is an insert guarded by a unique index or a delete whose count says who won,
 * and where two writes must agree (a request and a racing block, a quota and racing
 * inserts) the second step re-checks after writing and takes its own write back.
 */
export function friendshipService(deps: FriendshipServiceDeps) {
  const { repositories: repo, publish, limits, registrations } = deps;
  const now = deps.clock ?? (() => new Date());

  function summary(gamerId: string, profiles: Map<string, GamerProfile>): UserSummary {
    const profile = profiles.get(gamerId);
    // a relation's gamers are always registered; the fallback only guards a hand-edited database
    return { id: gamerId, displayName: profile?.displayName ?? '', avatar: profile?.avatar ?? '' };
  }

  async function page<T extends { id: string }, E>(
    request: PageRequest,
    read: (afterId: string | undefined, limit: number) => Promise<T[]>,
    toEntries: (rows: T[]) => Promise<E[]>,
  ): Promise<Page<E>> {
    const limit = pageSize(request.limit);
    const afterId = request.cursor === undefined ? undefined : decodeCursor(request.cursor);
    // one more than shown tells whether another page follows, without counting
    const rows = await read(afterId, limit + 1);
    const shown = rows.slice(0, limit);
    const last = shown.at(-1);
    return { items: await toEntries(shown), limit, ...(rows.length > limit && last ? { nextCursor: encodeCursor(last.id) } : {}) };
  }

  /** Friend quota of both gamers; `after` counts a write already made (see limits.ts). */
  async function friendQuota(applicationId: string, caller: string, other: string, stage: 'before' | 'after'): Promise<Error | undefined> {
    const max = limits.maxFriends;
    const cap = stage === 'before' ? max : max + 1;
    const [mine, theirs] = await Promise.all([
      repo.relations.countFriends(applicationId, caller, cap),
      repo.relations.countFriends(applicationId, other, cap),
    ]);
    if (!withinLimit(mine, max, stage)) return limitReached(Quota.friends, max, 'caller');
    if (!withinLimit(theirs, max, stage)) return limitReached(Quota.friends, max, 'other');
    return undefined;
  }

  /**
   * Inserts the friendship a taken request becomes. Between taking the request and this
   * insert the pair has no document, so a new request between the same two gamers may
   * have slipped in: it is folded into the friendship. If another path already made them
   * friends, that friendship is the answer.
   */
  async function insertFriendship(request: Relation): Promise<{ friendship: Relation; created: boolean }> {
    const { applicationId, requester, addressee } = request;
    const friendship = friendshipFrom(request, uuidv7(), now());
    for (let attempt = 0; attempt < RACE_RETRIES; attempt++) {
      if ((await repo.relations.insert(friendship)) === 'inserted') return { friendship, created: true };
      const existing = await repo.relations.findByPair(applicationId, requester, addressee);
      if (existing?.status === FriendshipStatus.ACCEPTED) return { friendship: existing, created: false };
      if (existing) await repo.relations.deleteById(applicationId, existing.id);
    }
    throw conflict(ErrorCode.CONFLICT, 'the relation kept changing while we accepted; retry');
  }

  /**
   * pending -> accepted by the addressee, within both gamers' friend quota.
   *
   * Taking (deleting) the request is the decision point: of an accept, a reject and a
   * cancel racing on one request exactly one takes it. The friendship is inserted next.
   * Then two re-checks: a block written while the pair had no document would not have
   * found ours to delete, so we look for one and withdraw; and the friend quota is counted
   * again including our write, so of concurrent accepts that together pass the limit the
   * later ones see it and undo themselves (restoring the request). The limit holds
   * without a transaction; at worst a racing accept is refused that would have fit.
   */
  async function befriend(request: Relation): Promise<Befriended> {
    const { applicationId, requester, addressee } = request;
    const refused = await friendQuota(applicationId, addressee, requester, 'before');
    if (refused) throw refused;
    const taken = await repo.relations.takePendingIncoming(applicationId, request.id, addressee);
    if (!taken) return { kind: 'gone' };
    const { friendship, created } = await insertFriendship(taken);
    // another call made them friends first; the re-checks and the event are its business
    if (!created) return { kind: 'friends', friendship };
    const [blocks, over] = await Promise.all([
      repo.blocks.between(applicationId, addressee, requester),
      friendQuota(applicationId, addressee, requester, 'after'),
    ]);
    if (blocks.callerBlocksTarget || blocks.targetBlocksCaller) {
      await repo.relations.deleteById(applicationId, friendship.id);
      return { kind: 'blocked', blocks };
    }
    if (over) {
      // put the request back as it was, unless the pair got a new relation meanwhile
      if (await repo.relations.deleteById(applicationId, friendship.id)) await repo.relations.insert(taken);
      throw over;
    }
    publish(FriendshipEventType.ACCEPTED, { applicationId, friendshipId: friendship.id, requestId: taken.id, actorId: addressee, targetId: requester });
    return { kind: 'friends', friendship };
  }

  /** Inserts a pending request; 'lost-race' when the pair got a relation in the meantime. */
  async function createRequest(applicationId: string, caller: string, target: string): Promise<'created' | 'lost-race'> {
    const max = limits.maxPendingOutgoing;
    if (!withinLimit(await repo.relations.countPendingOutgoing(applicationId, caller, max), max, 'before')) {
      throw limitReached(Quota.pendingOutgoing, max);
    }
    const inserted = pendingRequest(applicationId, caller, target, uuidv7(), now());
    if ((await repo.relations.insert(inserted)) === 'exists') return 'lost-race';
    // A block may have been written between our check and our insert. Blocking writes its
    // record before deleting the pair's relation, so either it deleted ours or we see it here.
    const [blocks, pending] = await Promise.all([
      repo.blocks.between(applicationId, caller, target),
      repo.relations.countPendingOutgoing(applicationId, caller, max + 1),
    ]);
    if (blocks.callerBlocksTarget || blocks.targetBlocksCaller || !withinLimit(pending, max, 'after')) {
      await repo.relations.deleteById(applicationId, inserted.id);
      assertNotBlocked(blocks);
      throw limitReached(Quota.pendingOutgoing, max);
    }
    publish(FriendshipEventType.REQUESTED, { applicationId, friendshipId: inserted.id, actorId: caller, targetId: target });
    return 'created';
  }

  async function listRelations(caller: Caller, which: RelationList, request: PageRequest): Promise<Page<FriendshipEntry>> {
    const { applicationId, gamerId } = caller;
    return page(
      request,
      (afterId, limit) => repo.relations.list(applicationId, gamerId, which, afterId, limit),
      async (rows) => {
        const profiles = await repo.gamers.profiles(applicationId, rows.map((r) => otherMember(r, gamerId)));
        return rows.map((r) => ({ id: r.id, status: r.status, user: summary(otherMember(r, gamerId), profiles) }));
      },
    );
  }

  return {
    /**
     * Puts the caller in the application's gamer directory, or refreshes their name and
     * avatar from the token. Runs on every call, so the write is skipped while this process
     * recently stored the same values.
     */
    async registerCaller(caller: Caller): Promise<void> {
      const key = `${caller.applicationId}:${caller.gamerId}`;
      const fingerprint = JSON.stringify([caller.displayName ?? null, caller.avatar ?? null]);
      if (registrations.isFresh(key, fingerprint)) return;
      await repo.gamers.upsert(caller.applicationId, caller, now());
      registrations.remember(key, fingerprint);
    },

    /** POST /: request, idempotent repeat, or accept of the target's crossed request. */
    async sendRequest(caller: Caller, rawTarget: string): Promise<void> {
      const { applicationId, gamerId } = caller;
      const target = rawTarget.toLowerCase();
      assertNotSelf(gamerId, target, 'send a friend request to');
      const [targetKnown, blocks] = await Promise.all([
        repo.gamers.exists(applicationId, target),
        repo.blocks.between(applicationId, gamerId, target),
      ]);
      for (let attempt = 0; attempt < RACE_RETRIES; attempt++) {
        const existing = await repo.relations.findByPair(applicationId, gamerId, target);
        const decision = decideFriendRequest({ caller: gamerId, target, targetKnown, blocks, existing });
        if (decision.kind === 'already-requested') return;
        if (decision.kind === 'accept-crossed' && existing) {
          // the target asked first: the caller is that request's addressee
          const outcome = await befriend(existing);
          if (outcome.kind === 'friends') return;
          if (outcome.kind === 'blocked') assertNotBlocked(outcome.blocks);
          // 'gone': cancelled or taken meanwhile; look again
        } else if ((await createRequest(applicationId, gamerId, target)) === 'created') {
          return;
        }
      }
      throw conflict(ErrorCode.CONFLICT, 'the relation kept changing while we handled the request; retry');
    },

    async accept(caller: Caller, friendshipId: string): Promise<void> {
      const { applicationId, gamerId } = caller;
      const id = friendshipId.toLowerCase();
      const pending = await repo.relations.findPendingIncoming(applicationId, id, gamerId);
      if (!pending) throw unknownRelation();
      // gone: cancelled, rejected or accepted by a racing call; blocked: removed by a racing block
      if ((await befriend(pending)).kind !== 'friends') throw unknownRelation();
    },

    async reject(caller: Caller, friendshipId: string): Promise<void> {
      const { applicationId, gamerId } = caller;
      const removed = await repo.relations.takePendingIncoming(applicationId, friendshipId.toLowerCase(), gamerId);
      if (!removed) throw unknownRelation();
      publish(FriendshipEventType.REJECTED, { applicationId, friendshipId: removed.id, actorId: gamerId, targetId: removed.requester });
    },

    async cancel(caller: Caller, friendshipId: string): Promise<void> {
      const { applicationId, gamerId } = caller;
      const removed = await repo.relations.takePendingOutgoing(applicationId, friendshipId.toLowerCase(), gamerId);
      if (!removed) throw unknownRelation();
      publish(FriendshipEventType.CANCELLED, { applicationId, friendshipId: removed.id, actorId: gamerId, targetId: removed.addressee });
    },

    async unfriend(caller: Caller, friendshipId: string): Promise<void> {
      const { applicationId, gamerId } = caller;
      const removed = await repo.relations.takeFriendship(applicationId, friendshipId.toLowerCase(), gamerId);
      if (!removed) throw unknownRelation();
      publish(FriendshipEventType.REMOVED, { applicationId, friendshipId: removed.id, actorId: gamerId, targetId: otherMember(removed, gamerId) });
    },

    /**
     * Writes the one-way block first and only then deletes whatever relation the pair has,
     * so a friend request racing this block either is deleted here or sees the block
     * (createRequest). Blocking again is a no-op that still answers ok.
     */
    async block(caller: Caller, rawTarget: string): Promise<void> {
      const { applicationId, gamerId } = caller;
      const target = rawTarget.toLowerCase();
      assertNotSelf(gamerId, target, 'block');
      const [targetKnown, alreadyBlocked] = await Promise.all([
        repo.gamers.exists(applicationId, target),
        repo.blocks.blocks(applicationId, gamerId, target),
      ]);
      if (!targetKnown) throw notFound('no such gamer in this application');
      const max = limits.maxBlocks;
      if (!alreadyBlocked && !withinLimit(await repo.blocks.count(applicationId, gamerId, max), max, 'before')) {
        throw limitReached(Quota.blocks, max);
      }
      const { block, created } = await repo.blocks.upsert(applicationId, gamerId, target, now());
      if (created && !withinLimit(await repo.blocks.count(applicationId, gamerId, max + 1), max, 'after')) {
        await repo.blocks.deleteById(applicationId, block.id);
        throw limitReached(Quota.blocks, max);
      }
      await repo.relations.deletePair(applicationId, gamerId, target);
      if (created) publish(FriendshipEventType.BLOCKED, { applicationId, friendshipId: block.id, actorId: gamerId, targetId: target });
    },

    async unblock(caller: Caller, blockId: string): Promise<void> {
      const { applicationId, gamerId } = caller;
      const removed = await repo.blocks.deleteOwn(applicationId, blockId.toLowerCase(), gamerId);
      if (!removed) throw notFound('no such block of yours');
      publish(FriendshipEventType.UNBLOCKED, { applicationId, friendshipId: removed.id, actorId: gamerId, targetId: removed.blocked });
    },

    listFriends: (caller: Caller, request: PageRequest) => listRelations(caller, 'friends', request),
    listIncoming: (caller: Caller, request: PageRequest) => listRelations(caller, 'incoming', request),
    listOutgoing: (caller: Caller, request: PageRequest) => listRelations(caller, 'outgoing', request),

    async listBlocked(caller: Caller, request: PageRequest): Promise<Page<BlockedEntry>> {
      const { applicationId, gamerId } = caller;
      return page(
        request,
        (afterId, limit) => repo.blocks.list(applicationId, gamerId, afterId, limit),
        async (rows) => {
          const profiles = await repo.gamers.profiles(applicationId, rows.map((b) => b.blocked));
          return rows.map((b) => ({ id: b.id, toGamer: summary(b.blocked, profiles) }));
        },
      );
    },

    /**
     * Case-insensitive, literal prefix search over the folded display name, excluding the
     * caller and everyone who blocks the caller (a blocker stays invisible to the blocked).
     */
    async search(caller: Caller, displayName: string, limit: number | undefined): Promise<UserSummary[]> {
      const { applicationId, gamerId } = caller;
      const key = displayNameKey(displayName);
      if (key === '') throw badRequest('displayName must contain a visible character');
      const blockers = await repo.blocks.blockersOf(applicationId, gamerId);
      const found = await repo.gamers.searchByPrefix(applicationId, key, [gamerId, ...blockers], searchSize(limit));
      return found.map((g) => ({ id: g.gamerId, displayName: g.displayName, avatar: g.avatar }));
    },
  };
}
export type FriendshipService = ReturnType<typeof friendshipService>;
