import { setTimeout as sleep } from 'node:timers/promises';
import { natsNames, presenceBeatKey, presenceHoldKey } from '@gfts/contracts';
import { jetstream, JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FastifyBaseLogger } from 'fastify';
import type { GamerRef } from '../repository/inbox.ts';
import { presenceLedger } from './ledger.ts';
import { WriteOutages, type PresenceWriteKind } from './write-outages.ts';

type Logger = Pick<FastifyBaseLogger, 'info' | 'warn'>;

/** Time between attempts to bind the bucket while NATS, or the bucket, is not there yet. */
const RETRY_MS = 2_000;
/** A write only bounds how long its acknowledgement is awaited; no client waits on it. */
const WRITE_TIMEOUT_MS = 2_000;
/** A released gamer's marker stays this many heartbeat intervals, then leaves the bucket (watches that missed it reconcile on reload). */
const MARKER_INTERVALS = 4;
/** How long a closing replica waits for the deletes of its gamers before it deletes its heartbeat (which ends them all). */
const CLOSE_WRITES_MS = 5_000;

export interface PresenceHolderOptions {
  nc: NatsConnection;
  prefix: string;
  /** this replica's token in the keys (presence-keys.ts in @gfts/contracts) */
  holderId: string;
  /** PRESENCE_RECORD_INTERVAL_MS: how often this replica's heartbeat is written (well below the online window) */
  refreshMs: number;
  /** PRESENCE_WRITES_IN_FLIGHT: most gamer-key writes awaiting their acknowledgement at once */
  maxInFlight: number;
  log: Logger;
}

export interface PresenceHolder {
  /** the gamer's first socket on this replica opened */
  held(gamer: GamerRef): void;
  /** the gamer's last socket on this replica closed */
  released(gamer: GamerRef): void;
  /** stops the heartbeat, writes what the drain released, then deletes the heartbeat */
  close(): Promise<void>;
}

const conflict = (error: unknown) =>
  error instanceof JetStreamApiError && (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown);

/**
 * The presence of the gamers whose sockets this replica holds, written per replica, not per
 * gamer refresh (docs/friendship.md, Presence): one heartbeat key `<holder>.alive` put every
 * PRESENCE_RECORD_INTERVAL_MS, and a key per gamer put when their first socket here opens
 * and deleted when the last closes, never refreshed. The friendship service takes a replica
 * whose heartbeat is older than the online window for dead, ends its gamers' sessions and
 * purges its keys.
 *
 * Sockets never wait for NATS: held/released only mark the gamer's key (presence/ledger.ts),
 * and at most `maxInFlight` writes are awaited at once; a connect and a close of one gamer
 * before its write left cost nothing. The heartbeat is a compare-and-set on its own last
 * revision: if it fails because the key is gone (a friendship replica took this replica for
 * dead and purged it, or NATS lost the memory bucket), everything is written again.
 */
