import type { GamerProfile, StoredSummary } from './domain/model.ts';

/** Changes of profiles remembered for reads in flight: far more than happen during one read. */
const CHANGES_KEPT = 10_000;

/**
 * Gamers' public profiles (name, avatar, stored end of last session) this process read
 * lately, so that a page showing the same gamers again within `ttlMs` reads only those it
 * does not hold (docs/friendship.md, "Profile cache"). Bounded: past `maxEntries` the entry
 * stored longest ago goes first. What keeps an entry right:
 * - a rename or new avatar registered through this process replaces it at once; one
 *   registered through another replica shows here once the entry is `ttlMs` old;
 * - an ended session (every replica sees all of them on the presence board) moves its
 *   `lastSeenAt` when the replica stores it, the latest time winning, as in the directory;
 * - an erasure drops it: on the replica that erased, and on the others when they hear the
 *   report (src/gamer-erasure.ts, forgetErasedGamers);
 * - a read in flight during any of these is not kept (below).
 * `ttlMs` 0 keeps nothing. The clock is monotonic: a wall-clock step cannot keep entries.
 */
export function profileCache(maxEntries: number, ttlMs: number, clock: () => number = () => performance.now()) {
  /*
   * Keyed by gamer id alone: building an `application:gamer` key per friend was 5 % of a
   * friend list's CPU (bench/results/2026-11-28-peer-session19-profiled-profile.md). A gamer
   * id of two applications shares the slot; the entry says whose it is.
   */
  // Not libs/platform's ExpiringCache: its get moves each hit to the end (a delete and a set
  // per friend on every page), and entries here are changed in place; oldest stored goes first.
  const entries = new Map<string, { applicationId: string; profile: GamerProfile; storedAt: number }>();
  const entryOf = (applicationId: string, gamerId: string) => {
    const entry = entries.get(gamerId);
    return entry?.applicationId === applicationId ? entry : undefined;
  };
  /*
   * A directory read in flight while a gamer's profile changed may answer the old values:
   * each change is numbered, and a read does not keep the profile of a gamer changed since
   * its look-up (in any application). The latest changes only are kept; a read older than
   * the oldest of them keeps nothing.
   */
  let changes = 0;
  let oldestKnownChange = 0;
  const changedAt = new Map<string, number>();
  const changed = (key: string) => {
    changedAt.delete(key);
    changedAt.set(key, ++changes);
    for (const [first, at] of changedAt) {
      if (changedAt.size <= CHANGES_KEPT) break;
      changedAt.delete(first);
      oldestKnownChange = at;
    }
  };

  return {
    /** The fresh profiles of `gamerIds`; the ids to read from the directory; `asOf`, for `remember`. */
    lookup(applicationId: string, gamerIds: Iterable<string>): { found: Map<string, GamerProfile>; missing: string[]; asOf: number } {
      const found = new Map<string, GamerProfile>();
      const missing = new Set<string>();
      const oldest = clock() - ttlMs;
      for (const gamerId of gamerIds) {
        const entry = entryOf(applicationId, gamerId);
        if (entry !== undefined && entry.storedAt > oldest) found.set(gamerId, entry.profile);
        else missing.add(gamerId);
      }
      return { found, missing: [...missing], asOf: changes };
    },

    /** Profiles read from the directory after the `lookup` that answered `asOf`. */
    remember(applicationId: string, profiles: Iterable<GamerProfile>, asOf: number): void {
      if (ttlMs === 0 || asOf < oldestKnownChange) return;
      const storedAt = clock();
      for (const profile of profiles) {
        const key = profile.gamerId;
        if ((changedAt.get(key) ?? 0) > asOf) continue;
        entries.delete(key);
        entries.set(key, { applicationId, profile, storedAt });
      }
      for (const key of entries.keys()) {
        if (entries.size <= maxEntries) break;
        entries.delete(key);
      }
    },

    /** The directory now holds this name and avatar (a registration through this process). */
    registered(applicationId: string, gamerId: string, stored: StoredSummary): void {
      changed(gamerId);
      const entry = entryOf(applicationId, gamerId);
      if (entry === undefined) return;
      entry.profile = { ...entry.profile, displayName: stored.displayName, avatar: stored.avatar };
    },

    /**
     * A session of the gamer ended at `at` (the directory keeps the latest). Told before the
     * directory's write, to show at once, and again once it is written, so that a read made
     * in between (which found the old time) is not kept.
     */
    seen(applicationId: string, gamerId: string, at: Date): void {
      changed(gamerId);
      const entry = entryOf(applicationId, gamerId);
      if (entry === undefined || (entry.profile.lastSeenAt !== undefined && entry.profile.lastSeenAt >= at)) return;
      entry.profile = { ...entry.profile, lastSeenAt: at };
    },

    /** The gamer left the directory (erasure). */
    forget(applicationId: string, gamerId: string): void {
      changed(gamerId);
      if (entryOf(applicationId, gamerId) !== undefined) entries.delete(gamerId);
    },

    get size(): number {
      return entries.size;
    },
  };
}
export type ProfileCache = ReturnType<typeof profileCache>;
