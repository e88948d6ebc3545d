import { setTimeout as sleep } from 'node:timers/promises';
import { natsNames, parsePresenceKey, presenceBeatKey, presenceHolderFilter } from '@gfts/contracts';
import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FastifyBaseLogger } from 'fastify';
import type { LastSeen } from '../repository/gamers.ts';
import { gamerKey, ownCopy, type BoardUpdate, type PresenceBoard, type PresenceChange } from './board.ts';

type Logger = Pick<FastifyBaseLogger, 'info' | 'warn'>;

export interface PresenceWatchOptions {
  nc: NatsConnection;
  prefix: string;
  board: PresenceBoard;
  onlineWindowMs: number;
  /** servers holding the bucket, when this service creates it */
  replicas: number;
  /** period of the sweep that moves ended sessions to the directory */
  sweepMs: number;
  /** stores ended sessions (the directory's lastSeenAt) */
  persist: (ended: LastSeen[]) => Promise<void>;
  /** a gamer went online or offline on the board (the announcer settles and announces it) */
  changed?: (change: PresenceChange) => void;
  log: Logger;
}

export interface PresenceWatch {
  close(): Promise<void>;
}

const RETRY_MS = 2_000;
/** Most ended sessions stored in one bulkWrite; more wait for the next one (one in flight at a time). */
const PERSIST_BATCH = 1_000;
/** Most ended sessions waiting while the store fails (about 100 bytes each). */
const PERSIST_WAITING_MAX = 100_000;

/**
 * Feeds this replica's presence board from the presence bucket (keys: presence-keys.ts in
 * @gfts/contracts): the bucket's current keys at start, then every heartbeat of a
 * notifications replica, every gamer it takes or lets go, and the delete of its heartbeat
 * when it stops, so a friend list reads presence from memory. A sweep ends the replicas
 * whose heartbeat left the online window, with their gamers, and purges their keys from the
 * bucket (the replica, if it was only cut off, finds its heartbeat gone and writes all again).
 * Creates the bucket if it is missing; retries in the background while NATS or JetStream is
 * away (presence then shows what the board and the directory hold, never an error); after a
 * retry, holds that left the bucket meanwhile end.
 */
