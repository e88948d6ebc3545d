import type { AdminGamerRelations, UserSummary } from '@gfts/contracts';
import { badRequest, notFound } from '@gfts/platform';
import { displayNameKey } from './domain/display-name.ts';
import { pageSize, searchSize } from './domain/limits.ts';
import type { FriendshipService } from './friendship-service.ts';
import type { FriendshipRepositories } from './repository/index.ts';

/**
 * What an application's admin may read of its gamers (the console's gamer look-up). The
 * lists are the gamer's own, read through the same use cases the gamer calls; the admin is
 * never registered as a gamer by these reads.
 */
export function friendshipAdminService(repo: FriendshipRepositories, service: FriendshipService) {
  return {
    /** Prefix search like the gamers' own, but nobody is excluded: support looks for anyone. */
    async search(applicationId: string, displayName: string, limit: number | undefined): Promise<UserSummary[]> {
      const key = displayNameKey(displayName);
      if (key === '') throw badRequest('displayName must contain a visible character');
      const found = await repo.gamers.searchByPrefix(applicationId, key, [], searchSize(limit));
      return found.map((g) => ({ id: g.gamerId, displayName: g.displayName, avatar: g.avatar }));
    },

    /** Profile and the first `limit` entries of each of the gamer's lists; 404 for a gamer never seen. */
    async gamer(applicationId: string, rawGamerId: string, limit: number | undefined): Promise<AdminGamerRelations> {
      const gamerId = rawGamerId.toLowerCase();
      const profile = await repo.gamers.profile(applicationId, gamerId);
      if (!profile) throw notFound('no such gamer in this application');
      const gamer = { applicationId, gamerId };
      const page = { limit };
      const [friends, incoming, outgoing, blocked, blockerIds] = await Promise.all([
        service.listFriends(gamer, page),
        service.listIncoming(gamer, page),
        service.listOutgoing(gamer, page),
        service.listBlocked(gamer, page),
        // the first `limit` too: nothing bounds how many gamers block one (until 2026-11-28 all were read and shown)
        repo.blocks.blockersOf(applicationId, gamerId, pageSize(limit)),
      ]);
      const blockers = await repo.gamers.profiles(applicationId, blockerIds);
      return {
        profile: { id: gamerId, displayName: profile.displayName, avatar: profile.avatar },
        friends: friends.items,
        incoming: incoming.items,
        outgoing: outgoing.items,
        blocked: blocked.items,
        // in the blocks' order (oldest first), not the profiles' (cached ones first: until
        // 2026-11-29 the order changed with the replica's cache)
        blockedBy: blockerIds.flatMap((id) => {
          const p = blockers.get(id);
          return p ? [{ id: p.gamerId, displayName: p.displayName, avatar: p.avatar }] : [];
        }),
      };
    },
  };
}
export type FriendshipAdminService = ReturnType<typeof friendshipAdminService>;
