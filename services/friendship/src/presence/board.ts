import type { PresenceStatus } from '../domain/presence.ts';
import type { LastSeen } from '../repository/gamers.ts';
import { serverClock, type ServerClock } from './server-clock.ts';

/** A gamer's key on the board and in the announced bucket: `<applicationId>.<gamerId>` (both uuids, so two tokens). */
export const gamerKey = (applicationId: string, gamerId: string) => `${applicationId}.${gamerId}`;

/**
 * A copy of `s` that holds nothing else. A key cut from a NATS subject (a slice, or a join of
 * slices) keeps the whole subject alive: 455 instead of ~270 bytes per online gamer
 * (bench/src/presence-memory.ts). Keys are ASCII (uuids, dashes, dots).
 */
export const ownCopy = (s: string): string => Buffer.from(s, 'latin1').toString('latin1');

export interface PresenceBoardOptions {
  /** how long a notifications replica counts as alive after its latest heartbeat (a crashed replica's gamers end so) */
  onlineWindowMs: number;
  /** most gamers held; beyond it the longest online go first (and show offline) */
  maxEntries: number;
  /** the server's time, which the board's times are (server-clock.ts) */
  clock?: ServerClock;
}

/** A gamer went online (their first hold) or offline (their last hold ended), at `at` (epoch ms). */
export interface PresenceChange {
  key: string;
  status: PresenceStatus;
  /** online: when the session began; offline: when it ended (the gamer's lastSeenAt) */
  at: number;
}

export interface BoardUpdate {
  change?: PresenceChange;
  /** sessions that ended and must reach the directory (lastSeenAt) */
  ended: LastSeen[];
}

/** A notifications replica: its latest heartbeat, and the gamers it holds sockets of. */
interface Holder {
  /** the replica's id, one copy for all the gamers it holds */
  id: string;
  beat: number;
  gamers: Set<string>;
}

interface Online {
  /** the notifications replicas holding the gamer (usually one) */
  holders: string[];
  /** when this online session began */
  since: number;
}

function ended(key: string, at: number): LastSeen {
  const dot = key.indexOf('.');
  return { applicationId: key.slice(0, dot), gamerId: key.slice(dot + 1), at: new Date(at) };
}

const NOTHING: BoardUpdate = Object.freeze({ ended: [] }) as BoardUpdate;

/**
 * This replica's picture of who is online, per notifications replica (docs/friendship.md,
 * Presence; presence/watch.ts feeds it from the presence bucket): each replica's latest
 * heartbeat and the gamers it holds, read by the friend list without any query. A gamer is
 * online while at least one replica holding them has a heartbeat younger than the online
 * window. A gamer key costs nothing after its one write: liveness is the replica's.
 */
