import type { Model } from 'mongoose';
import type { ProfileCache } from '../profile-cache.ts';
import type { FriendListRepository } from './friend-lists.ts';
import type { BlockDoc, GamerDoc, RelationDoc } from './models.ts';
import { friendIdsIn } from './relations.ts';

/**
 * Everything the friendship service holds about one gamer, removed (gamer erasure): the
 * directory entry (so search no longer finds them), every relation on either side (friends,
 * requests in and out, so they leave everyone's lists), every block either way, and the
 * gamer in the friend-id lists (their own, and theirs in each friend's). Each delete takes
 * what is still there, so running it again changes nothing more. Order, so that a half-done
 * erase retried from the start finishes the job, and a request or block written meanwhile
 * does not outlive it:
 * 1. the gamer's own friend-id list takes every friend the relations name (it is what step 4
 *    reads, also after step 3 deleted the relations in an earlier, interrupted attempt);
 * 2. the directory entry: a request or block naming the gamer is checked against the
 *    directory after its write (relations.ts, blocks.ts), so one written from here on
 *    withdraws itself, and one written before is deleted by step 3 (until 2026-11-28 the
 *    entry went last, and one written between the two stood, naming an erased gamer);
 * 3. relations and blocks;
 * 4. the gamer leaves each friend's list, then their own list goes.
 */
export function gamerErasure(models: { gamers: Model<GamerDoc>; relations: Model<RelationDoc>; blocks: Model<BlockDoc> }, friendLists: FriendListRepository, profiles: ProfileCache) {
  return {
    async erase(applicationId: string, gamerId: string): Promise<{ relations: number; blocks: number; gamers: number; friendLists: number }> {
      await friendLists.remember(applicationId, gamerId, await friendIdsIn(models.relations, applicationId, gamerId));
      const gamers = await models.gamers.deleteMany({ applicationId, gamerId });
      // the two scalar sides each have an index (requester / addressee), unlike `members`
      const [asRequester, asAddressee, asBlocker, asBlocked] = await Promise.all([
        models.relations.deleteMany({ applicationId, requester: gamerId }),
        models.relations.deleteMany({ applicationId, addressee: gamerId }),
        models.blocks.deleteMany({ applicationId, blocker: gamerId }),
        models.blocks.deleteMany({ applicationId, blocked: gamerId }),
      ]);
      const listsCleaned = await friendLists.forget(applicationId, gamerId);
      profiles.forget(applicationId, gamerId);
      return {
        relations: asRequester.deletedCount + asAddressee.deletedCount,
        blocks: asBlocker.deletedCount + asBlocked.deletedCount,
        gamers: gamers.deletedCount,
        friendLists: listsCleaned,
      };
    },
  };
}
export type GamerErasure = ReturnType<typeof gamerErasure>;
