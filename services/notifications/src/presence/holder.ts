import { setTimeout as sleep } from 'node:timers/promises';
import { natsNames } from '@gfts/contracts';
import { jetstream } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FastifyBaseLogger } from 'fastify';
import type { GamerRef } from '../repository/inbox.ts';

type Logger = Pick<FastifyBaseLogger, 'info' | 'warn'>;

/** Time between attempts to bind the bucket while NATS, or the bucket, is not there yet. */
const RETRY_MS = 2_000;
/** A write only bounds how long its acknowledgement is awaited; no client waits on it. */
const WRITE_TIMEOUT_MS = 2_000;

export interface PresenceHolderOptions {
  nc: NatsConnection;
  prefix: string;
  /** this replica's token in the keys: `<applicationId>.<gamerId>.<holderId>` */
  holderId: string;
  /** how often the presence of every gamer held here is written again (below the bucket's max age) */
  refreshMs: number;
  log: Logger;
}

export interface PresenceHolder {
  /** the gamer's first socket on this replica opened */
  held(gamer: GamerRef): void;
  /** the gamer's last socket on this replica closed */
  released(gamer: GamerRef): void;
  /** stops refreshing and waits for the writes under way (the releases of a drain) */
  close(): Promise<void>;
}

/** The key this replica writes for a gamer: one per replica, so replicas never overwrite each other. */
export const holdKey = (gamer: GamerRef, holderId: string) => `${gamer.applicationId}.${gamer.gamerId}.${holderId}`;

/**
 * The presence of the gamers whose sockets this replica holds, in the presence bucket the
 * friendship service owns and watches (docs/friendship.md, Presence): a key per gamer and
 * replica, put when the gamer's first socket here opens, put again every
 * PRESENCE_RECORD_INTERVAL_MS while any is open, deleted when the last one closes. A
 * crashed replica's keys are not refreshed and leave with the bucket's max age (the online
 * window). Writes are fire-and-forget: NATS being slow or away costs presence freshness,
 * never a socket; failures are counted by the caller's log.
 */
export function presenceHolder(opts: PresenceHolderOptions): PresenceHolder {
  const names = natsNames(opts.prefix);
  const gamers = new Map<string, GamerRef>();
  const pending = new Set<Promise<unknown>>();
  const stop = new AbortController();
  let kv: KV | undefined;
  let failures = 0;

  const track = (write: Promise<unknown>) => {
    const p = write.catch(() => {
      if (failures++ === 0) opts.log.warn({ bucket: names.presenceBucket }, 'presence not written; retried at the next refresh');
    }).finally(() => pending.delete(p));
    pending.add(p);
  };
  const put = (key: string) => {
    if (kv) track(kv.put(key, String(Date.now())));
  };
  const refresh = () => {
    for (const key of gamers.keys()) put(key);
  };

  const opening = (async () => {
    let warned = false;
    while (!stop.signal.aborted) {
      try {
        // binds without creating: the friendship service owns the bucket and its settings
        const bound = await new Kvm(jetstream(opts.nc, { timeout: WRITE_TIMEOUT_MS })).open(names.presenceBucket, { allow_direct: true });
        await bound.status();
        kv = bound;
        opts.log.info({ bucket: names.presenceBucket }, 'presence of connected gamers recorded');
        refresh();
        return;
      } catch (error) {
        if (!warned) opts.log.warn({ err: error }, 'presence bucket unreachable; connected gamers show offline until it is');
        warned = true;
        await sleep(RETRY_MS, undefined, { signal: stop.signal }).catch(() => undefined);
      }
    }
  })();
  const timer = setInterval(refresh, opts.refreshMs);
  timer.unref();

  return {
    held(gamer) {
      const key = holdKey(gamer, opts.holderId);
      gamers.set(key, gamer);
      put(key);
    },
    released(gamer) {
      const key = holdKey(gamer, opts.holderId);
      if (!gamers.delete(key)) return;
      if (kv) track(kv.delete(key));
    },
    async close() {
      clearInterval(timer);
      stop.abort();
      await opening;
      await Promise.allSettled([...pending]);
    },
  };
}
