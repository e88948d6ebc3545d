import type { KV } from '@nats-io/kv';
import type { Leases } from './leases.ts';
import { incrementShared, type Count } from './shared-counter.ts';
import { windowAt } from './window.ts';

export interface Waiter {
  resolve: (count: Count) => void;
  reject: (error: unknown) => void;
  /**
   * performance.now() after which the request was decided without this answer (the store's
   * timeout, a timer: monotonic too). Until 2026-11-28 a wall-clock time: an NTP step forward
   * took every queued waiter for decided, and each then timed out, a false store failure.
   */
  answerBy: number;
}

/**
 * Waiters still waiting: a request decided without the store (its wait timed out, and the
 * replica's own counter answered) is not counted again, nor given a leased slot.
 */
export const waiting = (waiters: Waiter[], nowMs: number) => waiters.filter((w) => w.answerBy > nowMs);

/**
 * One counter update in flight per gamer per replica: requests of a gamer that arrive
 * while one is in flight wait and go together in the next update (+n in one CAS). A burst
 * of one gamer then costs a few round trips instead of each request racing the others for
 * the same revision, and the racers on a counter are at most the replicas. Each update also
 * takes a lease of slots beyond the waiting requests (Leases), which later requests spend
 * without a round trip, and remembers the counter it wrote, which the next update starts
 * from without reading it (incrementShared).
 */
export class Batcher {
  readonly #kv: () => KV | undefined;
  readonly #leases: Leases;
  readonly #queued = new Map<string, Waiter[]>();
  readonly #inFlight = new Set<string>();
  /** the bucket handle the remembered counters were taken from */
  #bucket: KV | undefined;

  constructor(kv: () => KV | undefined, leases: Leases) {
    this.#kv = kv;
    this.#leases = leases;
  }

  increment(key: string, windowMs: number, max: number, answerBy: number): Promise<Count> {
    return new Promise((resolve, reject) => {
      const queue = this.#queued.get(key);
      if (queue) queue.push({ resolve, reject, answerBy });
      else this.#queued.set(key, [{ resolve, reject, answerBy }]);
      if (!this.#inFlight.has(key)) void this.#flush(key, windowMs, max);
    });
  }

  async #flush(key: string, windowMs: number, max: number): Promise<void> {
    const queued = this.#queued.get(key);
    if (!queued) return;
    this.#queued.delete(key);
    const batch = waiting(queued, performance.now());
    if (batch.length === 0) return;
    this.#inFlight.add(key);
    try {
      const kv = this.#kv();
      if (!kv) throw new Error('NATS KV not connected');
      // a bucket made again: the counters remembered from the old one are not its revisions
      if (kv !== this.#bucket) {
        if (this.#bucket) this.#leases.forgetKnown();
        this.#bucket = kv;
      }
      const nowMs = Date.now();
      const size = Math.max(batch.length, this.#leases.size(key, windowAt(nowMs, windowMs).index));
      const { before, granted, ttl, window, known } = await incrementShared(kv, key, windowMs, max, batch.length, size, nowMs, this.#leases.known(key));
      // In arrival order: the first `granted` are within the budget, the rest above it.
      batch.forEach((waiter, i) => waiter.resolve({ current: before + i + 1, ttl }));
      // the bucket made again while this update ran: its count is the old bucket's (a later
      // flush has already forgotten the others), so it is not remembered (until 2026-11-29 it was)
      this.#leases.keep(key, window, size, before + batch.length + 1, before + granted, this.#bucket === kv ? known : undefined);
    } catch (error) {
      for (const waiter of batch) waiter.reject(error);
    } finally {
      this.#inFlight.delete(key);
      this.#serveQueued(key, windowMs, max);
    }
  }

  /** Requests that arrived during the update: from the new lease while it lasts, the rest in the next update. */
  #serveQueued(key: string, windowMs: number, max: number): void {
    const queued = this.#queued.get(key);
    if (!queued) return;
    const queue = waiting(queued, performance.now());
    this.#queued.set(key, queue);
    while (queue.length > 0) {
      const slot = this.#leases.take(key, windowMs, Date.now());
      if (!slot) break;
      queue.shift()!.resolve(slot);
    }
    if (queue.length === 0) this.#queued.delete(key);
    else void this.#flush(key, windowMs, max);
  }
}