export function presenceBoard(opts: PresenceBoardOptions) {
  const holders = new Map<string, Holder>();
  /** in order of session start: the capacity bound drops the longest online first */
  const online = new Map<string, Online>();
  /** sessions ended here and not yet stored in the directory (`stored`): their end, by key */
  const endedAt = new Map<string, number>();
  const fresh = (at: number, now: number) => now - at < opts.onlineWindowMs;
  const clock = opts.clock ?? serverClock();

  const holderOf = (id: string, at: number): Holder => {
    let holder = holders.get(id);
    if (!holder) {
      holder = { id: ownCopy(id), beat: at, gamers: new Set() };
      holders.set(holder.id, holder);
    } else if (at > holder.beat) {
      holder.beat = at;
    }
    return holder;
  };
  /** the latest heartbeat of the replicas holding a gamer that are alive at `now` (undefined: none is) */
  const liveBeat = (entry: Online, now: number): number | undefined => {
    let latest: number | undefined;
    for (const id of entry.holders) {
      const beat = holders.get(id)?.beat;
      if (beat !== undefined && fresh(beat, now) && (latest === undefined || beat > latest)) latest = beat;
    }
    return latest;
  };
  const latestBeat = (entry: Online): number => Math.max(...entry.holders.map((id) => holders.get(id)?.beat ?? -Infinity));

  function end(key: string, entry: Online, at: number): BoardUpdate {
    online.delete(key);
    endedAt.set(key, Math.max(at, endedAt.get(key) ?? -Infinity));
    for (const id of entry.holders) holders.get(id)?.gamers.delete(key);
    return { change: { key, status: 'offline', at }, ended: [ended(key, at)] };
  }

  /** `id`'s holds end (its heartbeat was deleted, or it left the window): gamers held by no live replica end at `at`. */
  function endHolder(id: string, at: number, now: number): BoardUpdate[] {
    const holder = holders.get(id);
    if (!holder) return [];
    holders.delete(id);
    const out: BoardUpdate[] = [];
    for (const key of holder.gamers) {
      const entry = online.get(key);
      if (!entry) continue;
      entry.holders = entry.holders.filter((h) => h !== id);
      if (liveBeat(entry, now) === undefined) out.push(end(key, entry, at));
    }
    return out;
  }

  /** Replica `id` released `key` at `at` (the gamer's last socket there closed): offline when no live replica holds them. */
  function release(key: string, id: string, at: number): BoardUpdate {
    holders.get(id)?.gamers.delete(key);
    const entry = online.get(key);
    if (!entry || !entry.holders.includes(id)) return NOTHING;
    entry.holders = entry.holders.filter((h) => h !== id);
    return liveBeat(entry, at) === undefined ? end(key, entry, at) : NOTHING;
  }

  return {
    /** An entry the server stamped `stamp` arrived just now (the watch, live): the board's clock follows the server's. */
    heard: (stamp: number): void => clock.heard(stamp),

    /** Now, on the server's clock: what the board's times are compared with (every `now` below). */
    now: (): number => clock.now(),

    /** Whether the board has heard an entry live, which sets its clock (until then: this replica's wall clock). */
    get clockSet(): boolean {
      return clock.set;
    },

    /** A replica's heartbeat, written at `at`. */
    beat(id: string, at: number): void {
      holderOf(id, at);
    },

    /** Replica `id` holds `key` since `at` (a write is a sign of life too). */
    hold(key: string, id: string, at: number): BoardUpdate {
      const holder = holderOf(id, at);
      holder.gamers.add(key);
      const entry = online.get(key);
      if (entry) {
        if (!entry.holders.includes(holder.id)) entry.holders.push(holder.id);
        return NOTHING;
      }
      online.set(key, { holders: [holder.id], since: at });
      endedAt.delete(key);
      const out: LastSeen[] = [];
      while (online.size > opts.maxEntries) {
        const [oldest, oldestEntry] = online.entries().next().value!;
        out.push(...end(oldest, oldestEntry, Math.max(latestBeat(oldestEntry), oldestEntry.since)).ended);
      }
      return { change: { key, status: 'online', at }, ended: out };
    },

    release,

    /** Replica `id` stopped (its heartbeat was deleted at `at`): whatever it still held ends now. */
    stopped(id: string, at: number): BoardUpdate[] {
      return endHolder(id, at, at);
    },

    /** The replicas whose latest heartbeat left the window at `now`, with it: sweep's candidates. */
    overdue(now: number): { id: string; beat: number }[] {
      return [...holders.values()].filter((h) => !fresh(h.beat, now)).map((h) => ({ id: h.id, beat: h.beat }));
    },

    /**
     * Ends the replicas whose heartbeat left the window (crashed or cut off), those of `only`
     * when given, and, with them, the sessions no live replica holds (offline at the
     * replica's last heartbeat). Answers the updates and the replicas ended (their keys are
     * to be purged).
     */
    sweep(now: number, only?: readonly string[]): { updates: BoardUpdate[]; dead: string[] } {
      const dead = [...holders].filter(([id, h]) => !fresh(h.beat, now) && (only === undefined || only.includes(id))).map(([id]) => id);
      const updates = dead.flatMap((id) => endHolder(id, holders.get(id)!.beat, now));
      return { updates, dead };
    },

    /**
     * After the watch reloaded the bucket: holds and replicas the bucket no longer has (their
     * deletes were missed while the watch was down) end at `now`.
     */
    retainOnly(seen: { holds: ReadonlySet<string>; holders: ReadonlySet<string> }, now: number): BoardUpdate[] {
      const out: BoardUpdate[] = [];
      for (const id of [...holders.keys()]) if (!seen.holders.has(id)) out.push(...endHolder(id, now, now));
      for (const [id, holder] of holders) {
        for (const key of [...holder.gamers]) if (!seen.holds.has(`${id}.${key}`)) {
          const update = release(key, id, now);
          if (update.change) out.push(update);
        }
      }
      return out;
    },

    /** The end of a gamer's session this board ended, until the directory has it (`stored`). */
    endedAt(applicationId: string, gamerId: string): number | undefined {
      return endedAt.get(gamerKey(applicationId, gamerId));
    },

    /** These ends are in the directory now (or were given up): the board forgets them. */
    stored(ended: readonly LastSeen[]): void {
      for (const { applicationId, gamerId, at } of ended) {
        const key = gamerKey(applicationId, gamerId);
        if ((endedAt.get(key) ?? Infinity) <= at.getTime()) endedAt.delete(key);
      }
    },

    /** The latest heartbeat of the replicas holding a gamer on the board (their lastSeenAt while online), if any. */
    lastSeen(applicationId: string, gamerId: string): number | undefined {
      const entry = online.get(gamerKey(applicationId, gamerId));
      return entry && latestBeat(entry);
    },

    /** Online now, and since when (for the settle rule); undefined when offline. */
    onlineSince(key: string, now: number): number | undefined {
      const entry = online.get(key);
      return entry && liveBeat(entry, now) !== undefined ? entry.since : undefined;
    },

    isOnline(applicationId: string, gamerId: string, now: number): boolean {
      const entry = online.get(gamerKey(applicationId, gamerId));
      return entry !== undefined && liveBeat(entry, now) !== undefined;
    },

    get size(): number {
      return online.size;
    },
    get replicas(): number {
      return holders.size;
    },
  };
}
export type PresenceBoard = ReturnType<typeof presenceBoard>;
