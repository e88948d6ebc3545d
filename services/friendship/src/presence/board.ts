import type { PresenceStatus } from '../domain/presence.ts';
import type { LastSeen } from '../repository/gamers.ts';

/** A gamer's key on the board and in the announced bucket: `<applicationId>.<gamerId>` (both uuids, so two tokens). */
export const gamerKey = (applicationId: string, gamerId: string) => `${applicationId}.${gamerId}`;

export interface PresenceBoardOptions {
  /** how long a hold keeps a gamer online without being refreshed (a crashed replica's holds end so) */
  onlineWindowMs: number;
  /** most gamers held; beyond it the least recently refreshed go first (and show offline) */
  maxEntries: number;
}

/** A gamer went online (their first hold) or offline (their last hold ended), at `at` (epoch ms). */
export interface PresenceChange {
  key: string;
  status: PresenceStatus;
  /** online: when the session began; offline: when it ended (the gamer's lastSeenAt) */
  at: number;
}

interface Online {
  /** notifications replica token -> epoch ms of its latest write */
  holds: Map<string, number>;
  /** when this online session began */
  since: number;
  /** the latest write of any hold */
  latest: number;
}

export interface BoardUpdate {
  change?: PresenceChange;
  /** sessions that ended and must reach the directory (lastSeenAt) */
  ended: LastSeen[];
}

function ended(key: string, at: number): LastSeen {
  const dot = key.indexOf('.');
  return { applicationId: key.slice(0, dot), gamerId: key.slice(dot + 1), at: new Date(at) };
}

/**
 * This replica's picture of who is online: the gamers holding a live notifications
 * connection, each with the notifications replicas holding it (one key per gamer and
 * replica in the presence bucket: presence/watch.ts feeds them in), read by the friend
 * list without any query. A gamer is online while at least one hold is younger than the
 * online window. Entries are kept in order of their latest write (a Map re-inserted on
 * update), so a sweep stops at the first gamer still in the window.
 */
export function presenceBoard(opts: PresenceBoardOptions) {
  const online = new Map<string, Online>();
  const fresh = (at: number, now: number) => now - at < opts.onlineWindowMs;

  function end(key: string, entry: Online, at: number): BoardUpdate {
    online.delete(key);
    return { change: { key, status: 'offline', at }, ended: [ended(key, at)] };
  }

  return {
    /** A replica's hold of `key` written at `at`; an older write than held changes nothing. */
    hold(key: string, holder: string, at: number): BoardUpdate {
      const entry = online.get(key);
      if (entry) {
        if ((entry.holds.get(holder) ?? -Infinity) >= at) return { ended: [] };
        entry.holds.set(holder, at);
        if (at > entry.latest) {
          entry.latest = at;
          online.delete(key);
          online.set(key, entry);
        }
        return { ended: [] };
      }
      online.set(key, { holds: new Map([[holder, at]]), since: at, latest: at });
      const out: LastSeen[] = [];
      while (online.size > opts.maxEntries) {
        const [oldest, oldestEntry] = online.entries().next().value!;
        online.delete(oldest);
        out.push(ended(oldest, oldestEntry.latest));
      }
      return { change: { key, status: 'online', at }, ended: out };
    },

    /** A replica released `key` at `at` (the gamer's last socket there closed): offline when no fresh hold is left. */
    release(key: string, holder: string, at: number): BoardUpdate {
      const entry = online.get(key);
      if (!entry || !entry.holds.delete(holder)) return { ended: [] };
      // holds of a replica that died without releasing count no longer
      for (const [h, t] of entry.holds) if (!fresh(t, at)) entry.holds.delete(h);
      return entry.holds.size === 0 ? end(key, entry, at) : { ended: [] };
    },

    /** The latest write of a gamer online on the board, if any. */
    lastSeen: (applicationId: string, gamerId: string): number | undefined => online.get(gamerKey(applicationId, gamerId))?.latest,

    /** Online now, and since when (for the settle rule); undefined when offline. */
    onlineSince(key: string, now: number): number | undefined {
      const entry = online.get(key);
      return entry && fresh(entry.latest, now) ? entry.since : undefined;
    },

    isOnline(applicationId: string, gamerId: string, now: number): boolean {
      const entry = online.get(gamerKey(applicationId, gamerId));
      return entry !== undefined && fresh(entry.latest, now);
    },

    /**
     * Ends the sessions whose holds all left the window (their replicas stopped writing:
     * crashed or cut off) and answers them: each is an offline change, at its latest write.
     */
    sweep(now: number): BoardUpdate[] {
      const out: BoardUpdate[] = [];
      for (const [key, entry] of online) {
        if (fresh(entry.latest, now)) break;
        out.push(end(key, entry, entry.latest));
      }
      return out;
    },

    get size(): number {
      return online.size;
    },
  };
}
export type PresenceBoard = ReturnType<typeof presenceBoard>;
