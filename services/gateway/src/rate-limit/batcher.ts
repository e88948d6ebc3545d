import type { KV } from '@nats-io/kv';
import { incrementShared, type Count } from './shared-counter.ts';

interface Waiter {
  resolve: (count: Count) => void;
  reject: (error: unknown) => void;
}

/**
 * One counter update in flight per gamer per replica: requests of a gamer that arrive
 * while one is in flight wait and go together in the next update (+n in one CAS). A burst
 * of one gamer then costs a few round trips instead of each request racing the others for
 * the same revision, and the racers on a counter are at most the replicas.
 */
export class Batcher {
  readonly #kv: () => KV | undefined;
  readonly #queued = new Map<string, Waiter[]>();
  readonly #inFlight = new Set<string>();

  constructor(kv: () => KV | undefined) {
    this.#kv = kv;
  }

  increment(key: string, windowMs: number, max: number): Promise<Count> {
    return new Promise((resolve, reject) => {
      const queue = this.#queued.get(key);
      if (queue) queue.push({ resolve, reject });
      else this.#queued.set(key, [{ resolve, reject }]);
      if (!this.#inFlight.has(key)) void this.#flush(key, windowMs, max);
    });
  }

  async #flush(key: string, windowMs: number, max: number): Promise<void> {
    const batch = this.#queued.get(key);
    if (!batch) return;
    this.#queued.delete(key);
    this.#inFlight.add(key);
    try {
      const kv = this.#kv();
      if (!kv) throw new Error('NATS KV not connected');
      const { before, ttl } = await incrementShared(kv, key, windowMs, max, batch.length);
      // In arrival order: the first `granted` are within the budget, the rest above it.
      batch.forEach((waiter, i) => waiter.resolve({ current: before + i + 1, ttl }));
    } catch (error) {
      for (const waiter of batch) waiter.reject(error);
    } finally {
      this.#inFlight.delete(key);
      if (this.#queued.has(key)) void this.#flush(key, windowMs, max);
    }
  }
}
