/**
 * Remembers which gamers this process registered recently, with which name and avatar, so
 * the directory upsert that runs on every call is skipped while nothing changed. Bounded
 * (least recently registered entries go first) and short-lived: a replica that missed a
 * rename elsewhere, or a directory entry removed by hand, is repaired within `ttlMs`.
 */
export function registrationCache(maxEntries = 10_000, ttlMs = 5 * 60_000, clock: () => number = Date.now) {
  const seen = new Map<string, { fingerprint: string; at: number }>();
  return {
    isFresh(key: string, fingerprint: string): boolean {
      const entry = seen.get(key);
      return entry !== undefined && entry.fingerprint === fingerprint && clock() - entry.at < ttlMs;
    },
    remember(key: string, fingerprint: string): void {
      seen.delete(key);
      seen.set(key, { fingerprint, at: clock() });
      if (seen.size > maxEntries) seen.delete(seen.keys().next().value!);
    },
    get size(): number {
      return seen.size;
    },
  };
}
export type RegistrationCache = ReturnType<typeof registrationCache>;
