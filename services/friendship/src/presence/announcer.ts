import { setTimeout as sleep } from 'node:timers/promises';
import { natsNames, type PresenceChangedEvent } from '@gfts/contracts';
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FastifyBaseLogger } from 'fastify';
import { settledAnnouncement, type PresenceStatus } from '../domain/presence.ts';
import { openAnnouncedBucket } from './announced-bucket.ts';
import { gamerKey, type PresenceBoard, type PresenceChange } from './board.ts';

type Logger = Pick<FastifyBaseLogger, 'info' | 'warn'>;

const RETRY_MS = 2_000;
/** How long a close waits for the settles under way. */
const CLOSE_WAIT_MS = 5_000;
/** How long a gamer's erasure waits for a settle of theirs under way, before it is tried again. */
const FORGET_WAIT_MS = 5_000;
/**
 * Most changes being claimed and announced at once (each: a KV read, a compare-and-set,
 * three queries). Low on purpose: a replica's crash or a reconnect storm settles thousands
 * of changes at once, and their queries must not take the cores from the sockets coming back.
 */
const SETTLING_AT_ONCE = 4;

export interface PresenceAnnouncerOptions {
  nc: NatsConnection;
  prefix: string;
  board: PresenceBoard;
  /** PRESENCE_CHANGE_SETTLE_MS: how long a new status must hold before it is announced */
  settleMs: number;
  /** servers holding the announced bucket, when this service creates it */
  replicas: number;
  /** PRESENCE_ANNOUNCED_BUCKET_MAX_BYTES */
  maxBytes: number;
  /** the friends to tell of `gamerId`'s change (presenceRecipients over the repositories) */
  recipients: (applicationId: string, gamerId: string) => Promise<string[]>;
  log: Logger;
}

export interface PresenceAnnouncer {
  changed(change: PresenceChange): void;
  /**
   * Gamer erasure: the gamer's announced record ({status, lastSeenAt}, else kept 30 days)
   * purged, and a change of theirs this replica is settling dropped (a settle under way is
   * waited for, up to 5 s). Throws while the bucket is not open, or the settle still runs,
   * so that the erasure is redelivered rather than reported done.
   */
  forget(applicationId: string, gamerId: string): Promise<void>;
  close(): Promise<void>;
}

interface Announced {
  status: PresenceStatus;
  lastSeenAt: string | null;
  at: string;
}

/** A compare-and-set that lost: the record moved since it was read (another replica claimed the change). */
const isConflict = (error: unknown): boolean =>
  error instanceof JetStreamApiError && (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown);

const parseAnnounced = (value: string): Announced | undefined => {
  try {
    const v = JSON.parse(value) as Announced;
    return v.status === 'online' || v.status === 'offline' ? v : undefined;
  } catch {
    return undefined;
  }
};

/**
 * `presence.changed`, once per settled change. Every friendship replica sees every change
 * on its board and waits PRESENCE_CHANGE_SETTLE_MS (domain/presence.ts, settledAnnouncement);
 * then the replicas race to record the new status in the announced bucket with a
 * compare-and-set on the gamer's key (create, or update at the revision read). One wins and
 * alone reads the gamer's friends and blocks (one query each, on the change, never on a
 * read) and publishes one `presence.changed` event with the recipients; the others find
 * the status already announced. A step that fails (NATS or the store away) is tried again
 * every 2 s, so a change is announced once they are back, if it still holds (friend lists
 * show presence meanwhile).
 */
