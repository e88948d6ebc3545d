import type { LastSeen } from '../repository/gamers.ts';

/** The KV key of a gamer's sighting: `<applicationId>.<gamerId>` (both uuids, so two tokens). */
export const sightingKey = (applicationId: string, gamerId: string) => `${applicationId}.${gamerId}`;

export interface PresenceBoardOptions {
  /** how long a sighting keeps a gamer online */
  onlineWindowMs: number;
  /** most gamers held; beyond it the least recently seen go first (and show offline) */
  maxEntries: number;
}

/**
 * This replica's picture of who was seen lately: one entry per gamer seen within the
 * online window, fed by the watch on the presence bucket (presence/watch.ts), read by the
 * friend list without any query. Entries are kept in order of their latest sighting (a
 * Map re-inserted on update), so a sweep stops at the first entry still in the window.
 */
export function presenceBoard(opts: PresenceBoardOptions) {
  const seen = new Map<string, number>();

  function ended(key: string, at: number): LastSeen {
    const dot = key.indexOf('.');
    return { applicationId: key.slice(0, dot), gamerId: key.slice(dot + 1), at: new Date(at) };
  }

  return {
    /** A sighting at `at` (epoch ms); an older one than held changes nothing. Answers the sessions evicted by the bound. */
    record(key: string, at: number): LastSeen[] {
      const held = seen.get(key);
      if (held !== undefined && held >= at) return [];
      seen.delete(key);
      seen.set(key, at);
      const evicted: LastSeen[] = [];
      while (seen.size > opts.maxEntries) {
        const [oldest, oldestAt] = seen.entries().next().value!;
        seen.delete(oldest);
        evicted.push(ended(oldest, oldestAt));
      }
      return evicted;
    },

    lastSeen: (applicationId: string, gamerId: string): number | undefined => seen.get(sightingKey(applicationId, gamerId)),

    /**
     * Drops the sightings that left the online window and answers them: those sessions
     * ended, and their time is what the directory keeps as lastSeenAt. A sighting that
     * arrived out of order behind a newer one waits for a later sweep.
     */
    sweep(now: number): LastSeen[] {
      const out: LastSeen[] = [];
      for (const [key, at] of seen) {
        if (now - at < opts.onlineWindowMs) break;
        seen.delete(key);
        out.push(ended(key, at));
      }
      return out;
    },

    get size(): number {
      return seen.size;
    },
  };
}
export type PresenceBoard = ReturnType<typeof presenceBoard>;
