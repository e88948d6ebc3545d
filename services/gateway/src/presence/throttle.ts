/**
 * Which sightings of a gamer are worth writing: at most one per `intervalMs` per gamer
 * from this replica, so the presence bucket takes about one write per online gamer per
 * interval however busy the gamer is. Bounded: past `maxEntries` the oldest are forgotten
 * (their next call is then written again, which is harmless).
 */
export function sightingThrottle(intervalMs: number, maxEntries: number) {
  const written = new Map<string, number>();
  return {
    /** true when `key` was not written in the last interval; then counts it as written now */
    take(key: string, now: number): boolean {
      const last = written.get(key);
      if (last !== undefined && now - last < intervalMs) return false;
      written.delete(key);
      written.set(key, now);
      // oldest first: entries past the interval are useless, and the bound drops the rest
      for (const [oldest, at] of written) {
        if (written.size <= maxEntries && now - at < intervalMs) break;
        written.delete(oldest);
      }
      return true;
    },
    get size(): number {
      return written.size;
    },
  };
}
