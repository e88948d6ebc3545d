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
 * erasure's delete. Nor is one that overlapped a registration of the same gamer with other
 * values in this process: which of the two writes landed last is not known from which
 * answered last (a rename's new token and an old one in flight at once: until 2026-11-29 the
 * later answer was remembered while the directory could hold the other's name, and the
 * writes that would have mended it were skipped for `ttlMs`). Writes of the same values at
 * once (a client's parallel calls) store the same thing, whichever lands last.
 */

/** One registration's write, from `begin` to `remember` (or `end` when it failed). */
export interface RegistrationWrite {
  key: string;
  fingerprint: string;
  erasures: number;
  /** a write of the gamer's with other values was running when this one began */
  startedWhileBusy: boolean;
  /** the gamer's overlaps counted when this one began */
  overlaps: number;
}
export function registrationCache(maxEntries = 10_000, ttlMs = 5 * 60_000, clock: () => number = Date.now) {
  const seen = new Map<string, { fingerprint: string; at: number; stored: StoredSummary }>();
  // erasures are rare: one count for all gamers is enough
  let erasures = 0;
  // per gamer with a registration in flight: how many run with which values, and how often
  // one began while one with other values ran (an overlap: every write running then overlapped)
  const inFlight = new Map<string, { running: Map<string, number>; overlaps: number }>();
  const end = (write: RegistrationWrite): boolean => {
    const flight = inFlight.get(write.key)!;
    const left = flight.running.get(write.fingerprint)! - 1;
    if (left === 0) flight.running.delete(write.fingerprint);
    else flight.running.set(write.fingerprint, left);
    if (flight.running.size === 0) inFlight.delete(write.key);
    // no write of other values from its start to its end
    return !write.startedWhileBusy && flight.overlaps === write.overlaps;
  };
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
    /** Before the directory write: what `remember` (or `end`) needs to know what came between. */
    begin(key: string, fingerprint: string): RegistrationWrite {
      const flight = inFlight.get(key) ?? { running: new Map<string, number>(), overlaps: 0 };
      const startedWhileBusy = [...flight.running.keys()].some((other) => other !== fingerprint);
      if (startedWhileBusy) flight.overlaps++;
      flight.running.set(fingerprint, (flight.running.get(fingerprint) ?? 0) + 1);
      inFlight.set(key, flight);
      return { key, fingerprint, erasures, startedWhileBusy, overlaps: flight.overlaps };
    },
    /** The write failed: nothing to remember, and no longer in flight. */
    end(write: RegistrationWrite): void {
      if (!end(write)) seen.delete(write.key);
    },
    /**
     * The directory write of a registration (`write`), unless this process stored the same
     * values lately; what it stored is remembered when nothing came between.
     */
    async register(key: string, fingerprint: string, write: () => Promise<StoredSummary>): Promise<void> {
      if (fresh(key, fingerprint)) return;
      const started = this.begin(key, fingerprint);
      let stored: StoredSummary;
      try {
        stored = await write();
      } catch (error) {
        this.end(started);
        throw error;
      }
      this.remember(started, stored);
    },
    /** The write answered: remembered only if nothing else of the gamer's came between. */
    remember(write: RegistrationWrite, stored: StoredSummary): void {
      const alone = end(write);
      if (!alone || write.erasures !== erasures) {
        // another registration overlapped: whatever was remembered may not be what landed
        if (!alone) seen.delete(write.key);
        return;
      }
      seen.delete(write.key);
      seen.set(write.key, { fingerprint: write.fingerprint, at: clock(), stored });
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