export function presenceHolder(opts: PresenceHolderOptions): PresenceHolder {
  const names = natsNames(opts.prefix);
  const beatKey = presenceBeatKey(opts.holderId);
  const ledger = presenceLedger();
  const stop = new AbortController();
  let kv: KV | undefined;
  /** revision of this replica's heartbeat; undefined until written (gamer keys wait for it) */
  let beatRevision: number | undefined;
  let inFlight = 0;
  const outages = new WriteOutages();
  let drained: (() => void) | undefined;

  /** how long the marker of a released gamer stays for the watches to see (Go duration) */
  const markerTtl = `${Math.ceil((MARKER_INTERVALS * opts.refreshMs) / 1000)}s`;
  const keyOf = (gamer: GamerRef) => presenceHoldKey(opts.holderId, gamer.applicationId, gamer.gamerId);
  /** Logged once per outage (write-outages.ts): its first failed write, then its end. */
  const failed = (error: unknown, attempt: number, kind: PresenceWriteKind) => {
    if (outages.failed(attempt, kind) === 'opened') opts.log.warn({ err: error, bucket: names.presenceBucket }, 'presence not written; retried at the next heartbeat');
  };
  const wrote = (attempt: number, kind: PresenceWriteKind) => {
    const failedWrites = outages.wrote(attempt, kind);
    if (failedWrites !== undefined) opts.log.info({ bucket: names.presenceBucket, failedWrites }, 'presence written again');
  };

  function pump(): void {
    const writing = kv !== undefined && beatRevision !== undefined;
    while (writing && inFlight < opts.maxInFlight) {
      const write = ledger.next();
      if (!write) break;
      inFlight++;
      const attempt = outages.start();
      // a release purges the key (no earlier put left behind) with a marker that expires by itself
      const done = write.op === 'put' ? kv!.put(write.key, String(Date.now())) : kv!.purge(write.key, { ttl: markerTtl });
      const kind = write.op === 'put' ? 'put' : 'purge';
      done.then(() => {
        ledger.written(write);
        wrote(attempt, kind);
      }, (error: unknown) => {
        ledger.failed(write);
        failed(error, attempt, kind);
      }).finally(() => {
        inFlight--;
        pump();
      });
    }
    if (inFlight === 0 && (ledger.pending === 0 || !writing)) drained?.();
  }

  /**
   * The values of the heartbeat writes that failed without an answer (a timeout, a dropped
   * connection) since one was answered: any of them may have landed, and then the next
   * compare-and-set fails on this replica's own newer revision, not on a purge. Bounded: an
   * outage of more than that many heartbeats is taken for a purge when it ends.
   */
  const unansweredBeats = new Set<string>();
  const UNANSWERED_BEATS_MAX = 64;
  /**
   * After a failed compare-and-set: whether the heartbeat in the bucket is one whose answer
   * was lost ('ours': its revision is taken and nothing was purged), gone or another
   * ('purged'), or unknown for now (the read failed: decided at the next heartbeat).
   */
  async function afterConflict(bucket: KV): Promise<'ours' | 'purged' | 'unknown'> {
    if (unansweredBeats.size === 0) return 'purged';
    const attempt = outages.start();
    try {
      const entry = await bucket.get(beatKey);
      if (entry?.operation !== 'PUT' || !unansweredBeats.has(entry.string())) return 'purged';
      beatRevision = entry.revision;
      unansweredBeats.clear();
      return 'ours';
    } catch (error) {
      failed(error, attempt, 'beat');
      return 'unknown';
    }
  }

  let beating = false;
  /** settles when the heartbeat under way ends (close waits for it before its purge) */
  let beatEnded: Promise<void> = Promise.resolve();
  async function beat(): Promise<void> {
    // one at a time: two updates at one revision would look like a purge; none once closing:
    // a beat that found the key purged wrote it again after close's purge, and the stopped
    // replica looked alive for the online window (until 2026-11-29)
    if (!kv || beating || stop.signal.aborted) return;
    beating = true;
    let ended!: () => void;
    beatEnded = new Promise((resolve) => (ended = resolve));
    let purged = false;
    let lostAnswer = false;
    try {
      const now = String(Date.now());
      const attempt = outages.start();
      try {
        beatRevision = beatRevision === undefined ? await kv.put(beatKey, now) : await kv.update(beatKey, now, beatRevision);
        unansweredBeats.clear();
        wrote(attempt, 'beat');
      } catch (error) {
        if (!conflict(error)) {
          // a conflict is no failed write: the bucket answered, and afterConflict tells what
          // it holds (until 2026-11-29 the first after a bucket came back logged an outage)
          failed(error, attempt, 'beat');
          unansweredBeats.add(now);
          if (unansweredBeats.size > UNANSWERED_BEATS_MAX) unansweredBeats.delete(unansweredBeats.values().next().value!);
        } else {
          // until 2026-11-28 every conflict was taken for a purge: after a lost answer the
          // ledger forgot the keys of gamers whose delete had failed, online for good
          const found = await afterConflict(kv);
          purged = found === 'purged';
          lostAnswer = found === 'ours';
        }
      }
    } finally {
      beating = false;
      ended();
    }
    // the heartbeat that landed is a beat old: written again now, at its real revision
    if (lostAnswer) return beat();
    if (purged) {
      // our keys are gone: the heartbeat is written afresh at once, then every gamer held here
      opts.log.warn({ bucket: names.presenceBucket, holder: opts.holderId }, 'presence of this replica was purged; writing it again');
      beatRevision = undefined;
      ledger.rewriteAll();
      return beat();
    }
    ledger.retryFailed();
    pump();
  }

  const opening = (async () => {
    let warned = false;
    while (!stop.signal.aborted) {
      try {
        // binds without creating: the friendship service owns the bucket and its settings
        const bound = await new Kvm(jetstream(opts.nc, { timeout: WRITE_TIMEOUT_MS })).open(names.presenceBucket, { allow_direct: true });
        await bound.status();
        kv = bound;
        opts.log.info({ bucket: names.presenceBucket, holder: opts.holderId }, 'presence of connected gamers recorded');
        await beat();
        return;
      } catch (error) {
        if (!warned) opts.log.warn({ err: error }, 'presence bucket unreachable; connected gamers show offline until it is');
        warned = true;
        await sleep(RETRY_MS, undefined, { signal: stop.signal }).catch(() => undefined);
      }
    }
  })();
  const timer = setInterval(() => void beat(), opts.refreshMs);
  timer.unref();

  return {
    held(gamer) {
      ledger.hold(keyOf(gamer));
      pump();
    },
    released(gamer) {
      ledger.release(keyOf(gamer));
      pump();
    },
    async close() {
      clearInterval(timer);
      stop.abort();
      await opening;
      if (!kv) return;
      // the drain released every gamer: their deletes go out (bounded: NATS may be slow) ...
      if (inFlight > 0 || ledger.pending > 0) {
        const writes = new Promise<void>((resolve) => {
          drained = resolve;
          pump();
        });
        await Promise.race([writes, sleep(CLOSE_WRITES_MS, undefined, { ref: false })]);
      }
      // ... then the heartbeat, once a beat under way has ended (it writes no other after the stop):
      // a friendship replica ends whatever is left of this replica at once, and purges its keys
      await Promise.race([beatEnded, sleep(CLOSE_WRITES_MS, undefined, { ref: false })]);
      const attempt = outages.start();
      await kv.purge(beatKey, { ttl: markerTtl }).catch((error: unknown) => failed(error, attempt, 'beat'));
    },
  };
}
