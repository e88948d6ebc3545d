import type { StoredSummary } from './domain/model.ts';

/**
 * Remembers which gamers this process registered recently, with which name and avatar, so
 * the directory upsert that runs on every call is skipped while nothing changed, and what
 * the directory held after it (for an event naming the gamer when the token lacks a claim).
 * Bounded (least recently registered entries go first) and short-lived: a replica that
 * missed a rename elsewhere, or a directory entry removed by hand, is repaired within `ttlMs`.
 */
/** The cache's key of a gamer. */
export const registrationKey = (applicationId: string, gamerId: string) => `${applicationId}:${gamerId}`;

export function registrationCache(maxEntries = 10_000, ttlMs = 5 * 60_000, clock: () => number = Date.now) {
  const seen = new Map<string, { fingerprint: string; at: number; stored: StoredSummary }>();
  const fresh = (key: string, fingerprint: string) => {
    const entry = seen.get(key);
    return entry !== undefined && entry.fingerprint === fingerprint && clock() - entry.at < ttlMs ? entry : undefined;
  };
  return {
    isFresh(key: string, fingerprint: string): boolean {
      return fresh(key, fingerprint) !== undefined;
    },
    /** What the directory held for the gamer after their registration, while it is fresh. */
    storedSummary(key: string, fingerprint: string): StoredSummary | undefined {
      return fresh(key, fingerprint)?.stored;
    },
    remember(key: string, fingerprint: string, stored: StoredSummary): void {
      seen.delete(key);
      seen.set(key, { fingerprint, at: clock(), stored });
      if (seen.size > maxEntries) seen.delete(seen.keys().next().value!);
    },
    /** The gamer was erased: their next call registers them again. */
    forget(applicationId: string, gamerId: string): void {
      seen.delete(registrationKey(applicationId, gamerId));
    },
    get size(): number {
      return seen.size;
    },
  };
}
export type RegistrationCache = ReturnType<typeof registrationCache>;
