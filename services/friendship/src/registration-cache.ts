import type { StoredSummary } from './domain/model.ts';

/** The cache's key of a gamer. */
export const registrationKey = (applicationId: string, gamerId: string) => `${applicationId}:${gamerId}`;

/**
 * Remembers which gamers this process registered recently, with which name and avatar, so
 * the directory upsert that runs on every call is skipped while nothing changed, and what
 * the directory held after it (for an event naming the gamer when the token lacks a claim).
 * Bounded (least recently registered entries go first) and short-lived: a replica that
 * missed a rename elsewhere, or a directory entry removed by hand, is repaired within `ttlMs`.
 * An erasure empties a gamer's entry (`forget`), and a registration whose write started
 * before any erasure was heard is not remembered: its write may have come before the
 * erasure's delete.
 */
export function registrationCache(maxEntries = 10_000, ttlMs = 5 * 60_000, clock: () => number = Date.now) {
  const seen = new Map<string, { fingerprint: string; at: number; stored: StoredSummary }>();
  // erasures are rare: one count for all gamers is enough
  let erasures = 0;
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
    /** What `remember` needs to know that no erasure came between: take it before the write. */
    get asOf(): number {
      return erasures;
    },
    remember(key: string, fingerprint: string, stored: StoredSummary, asOf: number): void {
      if (asOf !== erasures) return;
      seen.delete(key);
      seen.set(key, { fingerprint, at: clock(), stored });
      if (seen.size > maxEntries) seen.delete(seen.keys().next().value!);
    },
    /** The gamer was erased: their next call registers them again. */
    forget(applicationId: string, gamerId: string): void {
      erasures++;
      seen.delete(registrationKey(applicationId, gamerId));
    },
    get size(): number {
      return seen.size;
    },
  };
}
export type RegistrationCache = ReturnType<typeof registrationCache>;
