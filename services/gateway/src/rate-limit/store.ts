import type { FastifyBaseLogger } from 'fastify';
import type { KV } from '@nats-io/kv';
import { Breaker } from './breaker.ts';
import type { LocalCounter } from './local-counter.ts';
import { Batcher } from './batcher.ts';
import { Leases } from './leases.ts';
import type { Count } from './shared-counter.ts';

type Logger = Pick<FastifyBaseLogger, 'info' | 'warn'>;
type Callback = (error: Error | null, result: Count) => void;

export type FallbackReason = 'unavailable' | 'error' | 'timeout';

export interface SharedStoreOptions {
  /** the shared bucket when usable now */
  kv: () => KV | undefined;
  /** a call to the bucket failed (the bucket may be gone: SharedKv.failed) */
  failed?: (error: unknown) => void;
  local: LocalCounter;
  timeoutMs: number;
  /** how long to limit locally after a failure before trying the shared bucket again */
  pauseMs: number;
  /** most slots a replica leases ahead for one gamer (1: a round trip per request) */
  leaseMax: number;
  /** slots a gamer's first lease in a window takes (at most leaseMax) */
  leaseFirst: number;
  /**
   * gamers whose leases a replica keeps (RATE_LIMIT_LOCAL_KEYS_MAX): an evicted lease's unused
   * slots are lost to the shared budget, so past it a gamer pays slots per request and is
   * refused before RATE_LIMIT_MAX
   */
  leaseKeysMax: number;
  log: Logger;
  onFallback: (reason: FallbackReason) => void;
}

class Timeout extends Error {}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Timeout(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * A @fastify/rate-limit store counting in the shared NATS bucket, falling back to this
 * replica's own counter whenever the bucket is unreachable, slow or failing: a NATS outage
 * loosens the limit to one budget per replica, it never delays or fails a request. The
 * local counter counts every request, so a fallback mid-window starts from what this
 * replica has already let through rather than from zero.
 */
export class SharedStore {
  readonly #opts: SharedStoreOptions;
  readonly #breaker: Breaker;
  readonly #batcher: Batcher;
  readonly #leases: Leases;

  constructor(opts: SharedStoreOptions) {
    this.#opts = opts;
    this.#breaker = new Breaker(opts.pauseMs);
    this.#leases = new Leases(opts.leaseMax, opts.leaseFirst, opts.leaseKeysMax);
    this.#batcher = new Batcher(opts.kv, this.#leases);
  }

  incr(key: string, cb: Callback, timeWindow: number, max: number): void {
    const now = Date.now();
    const local = this.#opts.local.count(key, timeWindow, now);
    // a slot already taken from the shared budget: no round trip, whatever the store's state
    const leased = this.#leases.take(key, timeWindow, now);
    if (leased) return cb(null, leased);
    if (!this.#opts.kv() || !this.#breaker.allows(Date.now())) {
      this.#opts.onFallback('unavailable');
      return cb(null, local);
    }
    within(this.#batcher.increment(key, timeWindow, max, performance.now() + this.#opts.timeoutMs), this.#opts.timeoutMs).then(
      (shared) => {
        if (this.#breaker.recover()) this.#opts.log.info('rate-limit store answering again; limits shared across replicas');
        cb(null, shared);
      },
      (error: unknown) => {
        const reason = error instanceof Timeout ? 'timeout' : 'error';
        if (reason === 'error') this.#opts.failed?.(error);
        if (this.#breaker.trip(Date.now())) this.#opts.log.warn({ err: error }, 'rate-limit store failed; limiting per replica for now');
        this.#opts.onFallback(reason);
        cb(null, local);
      },
    );
  }

  /** Per-route limits would get a child; this gateway has one global limit, so it shares the store. */
  child(): this {
    return this;
  }
}
