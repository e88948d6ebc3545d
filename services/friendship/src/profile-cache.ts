import type { GamerProfile, StoredSummary } from './domain/model.ts';

/**
 * Gamers' public profiles (name, avatar, stored end of last session) this process read
 * lately, so that a page showing the same gamers again within `ttlMs` reads only those it
 * does not hold (docs/friendship.md, "Profile cache"). Bounded: past `maxEntries` the entry
 * stored longest ago goes first. What keeps an entry right:
 * - a rename or new avatar registered through this process replaces it at once; one
 *   registered through another replica shows here once the entry is `ttlMs` old;
 * - an ended session (every replica sees all of them on the presence board) moves its
 *   `lastSeenAt` at once, the latest time winning, as in the directory;
 * - an erasure handled here drops it; one handled by another replica leaves it until
 *   `ttlMs`, and only a relation or block naming the gamer could show it, and those went first.
 * `ttlMs` 0 keeps nothing.
 */
export function profileCache(maxEntries: number, ttlMs: number, clock: () => number = Date.now) {
  const entries = new Map<string, { profile: GamerProfile; storedAt: number }>();
  const keyOf = (applicationId: string, gamerId: string) => `${applicationId}:${gamerId}`;

  return {
    /** The fresh profiles of `gamerIds`, and the ids to read from the directory. */
    lookup(applicationId: string, gamerIds: Iterable<string>): { found: Map<string, GamerProfile>; missing: string[] } {
      const found = new Map<string, GamerProfile>();
      const missing = new Set<string>();
      const oldest = clock() - ttlMs;
      for (const gamerId of gamerIds) {
        const entry = entries.get(keyOf(applicationId, gamerId));
        if (entry !== undefined && entry.storedAt > oldest) found.set(gamerId, entry.profile);
        else missing.add(gamerId);
      }
      return { found, missing: [...missing] };
    },

    /** Profiles just read from the directory. */
    remember(applicationId: string, profiles: Iterable<GamerProfile>): void {
      if (ttlMs === 0) return;
      const storedAt = clock();
      for (const profile of profiles) {
        const key = keyOf(applicationId, profile.gamerId);
        entries.delete(key);
        entries.set(key, { profile, storedAt });
      }
      for (const key of entries.keys()) {
        if (entries.size <= maxEntries) break;
        entries.delete(key);
      }
    },

    /** The directory now holds this name and avatar (a registration through this process). */
    registered(applicationId: string, gamerId: string, stored: StoredSummary): void {
      const entry = entries.get(keyOf(applicationId, gamerId));
      if (entry === undefined) return;
      entry.profile = { ...entry.profile, displayName: stored.displayName, avatar: stored.avatar };
    },

    /** A session of the gamer ended at `at` (the directory keeps the latest). */
    seen(applicationId: string, gamerId: string, at: Date): void {
      const entry = entries.get(keyOf(applicationId, gamerId));
      if (entry === undefined || (entry.profile.lastSeenAt !== undefined && entry.profile.lastSeenAt >= at)) return;
      entry.profile = { ...entry.profile, lastSeenAt: at };
    },

    /** The gamer left the directory (erasure). */
    forget(applicationId: string, gamerId: string): void {
      entries.delete(keyOf(applicationId, gamerId));
    },

    get size(): number {
      return entries.size;
    },
  };
}
export type ProfileCache = ReturnType<typeof profileCache>;