export function startPresenceAnnouncer(opts: PresenceAnnouncerOptions): PresenceAnnouncer {
  const names = natsNames(opts.prefix);
  const stop = new AbortController();
  /** gamers whose change is settling: their timer, and when they went offline (the board forgets offline gamers) */
  const settling = new Map<string, { timer: NodeJS.Timeout; offlineAt?: number }>();
  const running = new Set<Promise<void>>();
  let kv: KV | undefined;

  const opening = (async () => {
    while (!stop.signal.aborted) {
      try {
        kv = await openAnnouncedBucket(opts.nc, { prefix: opts.prefix, replicas: opts.replicas, maxBytes: opts.maxBytes });
        return;
      } catch (error) {
        opts.log.warn({ err: error }, 'presence announcements unavailable; retrying');
        await sleep(RETRY_MS, undefined, { signal: stop.signal }).catch(() => undefined);
      }
    }
  })();

  /** settled keys waiting for a slot: a replica's crash settles thousands of changes at once */
  const due = new Set<string>();
  /** keys being settled, and their settles: one per gamer at a time (two would both tell what was untold) */
  const settlingNow = new Map<string, Promise<void>>();
  /** gamers erased while being settled: what that settle leaves is dropped when it ends */
  const forgotten = new Set<string>();
  function run(): void {
    for (const key of due) {
      if (running.size >= SETTLING_AT_ONCE) return;
      // its turn comes again when the settle under way ends (run() then)
      if (settlingNow.has(key)) continue;
      due.delete(key);
      const p = settle(key).catch((error: unknown) => opts.log.warn({ err: error, key }, 'presence change not announced')).finally(() => {
        settlingNow.delete(key);
        if (forgotten.delete(key)) drop(key);
        running.delete(p);
        run();
      });
      settlingNow.set(key, p);
      running.add(p);
    }
  }

  /** Everything pending of a gamer (an erasure). */
  function drop(key: string): void {
    clearTimeout(settling.get(key)?.timer);
    settling.delete(key);
    due.delete(key);
    unanswered.delete(key);
    untold.delete(key);
  }

  function schedule(key: string, ms: number, offlineAt?: number): void {
    const held = settling.get(key);
    if (held) clearTimeout(held.timer);
    const timer = setTimeout(() => {
      due.add(key);
      run();
    }, ms);
    timer.unref();
    settling.set(key, { timer, offlineAt: offlineAt ?? held?.offlineAt });
  }

  /**
   * Claims this replica made whose answer was lost (a timeout), as the records written, by
   * gamer: any may have landed, before the next look at the record or later (then this
   * replica's next claim conflicts with it). One that landed is this replica's change to
   * announce (until 2026-11-28 it was taken for another replica's, and nobody announced it).
   * Kept until the record is seen to be another.
   */
  const unanswered = new Map<string, string[]>();
  const unansweredOf = (key: string) => unanswered.get(key) ?? [];
  /**
   * Changes this replica claimed and has not told yet (the friends' read failed), as their
   * record's text: told at the next try while the gamer's record is still that one (a newer
   * change claimed since, by any replica, makes it moot: told late, it would reach friends
   * after the newer one). Until 2026-11-28 such a change stayed recorded as announced and was
   * told to nobody. The friends are read by the winner of the claim only, as before.
   */
  const untold = new Map<string, string>();
  /** Settles failed since a change was last told, and when that was last logged: at most a warning a minute, not one per gamer and try. */
  let failures = 0;
  let warnedAt = -Infinity;

  /** A settled change, tried again after RETRY_MS when it fails (a store or NATS error): it is never dropped for one failure. */
  async function settle(key: string): Promise<void> {
    const held = settling.get(key);
    // a timer that made this key due again while it was settling: this settle covers it
    clearTimeout(held?.timer);
    const offlineAt = held?.offlineAt;
    settling.delete(key);
    if (stop.signal.aborted) return;
    try {
      await settleOnce(key, offlineAt);
    } catch (error) {
      if (stop.signal.aborted) return;
      failures++;
      if (Date.now() - warnedAt >= 60_000) {
        warnedAt = Date.now();
        opts.log.warn({ err: error, key, failedSettles: failures }, 'presence changes not announced yet; each is tried again every 2 s');
      }
      // a newer change of the gamer, scheduled meanwhile, settles this one's leftovers too
      if (!settling.has(key)) schedule(key, RETRY_MS, offlineAt);
    }
  }

  async function settleOnce(key: string, offlineAt: number | undefined): Promise<void> {
    // the bucket is still being created or bound: try again shortly
    if (!kv) return schedule(key, RETRY_MS, offlineAt);
    const dot = key.indexOf('.');
    const [applicationId, gamerId] = [key.slice(0, dot), key.slice(dot + 1)];
    const now = opts.board.now();
    const since = opts.board.onlineSince(key, now);
    const current = since !== undefined ? { status: 'online' as const, since } : { status: 'offline' as const, since: offlineAt ?? now };
    const entry = await kv.get(key);
    const recorded = entry?.operation === 'PUT' ? entry.string() : undefined;
    // this replica's earlier claim, if the record is still it: one it could not tell, or one
    // whose answer was lost and which landed. Told if it still holds; if the gamer's status
    // moved on since, friends were never told it, and hear the newer one instead (claimed
    // below), not both in a row.
    const claimed = unansweredOf(key);
    const mine = [untold.get(key), ...claimed].find((text) => text !== undefined && text === recorded);
    if (mine !== undefined && parseAnnounced(mine)?.status === current.status) await tell(key, applicationId, gamerId, mine, entry!.revision);
    // what this replica had pending is settled: told, moot, or not its own (another record)
    untold.delete(key);
    if (mine !== undefined || recorded !== undefined) unanswered.delete(key);
    const last = recorded !== undefined ? parseAnnounced(recorded) : undefined;
    const decision = settledAnnouncement(last?.status, current, now, opts.settleMs);
    if (decision.kind === 'wait') return schedule(key, decision.ms, offlineAt);
    if (decision.kind === 'none') return;
    const lastSeenAt = current.status === 'online' ? new Date(opts.board.lastSeen(applicationId, gamerId) ?? now).toISOString() : new Date(current.since).toISOString();
    const record: Announced = { status: current.status, lastSeenAt, at: new Date(now).toISOString() };
    const text = JSON.stringify(record);
    let revision: number;
    try {
      // the claim: exactly one replica moves the announced status from what it read
      revision = entry ? await kv.update(key, text, entry.revision) : await kv.create(key, text);
    } catch (error) {
      if (!isConflict(error)) {
        unanswered.set(key, [...unansweredOf(key), text].slice(-4));
        throw error;
      }
      // another replica announced first, or an earlier claim of this replica landed late:
      // then it is this replica's to tell (kept if the look fails: the next try tells it)
      if (claimed.length > 0) {
        unanswered.set(key, claimed);
        const storedEntry = await kv.get(key);
        const stored = storedEntry?.string();
        const late = claimed.find((text) => text === stored);
        // it was made at the revision this claim was (the record it replaced had not moved),
        // so it is the status of now: told
        if (late !== undefined) await tell(key, applicationId, gamerId, late, storedEntry!.revision);
        unanswered.delete(key);
      }
      return;
    }
    await tell(key, applicationId, gamerId, text, revision);
  }

  /**
   * The winner's part: the gamer's friends to tell, read now, and the event; kept to tell at
   * the next try when the read fails. `revision`: the record's that `text` is.
   */
  async function tell(key: string, applicationId: string, gamerId: string, text: string, revision: number): Promise<void> {
    untold.set(key, text);
    const recipients = await opts.recipients(applicationId, gamerId);
    // The record read again after the friends' query, which may take long (a store
    // failover): a newer status another replica claimed and told meanwhile is not followed
    // by this older one (until 2026-11-29 a late "online" could reach friends after "offline").
    // By revision: a direct get from a follower that lags (PRESENCE_KV_REPLICAS > 1) may
    // still answer the record before it, or none.
    const current = await kv!.get(key);
    if (current !== null && current.revision > revision) {
      untold.delete(key);
      return;
    }
    publish(applicationId, gamerId, parseAnnounced(text)!, recipients);
    untold.delete(key);
    if (failures > 0) opts.log.info({ failedSettles: failures }, 'presence changes announced again');
    failures = 0;
  }

  function publish(applicationId: string, gamerId: string, record: Announced, recipients: string[]): void {
    const event: PresenceChangedEvent = { applicationId, gamerId, status: record.status, lastSeenAt: record.lastSeenAt, occurredAt: record.at, recipients };
    if (recipients.length > 0) opts.nc.publish(names.presenceChanged, JSON.stringify(event));
  }

  return {
    changed(change) {
      if (stop.signal.aborted) return;
      const wait = Math.max(0, change.at + opts.settleMs - opts.board.now());
      schedule(change.key, wait, change.status === 'offline' ? change.at : undefined);
    },
    async forget(applicationId, gamerId) {
      const key = gamerKey(applicationId, gamerId);
      // nothing of the erased gamer stays in memory either, nor what a settle under way leaves
      drop(key);
      const underWay = settlingNow.get(key);
      if (underWay) {
        forgotten.add(key);
        // a settle between its read and its claim would write the record after the purge
        // below (until 2026-11-28): it ends first; one that does not is the erasure's retry
        await Promise.race([underWay, sleep(FORGET_WAIT_MS)]);
        if (settlingNow.has(key)) throw new Error('a presence change of the gamer is still being settled');
      }
      if (!kv) throw new Error('the announced-presence bucket is not open yet');
      // only a record: a purge of a gamer never announced would write a marker naming them
      if ((await kv.get(key))?.operation === 'PUT') await kv.purge(key);
    },
    async close() {
      stop.abort();
      for (const { timer } of settling.values()) clearTimeout(timer);
      settling.clear();
      due.clear();
      await opening;
      // a settle waiting on a store that does not answer must not hold the shutdown
      await Promise.race([Promise.allSettled([...running]), sleep(CLOSE_WAIT_MS)]);
    },
  };
}
