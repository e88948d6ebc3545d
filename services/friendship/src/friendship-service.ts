import {
  ErrorCode, FriendshipEventType, FriendshipStatus, SUGGESTIONS_DEFAULT,
  type BlockedEntry, type FriendEntry, type FriendRequestResponse, type FriendshipEntry, type Identity, type Suggestion, type UserSummary,
} from '@gfts/contracts';
import { badRequest, conflict, decodeCursor, encodeCursor, notFound, uuidv7 } from '@gfts/platform';

import { displayNameKey } from './domain/display-name.ts';
import { limitReached, pageSize, Quota, SEARCH_READS, searchSize } from './domain/limits.ts';
import type { FriendNotes, GamerProfile } from './domain/model.ts';
import { presenceOf } from './domain/presence.ts';
import { candidateChunks, commonFriends, friendsToRead, rankSuggestions } from './domain/suggestions.ts';
import { assertNotBlocked, assertNotSelf, decideOnExistingRelation, otherMember, pendingRequest } from './domain/relation-rules.ts';
import type { PublishEvent } from './events.ts';
import { registrationKey, type RegistrationCache } from './registration-cache.ts';
import type { RemovedRelation } from './repository/blocks.ts';
import type { FriendshipRepositories, ListedRelation, RelationList } from './repository/index.ts';

export interface FriendshipLimits {
  maxFriends: number;
  maxPendingOutgoing: number;
  maxBlocks: number;
  /** friends whose lists a suggestions call reads (SUGGESTIONS_FRIENDS_READ) */
  suggestionFriendsRead: number;
  /** of those, the most it rebuilds from the relations (SUGGESTIONS_LIST_REBUILDS) */
  suggestionListRebuilds: number;
}

/** What the friend list needs of presence: the latest refresh of a live connection this replica's board holds, and the time to age it by (the server's, presence/server-clock.ts). */
export interface PresenceSource {
  lastSeen(applicationId: string, gamerId: string): number | undefined;
  /** the end of a session ended and not yet in the directory */
  endedAt(applicationId: string, gamerId: string): number | undefined;
  now(): number;
}

export interface FriendshipServiceDeps {
  repositories: FriendshipRepositories;
  publish: PublishEvent;
  limits: FriendshipLimits;
  registrations: RegistrationCache;
  presence: PresenceSource;
  onlineWindowMs: number;
  clock?: () => Date;
}

/** Who is calling: the verified identity from the gateway. */
export type Caller = Pick<Identity, 'gamerId' | 'applicationId' | 'displayName' | 'avatar'>;

