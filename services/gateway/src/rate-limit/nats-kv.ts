import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream, StorageType } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { keepSubscribed, natsConnectionOptions, type NatsCredentials } from '@gfts/platform';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { FastifyBaseLogger } from 'fastify';
import { bucketDeletedSubject, bucketName, counterTtlMs } from './window.ts';

type Logger = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

export interface SharedKvOptions {
  servers: string;
  /** the NATS user `gateway` (NATS_USER, NATS_PASSWORD); replies then use its own inbox */
  credentials: NatsCredentials;
  windowMs: number;
  /** servers holding the bucket: 1 is cheapest, 3 survives a NATS server restart */
  replicas: number;
  /** bound of every KV call; a slow store must not hold a request */
  timeoutMs: number;
  log: Logger;
}

/** The shared counters' bucket, when it can be used right now. */
export interface SharedKv {
  /** settles when the first attempt to reach the bucket has succeeded or failed */
  firstAttempt: Promise<void>;
  /** undefined while NATS is not (yet, or no longer) reachable, or the bucket is being made again */
  current(): KV | undefined;
  /**
   * A counter call failed: if it says the bucket is gone (NATS lost the memory stream in a
   * restart, or it was deleted), the bucket is made again in the background.
   */
  failed(error: unknown): void;
  close(): Promise<void>;
}

/** Whether a KV call's error says its bucket's stream is gone (not found, or nothing answers its subjects). */
export function bucketGone(error: unknown): boolean {
  const e = error as { name?: string; code?: number; api_error?: { err_code?: number }; isNoResponders?: () => boolean } | null;
  // no stream takes the subject: nats.js reports the no-responders answer of a put as JetStream
  // not enabled, and that of a direct get as a request error
  return e?.name === 'JetStreamNotEnabled' || e?.code === 10059 || e?.api_error?.err_code === 10059 || e?.isNoResponders?.() === true;
}

/** Time between attempts to reach NATS while it is down at start-up. */
const RETRY_MS = 2_000;
/** Bucket creation is rare and may take a server longer than a counter update. */
const SETUP_TIMEOUT_MS = 5_000;

/**
 * Connects in the background: the gateway starts and serves (with local limits) while NATS
 * is down, and switches to the shared bucket as soon as it is reachable. Once connected the
 * client reconnects for ever, and the bucket is withheld while disconnected, so requests do
 * not queue behind a reconnect.
 */
export function connectSharedKv(opts: SharedKvOptions): SharedKv {
  const stop = new AbortController();
  let nc: NatsConnection | undefined;
  let kv: KV | undefined;
  let connected = false;

  let attempted: () => void = () => undefined;
  const firstAttempt = new Promise<void>((resolve) => (attempted = resolve));

  /** Makes the bucket if it is missing (an existing one is bound as it is), and answers the counters' handle on it. */
  async function ensureBucket(conn: NatsConnection): Promise<KV> {
    const bucket = bucketName(opts.windowMs);
    const limits = { history: 1, ttl: counterTtlMs(opts.windowMs), storage: StorageType.Memory, replicas: opts.replicas, allow_direct: true };
    await new Kvm(jetstream(conn, { timeout: SETUP_TIMEOUT_MS })).create(bucket, limits);
    // Counter calls go through a client whose every JetStream request is bounded short.
    const counters = await new Kvm(jetstream(conn, { timeout: opts.timeoutMs })).open(bucket, { allow_direct: true });
    // The first get sets up the client's reply subscription; done here, with time to
    // spare, so the first gamer's request does not pay for it against the short bound.
    await new Kvm(jetstream(conn, { timeout: SETUP_TIMEOUT_MS })).open(bucket, { allow_direct: true }).then((warm) => warm.get('warm-up'));
    return counters;
  }

  /**
   * After a reconnect, or a counter call that found the bucket gone: the bucket is made again
   * (a NATS restart loses an R1 memory stream; until 2026-11-28 nothing made it again, and
   * limits stayed per replica until the gateway restarted). The counters are withheld
   * meanwhile (limits per replica), and tried again every RETRY_MS until it works. The new
   * handle makes the counters this replica remembered from the old bucket void (Batcher).
   */
  let repairing: Promise<void> | undefined;
  function repair(why: string): void {
    const conn = nc;
    if (!conn || repairing || stop.signal.aborted) return;
    kv = undefined;
    repairing = (async () => {
      let warned = false;
      while (!stop.signal.aborted && nc === conn) {
        try {
          kv = await ensureBucket(conn);
          opts.log.info({ bucket: bucketName(opts.windowMs), why }, 'rate-limit bucket bound again; limits shared');
          return;
        } catch (error) {
          if (!warned) opts.log.warn({ err: error, why }, 'rate-limit bucket could not be made again yet; limiting per replica until it is');
          warned = true;
          await sleep(RETRY_MS, undefined, { signal: stop.signal }).catch(() => undefined);
        }
      }
    })().finally(() => (repairing = undefined));
  }

  async function open(): Promise<void> {
    let warned = false;
    while (!stop.signal.aborted) {
      try {
        const conn = await connect({ ...natsConnectionOptions(opts.servers, 'gateway-rate-limit', opts.credentials), timeout: SETUP_TIMEOUT_MS });
        if (stop.signal.aborted) return void (await conn.close());
        nc = conn;
        watch(conn);
        watchDeletion(conn);
        const counters = await ensureBucket(conn);
        kv = counters;
        connected = true;
        opts.log.info({ bucket: bucketName(opts.windowMs) }, 'rate limits shared through NATS KV');
        attempted();
        return;
      } catch (error) {
        if (!warned) opts.log.warn({ err: error }, 'NATS KV unreachable for rate limits; limiting per replica until it is');
        warned = true;
        attempted();
        if (nc) await nc.close().catch(() => undefined);
        nc = undefined;
        await sleep(RETRY_MS, undefined, { signal: stop.signal }).catch(() => undefined);
      }
    }
  }

  function watch(conn: NatsConnection): void {
    void (async () => {
      for await (const status of conn.status()) {
        if (status.type === 'disconnect') {
          connected = false;
          opts.log.warn('NATS disconnected; rate limits are per replica until it reconnects');
        } else if (status.type === 'reconnect') {
          connected = true;
          opts.log.info('NATS reconnected; rate limits shared again');
          // a NATS restart may have lost the bucket: made again before it is used
          if (kv) repair('reconnected');
        }
      }
    })();
  }

  /**
   * The bucket deleted (an operator, or another pod's repair racing a delete): this pod makes
   * it again, or binds the one another pod made, at once. Its new handle voids the counts it
   * remembered (Batcher): a pod whose calls never failed kept them until 2026-11-29, and a
   * write from one at a revision the new bucket happened to have landed with a wrong count.
   * The advisory is core NATS: one missed (a disconnect) is covered by the reconnect's repair.
   */
  function watchDeletion(conn: NatsConnection): void {
    // refused (a NATS server on an older permission file): a deletion is seen at the next failed counter call only
    const what = 'a pod whose counter calls do not fail keeps counts from a deleted bucket';
    keepSubscribed(conn, bucketDeletedSubject(opts.windowMs), { what, log: opts.log }, () => {
      if (kv) repair('bucket deleted');
    });
  }

  const opening = open().finally(() => attempted());
  return {
    firstAttempt,
    current: () => (connected && !stop.signal.aborted ? kv : undefined),
    failed(error) {
      if (kv && bucketGone(error)) repair('bucket gone');
    },
    async close() {
      stop.abort();
      await opening;
      await repairing;
      await nc?.close();
    },
  };
}
