import { presenceRecipients } from '../domain/presence.ts';
import type { FriendshipRepositories } from '../repository/index.ts';
import type { PresenceBoard } from './board.ts';

/**
 * The friends to tell of a gamer's presence change (domain/presence.ts, presenceRecipients):
 * indexed reads on the change, never on a read path. The gamer's friends first, online
 * status from the board; the two block reads (who blocks them, whom they block) only when
 * a friend is online to be told: a gamer with nobody online to tell costs one query (a
 * replica's crash or a reconnect storm changes thousands of gamers at once).
 */
export function presenceAudience(repositories: Pick<FriendshipRepositories, 'relations' | 'blocks'>, board: PresenceBoard) {
  return async (applicationId: string, gamerId: string): Promise<string[]> => {
    const now = board.now();
    const isOnline = (friend: string) => board.isOnline(applicationId, friend, now);
    const friends = (await repositories.relations.friendIds(applicationId, gamerId)).filter((friend) => friend !== gamerId && isOnline(friend));
    if (friends.length === 0) return [];
    // the blockers among those friends only: any number of gamers may block one
    const [blockers, blocked] = await Promise.all([
      repositories.blocks.blockersAmong(applicationId, gamerId, friends),
      repositories.blocks.blockedBy(applicationId, gamerId),
    ]);
    return presenceRecipients(gamerId, friends, new Set([...blockers, ...blocked]), isOnline);
  };
}