export function startPresenceWatch(opts: PresenceWatchOptions): PresenceWatch {
  const stop = new AbortController();
  const names = natsNames(opts.prefix);
  let current: { stop(): void } | undefined;
  let purger: ((holder: string) => Promise<unknown>) | undefined;
  /** the bucket and the stream's manager of the watch running, for the sweep's look (confirmDead) */
  let bucket: { kv: KV; streamInfo: () => Promise<unknown> } | undefined;
  /**
   * While the bucket's current keys load, a replica's holds come before its heartbeat (the
   * heartbeat, rewritten every few seconds, is the newest message), each with the time it
   * was put, hours ago maybe: swept then, a live replica looked dead, its gamers were
   * announced offline and its keys purged (and it wrote them all again). No sweep until loaded.
   */
  let loadingBucket = false;
  /**
   * NATS away, or back and the bucket not read again yet: no sweep. Away, the board hears no
   * heartbeat, which says nothing of the writers; back, the ordered consumer resumes where it
   * was, but a release whose marker expired meanwhile is gone, and the heartbeats it holds
   * are old. Until 2026-11-28 the sweep ended every replica during an outage longer than the
   * online window, and their gamers, connected all along, stayed offline on this replica
   * until they reconnected: now the bucket is read again after a reconnect (the reload
   * below ends the holds that left it), and the sweep waits for it.
   */
  let natsAway = false;
  let reloadAfterReconnect = false;
  const statuses = opts.nc.status();
  void (async () => {
    for await (const status of statuses) {
      if (status.type === 'disconnect') natsAway = true;
      else if (status.type === 'reconnect') {
        natsAway = false;
        reloadAfterReconnect = true;
        opts.log.info({ bucket: names.presenceBucket }, 'NATS reconnected: presence watch reloads the bucket before it sweeps again');
        current?.stop();
      }
    }
  })();

  // ended sessions reach the directory in batches, one write at a time: a replica's crash
  // ends thousands of sessions at once. A failed write is tried again RETRY_MS later (every
  // friendship replica writes the same ends at the same moment, so a store blip had lost
  // them everywhere until 2026-11-28); while the store stays away, at most PERSIST_WAITING_MAX
  // wait, the oldest dropped first.
  const toPersist: LastSeen[] = [];
  let persisting = false;
  const persist = (ended: LastSeen[]) => {
    toPersist.push(...ended);
    if (toPersist.length > PERSIST_WAITING_MAX) {
      const dropped = toPersist.splice(0, toPersist.length - PERSIST_WAITING_MAX);
      opts.board.stored(dropped);
      opts.log.warn({ sessions: dropped.length }, 'last-seen times dropped: too many wait for the store');
    }
    if (persisting || toPersist.length === 0) return;
    persisting = true;
    const batch = toPersist.splice(0, PERSIST_BATCH);
    opts.persist(batch).then(
      () => {
        // the directory has them: the board's copies go (the friend list reads the directory)
        opts.board.stored(batch);
        persisting = false;
        persist([]);
      },
      (error: unknown) => {
        opts.log.warn({ err: error, sessions: batch.length }, 'last-seen times not stored yet; trying again');
        toPersist.unshift(...batch);
        setTimeout(() => {
          persisting = false;
          if (!stop.signal.aborted) persist([]);
        }, RETRY_MS).unref();
      },
    );
  };
  /** a stopped or dead notifications replica's keys leave the bucket (every friendship replica may do it: idempotent) */
  const purge = (holder: string) => {
    purger?.(holder).catch((error: unknown) => opts.log.warn({ err: error, holder }, 'keys of a stopped notifications replica not purged'));
  };
  const apply = (update: BoardUpdate) => {
    persist(update.ended);
    if (update.change) opts.changed?.(update.change);
  };

  async function watchOnce(reload: boolean): Promise<void> {
    const kvm = new Kvm(jetstream(opts.nc));
    // No max age: gamer keys live as long as their socket. Markers of released gamers carry
    // their own TTL (needs NATS 2.11's per-message TTL, which markerTTL turns on).
    const limits = { history: 1, storage: StorageType.Memory, replicas: opts.replicas, allow_direct: true, markerTTL: opts.onlineWindowMs };
    // An existing bucket keeps the settings it was created with (docs/operations.md, Presence).
    // opened with direct gets, as it was created: the sweep's look is one (friendship may not use STREAM.MSG.GET)
    const kv = await kvm.create(names.presenceBucket, limits).catch(() => kvm.open(names.presenceBucket, { allow_direct: true }));
    const jsm = await jetstreamManager(opts.nc);
    purger = (holder) => jsm.streams.purge(names.presenceStream, { filter: `$KV.${names.presenceBucket}.${presenceHolderFilter(holder)}` });
    bucket = { kv, streamInfo: () => jsm.streams.info(names.presenceStream) };
    const { values } = await kv.status();
    const updates = await kv.watch({ ignoreDeletes: false });
    current = updates;
    // closed while the watch was being set up: nothing else would stop it, and the close
    // would wait for ever (until 2026-11-29; a pod stopped during its start hung until killed)
    if (stop.signal.aborted) updates.stop();
    opts.log.info({ bucket: names.presenceBucket }, 'presence watch started');
    // after a retry: what the reload did not bring back was deleted while the watch was away
    const seen = reload ? { holds: new Set<string>(), holders: new Set<string>() } : undefined;
    let loading = values > 0;
    loadingBucket = loading;
    const loaded = () => {
      loading = false;
      loadingBucket = false;
      reloadAfterReconnect = false;
      if (seen) for (const update of opts.board.retainOnly(seen, opts.board.now())) apply(update);
    };
    if (!loading) loaded();
    for await (const entry of updates) {
      const key = parsePresenceKey(entry.key);
      // an entry heard live tells the server's time now (the board's clock, server-clock.ts);
      // those of a load are older
      if (!loading) opts.board.heard(entry.created.getTime());
      if (key && entry.operation === 'PUT') {
        // When NATS stored it, as for a delete below: the writer's own clock (the value) may be
        // behind or ahead of this replica's, and a writer 40 s behind looked dead at every
        // sweep (until 2026-11-28), its gamers announced offline, its keys purged.
        const at = entry.created.getTime();
        if (key.kind === 'beat') opts.board.beat(key.holder, at);
        // the board keeps the key: a copy of its own, not a piece of the message's subject
        else apply(opts.board.hold(ownCopy(gamerKey(key.applicationId, key.gamerId)), key.holder, at));
        if (loading && seen) {
          seen.holders.add(key.holder);
          if (key.kind === 'hold') seen.holds.add(entry.key);
        }
      } else if (key) {
        // DEL or PURGE: the replica let the gamer go, or stopped; the marker's time is when
        const at = entry.created.getTime();
        if (key.kind === 'beat') {
          for (const update of opts.board.stopped(key.holder, at)) apply(update);
          purge(key.holder);
        } else apply(opts.board.release(gamerKey(key.applicationId, key.gamerId), key.holder, at));
      }
      if (loading && entry.delta === 0) loaded();
    }
  }

  const running = (async () => {
    let reload = false;
    while (!stop.signal.aborted) {
      try {
        await watchOnce(reload);
      } catch (error) {
        if (!stop.signal.aborted) opts.log.warn({ err: error }, 'presence watch failed; retrying');
      }
      // a load cut short does not stop the sweep while the watch is away
      loadingBucket = false;
      reload = true;
      await sleep(RETRY_MS, undefined, { signal: stop.signal }).catch(() => undefined);
    }
  })();

  /**
   * Of the replicas the board has not heard from for the online window, those the bucket
   * confirms dead: JetStream answers for the stream (it has a leader: the replicas' heartbeat
   * writes could land), and each one's heartbeat in it is no newer than the board's. The
   * watch hears nothing while JetStream is away with this connection up (a cluster that lost
   * its quorum); the sweep then ended every replica, and their gamers, whose holds stayed in
   * the bucket, stayed offline here after JetStream was back (until 2026-11-29). A look that
   * fails skips the sweep; a newer heartbeat means the watch missed updates: it reads the
   * bucket again (and no sweep until it has).
   */
  async function confirmDead(overdue: { id: string; beat: number }[]): Promise<string[]> {
    if (!bucket) return [];
    const dead: string[] = [];
    let missed = false;
    try {
      await bucket.streamInfo();
      for (const { id, beat } of overdue) {
        const entry = await bucket.kv.get(presenceBeatKey(id));
        if (entry?.operation === 'PUT' && entry.created.getTime() > beat) missed = true;
        else dead.push(id);
      }
    } catch (error) {
      lookFailedAt = performance.now();
      throw error;
    }
    // Back from a look that failed, the replicas' heartbeats land within their interval, not
    // at once: until the bucket has answered for an online window, the old ones prove nothing
    // (ended at the first look after the outage, every replica's gamers were told offline and
    // then online again). The looks go on meanwhile: the window counts from the last that
    // failed, the last moment the bucket was known away.
    if (performance.now() - lookFailedAt < opts.onlineWindowMs) return [];
    if (missed) {
      opts.log.warn({ bucket: names.presenceBucket }, 'presence watch missed heartbeats: it reads the bucket again');
      reloadAfterReconnect = true;
      current?.stop();
      return [];
    }
    return dead;
  }
  let sweeping = false;
  let skippedWarnedAt = -Infinity;
  /** when a look of confirmDead last failed (monotonic ms) */
  let lookFailedAt = -Infinity;
  const startedAt = performance.now();
  const sweeper = setInterval(() => {
    if (sweeping || loadingBucket || natsAway || reloadAfterReconnect) return;
    // Until an entry is heard live the board's clock is this replica's wall clock, which may
    // be off from the server's: a live notifications replica writes its heartbeat every few
    // seconds, so none heard for an online window since the start means none is alive.
    if (!opts.board.clockSet && performance.now() - startedAt < opts.onlineWindowMs) return;
    const overdue = opts.board.overdue(opts.board.now());
    if (overdue.length === 0) return;
    sweeping = true;
    void confirmDead(overdue)
      .then((confirmed) => {
        // the watch may have gone away meanwhile: its reload decides then
        if (confirmed.length === 0 || stop.signal.aborted || loadingBucket || natsAway || reloadAfterReconnect) return;
        const { updates, dead } = opts.board.sweep(opts.board.now(), confirmed);
        for (const update of updates) apply(update);
        for (const holder of dead) purge(holder);
        if (dead.length > 0) opts.log.info({ replicas: dead.length }, 'notifications replicas without a heartbeat: their gamers are offline');
      }, (error: unknown) => {
        if (Date.now() - skippedWarnedAt < 60_000) return;
        skippedWarnedAt = Date.now();
        opts.log.warn({ err: error, replicas: overdue.length }, 'presence sweeps skipped: the bucket does not answer, so a replica not heard from may be alive');
      })
      .finally(() => {
        sweeping = false;
      });
  }, opts.sweepMs);
  sweeper.unref();

  return {
    async close() {
      stop.abort();
      clearInterval(sweeper);
      current?.stop();
      // nats.js's status iterator has stop(), which its type does not show: the listener leaves the connection
      (statuses as { stop?: () => void }).stop?.();
      await running;
    },
  };
}
