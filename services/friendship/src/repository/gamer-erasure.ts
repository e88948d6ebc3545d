import type { Model } from 'mongoose';
import type { BlockDoc, GamerDoc, RelationDoc } from './models.ts';

/**
 * Everything the friendship service holds about one gamer, removed (gamer erasure): the
 * directory entry (so search no longer finds them), every relation on either side (friends,
 * requests in and out, so they leave everyone's lists) and every block either way. Each
 * delete takes what is still there, so running it again changes nothing more. Relations
 * and blocks first, the directory entry last: a half-done erase retried from the start never
 * leaves relations of a gamer the directory no longer knows unretried.
 */
export function gamerErasure(models: { gamers: Model<GamerDoc>; relations: Model<RelationDoc>; blocks: Model<BlockDoc> }) {
  return {
    async erase(applicationId: string, gamerId: string): Promise<{ relations: number; blocks: number; gamers: number }> {
      // the two scalar sides each have an index (requester / addressee), unlike `members`
      const [asRequester, asAddressee, asBlocker, asBlocked] = await Promise.all([
        models.relations.deleteMany({ applicationId, requester: gamerId }),
        models.relations.deleteMany({ applicationId, addressee: gamerId }),
        models.blocks.deleteMany({ applicationId, blocker: gamerId }),
        models.blocks.deleteMany({ applicationId, blocked: gamerId }),
      ]);
      const gamers = await models.gamers.deleteMany({ applicationId, gamerId });
      return {
        relations: asRequester.deletedCount + asAddressee.deletedCount,
        blocks: asBlocker.deletedCount + asBlocked.deletedCount,
        gamers: gamers.deletedCount,
      };
    },
  };
}
export type GamerErasure = ReturnType<typeof gamerErasure>;
