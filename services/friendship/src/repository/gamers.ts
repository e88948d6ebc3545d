import type { Model } from 'mongoose';
import { displayNameKey, prefixRange } from '../domain/display-name.ts';
import type { GamerProfile, StoredSummary } from '../domain/model.ts';
import type { ProfileCache } from '../profile-cache.ts';
import type { GamerDoc } from './models.ts';

/** What a token says about its gamer; absent claims leave the stored values alone. */
export interface GamerClaims {
  gamerId: string;
  displayName?: string | undefined;
  avatar?: string | undefined;
}

function toProfile(doc: Pick<GamerDoc, 'gamerId' | 'displayName' | 'avatar' | 'lastSeenAt'>): GamerProfile {
  return { gamerId: doc.gamerId, displayName: doc.displayName, avatar: doc.avatar, ...(doc.lastSeenAt ? { lastSeenAt: doc.lastSeenAt } : {}) };
}

const PROFILE_FIELDS = { _id: 0, gamerId: 1, displayName: 1, avatar: 1, lastSeenAt: 1 } as const;

/** When a gamer was last seen, for the directory. */
export interface LastSeen {
  applicationId: string;
  gamerId: string;
  at: Date;
}

/**
 * The per-application gamer directory: who may be targeted, and their public summary.
 * `profiles` reads through `cache` (src/profile-cache.ts), which the directory's own writes
 * keep in step.
 */
export function gamerDirectory(gamers: Model<GamerDoc>, cache: ProfileCache) {
  return {
    /**
     * Registers a gamer or refreshes their name and avatar, and answers the name and avatar
     * the directory then holds. A claim the token does not carry is only defaulted to '' on
     * first registration, never erased later; the stored value then comes back from the same
     * write (findOneAndUpdate), not from another read.
     */
    async upsert(applicationId: string, claims: GamerClaims, now: Date): Promise<StoredSummary> {
      const set: Partial<GamerDoc> = { updatedAt: now };
      const onInsert: Partial<GamerDoc> = {};
      if (claims.displayName !== undefined) {
        set.displayName = claims.displayName;
        set.displayNameKey = displayNameKey(claims.displayName);
      } else {
        onInsert.displayName = '';
        onInsert.displayNameKey = '';
      }
      if (claims.avatar !== undefined) set.avatar = claims.avatar;
      else onInsert.avatar = '';
      const update = Object.keys(onInsert).length > 0 ? { $set: set, $setOnInsert: onInsert } : { $set: set };
      // Two first calls of one gamer may race to insert: the filter is the unique index's
      // fields, so MongoDB retries the losing upsert as an update (the local store runs
      // upserts one at a time per collection).
      const filter = { applicationId, gamerId: claims.gamerId };
      let stored: StoredSummary;
      if (claims.displayName !== undefined && claims.avatar !== undefined) {
        await gamers.updateOne(filter, update, { upsert: true });
        stored = { displayName: claims.displayName, avatar: claims.avatar };
      } else {
        const doc = await gamers.findOneAndUpdate(filter, update, { upsert: true, returnDocument: 'after', projection: { _id: 0, displayName: 1, avatar: 1 } }).lean();
        stored = { displayName: doc?.displayName ?? claims.displayName ?? '', avatar: doc?.avatar ?? claims.avatar ?? '' };
      }
      cache.registered(applicationId, claims.gamerId, stored);
      return stored;
    },

    /**
     * Keeps the latest end of session per gamer, in one unordered bulk write; `$max` makes
     * it idempotent and order-free, so every friendship replica may write the same ends.
     * Never creates a gamer: an unknown gamer (of an application not using friendship) is
     * not registered by being seen.
     */
    async recordLastSeen(seen: LastSeen[]): Promise<void> {
      if (seen.length === 0) return;
      for (const { applicationId, gamerId, at } of seen) cache.seen(applicationId, gamerId, at);
      await gamers.bulkWrite(
        seen.map(({ applicationId, gamerId, at }) => ({ updateOne: { filter: { applicationId, gamerId }, update: { $max: { lastSeenAt: at } } } })),
        { ordered: false },
      );
      for (const { applicationId, gamerId, at } of seen) cache.seen(applicationId, gamerId, at);
    },

    async exists(applicationId: string, gamerId: string): Promise<boolean> {
      // the driver's collection: asked on every friend request (see relations.ts)
      return (await gamers.collection.findOne({ applicationId, gamerId }, { projection: { _id: 1 } })) !== null;
    },

    async bothExist(applicationId: string, one: string, other: string): Promise<boolean> {
      // one read of the (applicationId, gamerId) index for both (a find: a count is an aggregation, dearer on the local store)
      return (await gamers.collection.find({ applicationId, gamerId: { $in: [one, other] } }, { projection: { _id: 1 }, limit: 2 }).toArray()).length === 2;
    },

    /** One gamer's profile as the directory holds it now (not cached: the admin look-up), or null. */
    async profile(applicationId: string, gamerId: string): Promise<GamerProfile | null> {
      const doc = await gamers.collection.findOne<Pick<GamerDoc, 'gamerId' | 'displayName' | 'avatar' | 'lastSeenAt'>>({ applicationId, gamerId }, { projection: PROFILE_FIELDS });
      return doc ? toProfile(doc) : null;
    },

    /**
     * Summaries of many gamers, keyed by gamerId: those the cache holds fresh, the others in
     * one query. A gamer not in the directory is absent from the answer.
     */
    async profiles(applicationId: string, gamerIds: string[]): Promise<Map<string, GamerProfile>> {
      const { found, missing, asOf } = cache.lookup(applicationId, gamerIds);
      if (missing.length === 0) return found;
      // the driver's collection: read on every list call, used as stored (see relations.list)
      const docs = await gamers.collection
        .find<Pick<GamerDoc, 'gamerId' | 'displayName' | 'avatar' | 'lastSeenAt'>>({ applicationId, gamerId: { $in: missing } }, { projection: PROFILE_FIELDS })
        .toArray();
      const read = docs.map(toProfile);
      cache.remember(applicationId, read, asOf);
      for (const profile of read) found.set(profile.gamerId, profile);
      return found;
    },

    /**
     * Gamers whose name key starts with `keyPrefix`, as an index range (no regex), bounded.
     * `gamerId: {$gte: ''}` says what is true anyway (ids are strings); with it every sort key
     * is constrained to strings, which lets the SQLite-backed local store read the index in
     * order and stop after `limit` (scripts/images/ferretdb/README.md). MongoDB ignores it.
     */
    async searchByPrefix(applicationId: string, keyPrefix: string, excluded: string[], limit: number): Promise<GamerProfile[]> {
      const docs = await gamers
        .find({ applicationId, displayNameKey: prefixRange(keyPrefix), gamerId: { $gte: '', $nin: excluded } }, PROFILE_FIELDS)
        .sort({ displayNameKey: 1, gamerId: 1 })
        .limit(limit)
        .lean();
      return docs.map(toProfile);
    },
  };
}
export type GamerDirectory = ReturnType<typeof gamerDirectory>;
