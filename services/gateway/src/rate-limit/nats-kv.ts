import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream, StorageType } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { natsConnectionOptions, type NatsCredentials } from '@gfts/platform';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { FastifyBaseLogger } from 'fastify';
import { bucketName, counterTtlMs } from './window.ts';

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
  /** undefined while NATS is not (yet, or no longer) reachable */
  current(): KV | undefined;
  close(): Promise<void>;
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

  async function open(): Promise<void> {
    let warned = false;
    while (!stop.signal.aborted) {
      try {
        const conn = await connect({ ...natsConnectionOptions(opts.servers, 'gateway-rate-limit', opts.credentials), timeout: SETUP_TIMEOUT_MS });
        if (stop.signal.aborted) return void (await conn.close());
        nc = conn;
        watch(conn);
        const bucket = bucketName(opts.windowMs);
        const limits = { history: 1, ttl: counterTtlMs(opts.windowMs), storage: StorageType.Memory, replicas: opts.replicas, allow_direct: true };
        await new Kvm(jetstream(conn, { timeout: SETUP_TIMEOUT_MS })).create(bucket, limits);
        // Counter calls go through a client whose every JetStream request is bounded short.
        const counters = await new Kvm(jetstream(conn, { timeout: opts.timeoutMs })).open(bucket, { allow_direct: true });
        // The first get sets up the client's reply subscription; done here, with time to
        // spare, so the first gamer's request does not pay for it against the short bound.
        await new Kvm(jetstream(conn, { timeout: SETUP_TIMEOUT_MS })).open(bucket, { allow_direct: true }).then((warm) => warm.get('warm-up'));
        kv = counters;
        connected = true;
        opts.log.info({ bucket }, 'rate limits shared through NATS KV');
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
        }
      }
    })();
  }

  const opening = open().finally(() => attempted());
  return {
    firstAttempt,
    current: () => (connected && !stop.signal.aborted ? kv : undefined),
    async close() {
      stop.abort();
      await opening;
      await nc?.close();
    },
  };
}