export interface PageRequest {
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface FriendListRequest extends PageRequest {
  favorite?: boolean | undefined;
}

export interface Page<T> {
  items: T[];
  /** the page size used, repeated in the next-page link */
  limit: number;
  /** further query parameters the next-page link repeats */
  filter?: Record<string, string>;
  /** present when more entries follow */
  nextCursor?: string;
}

const unknownRelation = () => notFound('no such friendship or friend request of yours');
const unknownGamer = () => notFound('no such gamer in this application');

/**
 * The friendship use cases: domain rules + data access + events. Handlers call these and
 * only map results to HTTP. Each state change is one repository verb that returns an
 * outcome (repository/relations.ts, blocks.ts); these functions map outcomes to answers
 * and events, and hold no race handling of their own.
 */
export function friendshipService(deps: FriendshipServiceDeps) {
  const { repositories: repo, publish, limits, registrations } = deps;
  const now = deps.clock ?? (() => new Date());

  /** A caller's entry in the registration cache: the gamer, and the claims registered. */
  function registrationOf(caller: Caller): { key: string; fingerprint: string } {
    return { key: registrationKey(caller.applicationId, caller.gamerId), fingerprint: JSON.stringify([caller.displayName ?? null, caller.avatar ?? null]) };
  }

  function summary(gamerId: string, profiles: Map<string, GamerProfile>): UserSummary {
    const profile = profiles.get(gamerId);
    // a relation's gamers are always registered; the fallback only guards a hand-edited database
    return { id: gamerId, displayName: profile?.displayName ?? '', avatar: profile?.avatar ?? '' };
  }

  /**
   * The caller as others see them in the directory (the token's claims, or what it stored
   * earlier). Only for an event, after the change is written: a failed read must not turn
   * the done change into a failed request, so it falls back to the claims.
   */
  async function actorSummary(caller: Caller): Promise<UserSummary> {
    const { applicationId, gamerId, displayName, avatar } = caller;
    const claimed = { id: gamerId, displayName: displayName ?? '', avatar: avatar ?? '' };
    if (displayName !== undefined && avatar !== undefined) return claimed;
    // what this call's registration found stored (cached with it), else one read
    const { key, fingerprint } = registrationOf(caller);
    const stored = registrations.storedSummary(key, fingerprint);
    if (stored) return { id: gamerId, ...stored };
    try {
      return summary(gamerId, await repo.gamers.profiles(applicationId, [gamerId]));
    } catch {
      return claimed;
    }
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

  /** A friend-list entry: the friend, their presence, and the caller's own notes on them. */
  function friendEntry(applicationId: string, relation: ListedRelation, me: string, profiles: Map<string, GamerProfile>): FriendEntry {
    const friend = otherMember(relation, me);
    const notes = relation.notes?.[me];
    const presence = presenceOf(
      { liveSeenAt: deps.presence.lastSeen(applicationId, friend), endedAt: deps.presence.endedAt(applicationId, friend), storedSeenAt: profiles.get(friend)?.lastSeenAt },
      deps.presence.now(),
      deps.onlineWindowMs,
    );
    return { id: relation.id, status: FriendshipStatus.ACCEPTED, user: summary(friend, profiles), presence, alias: notes?.alias ?? '', favorite: notes?.favorite ?? false };
  }

  /**
   * pending -> accepted by the addressee (`caller`), keeping the request's id. `gone` is
   * the answer when no such pending request is there (anymore).
   */
  async function acceptRequest(caller: Caller, id: string, gone: () => Error | Promise<Error>): Promise<void> {
    const { applicationId, gamerId } = caller;
    const outcome = await repo.relations.accept(applicationId, id, gamerId, now(), limits.maxFriends);
    if (outcome.kind === 'notFound') throw await gone();
    if (outcome.kind === 'friendLimit') throw limitReached(Quota.friends, limits.maxFriends, outcome.whose);
    publish(FriendshipEventType.ACCEPTED, { applicationId, friendshipId: id, actorId: gamerId, targetId: outcome.friendship.requester, actor: await actorSummary(caller) });
  }

  /** The target asked first: the caller accepts that request, which keeps its id. */
  async function acceptCrossed(caller: Caller, id: string, target: string): Promise<FriendRequestResponse> {
    await acceptRequest(caller, id, async () => {
      // gone: a block written meanwhile cleared the pair (403, as a request racing a block
      // answers; until 2026-11-29 409 CONFLICT), or the other gamer cancelled it
      assertNotBlocked(await repo.blocks.between(caller.applicationId, caller.gamerId, target));
      return conflict(ErrorCode.CONFLICT, "the other gamer's request changed while we accepted it; try again");
    });
    return { ok: true, id, status: FriendshipStatus.ACCEPTED };
  }
  const stillPending = (id: string): FriendRequestResponse => ({ ok: true, id, status: FriendshipStatus.PENDING });

  /**
   * `blocker` blocks `blocked` (block `blockId`), with the relation that ended, if any: the
   * relation's other side is told what they lost (notifications: an unfriend or a cancel).
   */
  function announceBlock(applicationId: string, blockId: string, blocker: string, blocked: string, removed: RemovedRelation): void {
    publish(FriendshipEventType.BLOCKED, {
      applicationId, friendshipId: blockId, actorId: blocker, targetId: blocked,
      ...(removed ? { removedRelation: { friendshipId: removed._id, status: removed.status, requesterId: removed.requester } } : {}),
    });
  }

  /** A gamer of the caller's application with no block either way between them, or 404. */
  async function assertVisible(caller: Caller, target: string): Promise<void> {
    const [known, blocks] = await Promise.all([repo.gamers.exists(caller.applicationId, target), repo.blocks.between(caller.applicationId, caller.gamerId, target)]);
    if (!known || blocks.callerBlocksTarget || blocks.targetBlocksCaller) throw unknownGamer();
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
      const { key, fingerprint } = registrationOf(caller);
      await registrations.register(key, fingerprint, () => repo.gamers.upsert(caller.applicationId, caller, now()));
    },

    /**
     * POST /: request, idempotent repeat, or accept of the target's crossed request; answers
     * the relation's id and status. Nothing is read first: the request's upsert hands back
     * the pair's relation if there is one (a repeat, a crossed request, a friendship) and the
     * rule decides on it; a new request is checked after its write (the target in the
     * directory, blocks, the pending quota) and withdrawn when refused.
     */
    async sendRequest(caller: Caller, rawTarget: string): Promise<FriendRequestResponse> {
      const { applicationId, gamerId } = caller;
      const target = rawTarget.toLowerCase();
      assertNotSelf(gamerId, target, 'send a friend request to');
      const outcome = await repo.relations.request(pendingRequest(applicationId, gamerId, target, uuidv7(), now()), limits.maxPendingOutgoing);
      if (outcome.kind === 'unknownTarget') throw unknownGamer();
      if (outcome.kind === 'blocked') {
        // the target accepted the request in the milliseconds it stood: its withdrawal ended
        // that friendship, which is the block's doing, and announced as such
        const { ended } = outcome;
        if (ended) announceBlock(applicationId, ended.block._id, ended.block.blocker, ended.block.blocked, ended.removed);
        // a refusal names the block its check read (403), also one lifted just after
        assertNotBlocked(outcome.blocks);
        throw conflict(ErrorCode.CONFLICT, 'a block between you changed while the request was made; try again');
      }
      if (outcome.kind === 'pendingLimit') throw limitReached(Quota.pendingOutgoing, limits.maxPendingOutgoing);
      if (outcome.kind === 'exists') {
        // the pair already has a relation (from before, or a racing call): the rules decide on it, once
        const next = decideOnExistingRelation(gamerId, outcome.relation);
        if (next.kind === 'accept-crossed') return acceptCrossed(caller, next.relationId, target);
        return stillPending(outcome.relation.id);
      }
      publish(FriendshipEventType.REQUESTED, { applicationId, friendshipId: outcome.request.id, actorId: gamerId, targetId: target, actor: await actorSummary(caller) });
      return stillPending(outcome.request.id);
    },

    async accept(caller: Caller, friendshipId: string): Promise<void> {
      await acceptRequest(caller, friendshipId.toLowerCase(), unknownRelation);
    },

    async reject(caller: Caller, friendshipId: string): Promise<void> {
      const { applicationId, gamerId } = caller;
      const outcome = await repo.relations.reject(applicationId, friendshipId.toLowerCase(), gamerId);
      if (outcome.kind === 'notFound') throw unknownRelation();
      publish(FriendshipEventType.REJECTED, { applicationId, friendshipId: outcome.relation.id, actorId: gamerId, targetId: outcome.relation.requester });
    },

    async cancel(caller: Caller, friendshipId: string): Promise<void> {
      const { applicationId, gamerId } = caller;
      const outcome = await repo.relations.cancel(applicationId, friendshipId.toLowerCase(), gamerId);
      if (outcome.kind === 'notFound') throw unknownRelation();
      publish(FriendshipEventType.CANCELLED, { applicationId, friendshipId: outcome.relation.id, actorId: gamerId, targetId: outcome.relation.addressee });
    },

    async unfriend(caller: Caller, friendshipId: string): Promise<void> {
      const { applicationId, gamerId } = caller;
      const outcome = await repo.relations.unfriend(applicationId, friendshipId.toLowerCase(), gamerId);
      if (outcome.kind === 'notFound') throw unknownRelation();
      publish(FriendshipEventType.REMOVED, { applicationId, friendshipId: outcome.relation.id, actorId: gamerId, targetId: otherMember(outcome.relation, gamerId) });
    },

    /** Blocks the target and removes any friendship or request between the two. Blocking again answers ok. */
    async block(caller: Caller, rawTarget: string): Promise<void> {
      const { applicationId, gamerId } = caller;
      const target = rawTarget.toLowerCase();
      assertNotSelf(gamerId, target, 'block');
      const outcome = await repo.blocks.block(applicationId, gamerId, target, now(), limits.maxBlocks);
      if (outcome.kind === 'unknownTarget') throw notFound('no such gamer in this application');
      if (outcome.kind === 'blockLimit') throw limitReached(Quota.blocks, limits.maxBlocks);
      // Once per block, and once more per relation a repeat removed (one made since).
      if (outcome.announce) announceBlock(applicationId, outcome.block.id, gamerId, target, outcome.removed);
    },

    async unblock(caller: Caller, blockId: string): Promise<void> {
      const { applicationId, gamerId } = caller;
      const outcome = await repo.blocks.unblock(applicationId, blockId.toLowerCase(), gamerId);
      if (outcome.kind === 'notFound') throw notFound('no such block of yours');
      publish(FriendshipEventType.UNBLOCKED, { applicationId, friendshipId: outcome.block.id, actorId: gamerId, targetId: outcome.block.blocked });
    },

    /** GET /: the caller's friends with presence and notes; `favorite` keeps the favorites only. */
    async listFriends(caller: Caller, request: FriendListRequest): Promise<Page<FriendEntry>> {
      const { applicationId, gamerId } = caller;
      const favoriteOnly = request.favorite === true;
      const result = await page(
        request,
        (afterId, limit) => repo.relations.list(applicationId, gamerId, 'friends', afterId, limit, { favoriteOnly }),
        async (rows) => {
          const profiles = await repo.gamers.profiles(applicationId, rows.map((r) => otherMember(r, gamerId)));
          return rows.map((r) => friendEntry(applicationId, r, gamerId, profiles));
        },
      );
      return favoriteOnly ? { ...result, filter: { favorite: 'true' } } : result;
    },

    /** PATCH /{friendshipId}: the caller's private alias and favorite mark on a friend. */
    async setNotes(caller: Caller, friendshipId: string, notes: FriendNotes): Promise<FriendEntry> {
      const { applicationId, gamerId } = caller;
      const relation = await repo.relations.setNotes(applicationId, friendshipId.toLowerCase(), gamerId, notes);
      if (!relation) throw unknownRelation();
      return friendEntry(applicationId, relation, gamerId, await repo.gamers.profiles(applicationId, [otherMember(relation, gamerId)]));
    },

    /**
     * Friends of friends, ranked by mutual friends, minus everyone the rules exclude. The
     * friends come from the friend-id lists (the caller's, then their friends' in one read);
     * the exclusions from the blocks the caller made (at most MAX_BLOCKS), then, for the
     * best-ranked candidates only, from their relations and blocks with the caller: the
     * pending requests and the blockers of a gamer are not bounded.
     */
    async suggestions(caller: Caller, limit: number | undefined): Promise<Suggestion[]> {
      const { applicationId, gamerId } = caller;
      const [mine, blocked] = await Promise.all([
        repo.friendLists.friendsOf(applicationId, [gamerId]),
        repo.blocks.blockedBy(applicationId, gamerId),
      ]);
      const friends = mine.get(gamerId) ?? [];
      // at most SUGGESTIONS_LIST_REBUILDS of them rebuilt from the relations per call: every
      // list ages out hourly, and until 2026-11-29 one call rebuilt all it read, up to
      // SUGGESTIONS_FRIENDS_READ × MAX_FRIENDS relations (200,000)
      const friendListsOf = await repo.friendLists.friendsOf(applicationId, [...friendsToRead(friends, limits.suggestionFriendsRead)], limits.suggestionListRebuilds);
      const ranked = rankSuggestions({ caller: gamerId, friends, friendListsOf, excluded: blocked });
      const wanted = limit ?? SUGGESTIONS_DEFAULT;
      const chosen: Suggestion[] = [];
      for (const chunk of candidateChunks(ranked, wanted)) {
        const ids = chunk.map((c) => c.gamerId);
        const [pending, blockers, profiles] = await Promise.all([
          repo.relations.pendingAmong(applicationId, gamerId, ids),
          repo.blocks.blockersAmong(applicationId, gamerId, ids),
          repo.gamers.profiles(applicationId, ids),
        ]);
        // a list that drifted (a crash, a race) may name a gamer erased since: not suggested
        for (const c of chunk) {
          if (!pending.has(c.gamerId) && !blockers.has(c.gamerId) && profiles.has(c.gamerId)) chosen.push({ user: summary(c.gamerId, profiles), mutualFriends: c.mutualFriends });
        }
        if (chosen.length >= wanted) break;
      }
      return chosen.slice(0, wanted);
    },

    /** GET /mutual/{gamerId}: friends in common (from both friend-id lists); 404 across a block, as for an unknown gamer. */
    async mutualFriends(caller: Caller, rawGamerId: string): Promise<UserSummary[]> {
      const { applicationId, gamerId } = caller;
      const other = rawGamerId.toLowerCase();
      // documented as 404, like any gamer the caller cannot compare with (no 400 for a valid id)
      if (other === gamerId) throw unknownGamer();
      await assertVisible(caller, other);
      const lists = await repo.friendLists.friendsOf(applicationId, [gamerId, other]);
      const common = commonFriends(lists.get(gamerId) ?? [], lists.get(other) ?? []);
      const profiles = await repo.gamers.profiles(applicationId, common);
      return common
        .filter((id) => profiles.has(id))
        .map((id) => summary(id, profiles))
        .sort((a, b) => a.displayName.localeCompare(b.displayName) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },

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
     * The blockers are looked up among the matches, not read whole (a gamer may be blocked by
     * any number of gamers): while blockers leave the answer short, the next `size` matches
     * are read (those seen left out), at most SEARCH_READS reads.
     */
    async search(caller: Caller, displayName: string, limit: number | undefined): Promise<UserSummary[]> {
      const { applicationId, gamerId } = caller;
      const key = displayNameKey(displayName);
      if (key === '') throw badRequest('displayName must contain a visible character');
      const size = searchSize(limit);
      const seen = [gamerId];
      const visible: GamerProfile[] = [];
      for (let read = 1; read <= SEARCH_READS && visible.length < size; read++) {
        // sorted by (key, gamerId): leaving out every match seen continues after the last
        const found = await repo.gamers.searchByPrefix(applicationId, key, seen, size);
        const blockers = await repo.blocks.blockersAmong(applicationId, gamerId, found.map((g) => g.gamerId));
        visible.push(...found.filter((g) => !blockers.has(g.gamerId)));
        if (found.length < size) break;
        seen.push(...found.map((g) => g.gamerId));
      }
      return visible.slice(0, size).map((g) => ({ id: g.gamerId, displayName: g.displayName, avatar: g.avatar }));
    },
  };
}
export type FriendshipService = ReturnType<typeof friendshipService>;
