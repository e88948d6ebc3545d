import { presenceRecipients } from '../domain/presence.ts';
import type { FriendshipRepositories } from '../repository/index.ts';
import type { PresenceBoard } from './board.ts';

/**
 * The friends to tell of a gamer's presence change (domain/presence.ts, presenceRecipients):
 * three indexed reads on the change (the gamer's friends, who blocks them, whom they block),
 * online status from the board. Never run on a read path.
 */
export function presenceAudience(repositories: Pick<FriendshipRepositories, 'relations' | 'blocks'>, board: PresenceBoard) {
  return async (applicationId: string, gamerId: string): Promise<string[]> => {
    const [friends, blockers, blocked] = await Promise.all([
      repositories.relations.friendIds(applicationId, gamerId),
      repositories.blocks.blockersOf(applicationId, gamerId),
      repositories.blocks.blockedBy(applicationId, gamerId),
    ]);
    const now = Date.now();
    return presenceRecipients(gamerId, friends, new Set([...blockers, ...blocked]), (friend) => board.isOnline(applicationId, friend, now));
  };
}
