import type { Count } from './shared-counter.ts';
import { windowAt } from './window.ts';

/**
 * This replica's own counters, on the same epoch-aligned windows as the shared ones so a
 * fallback changes who counts, not what a window or Retry-After means. Bounded: past
 * `capacity` keys the one whose window began first is dropped, most likely a gamer last
 * seen in an earlier window.
 */
export class LocalCounter {
  readonly #counts = new Map<string, { index: number; count: number }>();
  readonly #capacity: number;

  constructor(capacity = 10_000) {
    this.#capacity = capacity;
  }

  count(key: string, windowMs: number, nowMs: number): Count {
    const window = windowAt(nowMs, windowMs);
    const entry = this.#counts.get(key);
    if (entry && entry.index === window.index) {
      entry.count++;
      return { current: entry.count, ttl: window.resetsInMs };
    }
    // Re-inserted so that Map order is the order windows began in.
    this.#counts.delete(key);
    if (this.#counts.size >= this.#capacity) this.#counts.delete(this.#counts.keys().next().value!);
    this.#counts.set(key, { index: window.index, count: 1 });
    return { current: 1, ttl: window.resetsInMs };
  }

  /** The @fastify/rate-limit store contract, so it can also be the only store. */
  incr(key: string, cb: (error: Error | null, result: Count) => void, timeWindow: number): void {
    cb(null, this.count(key, timeWindow, Date.now()));
  }

  child(): this {
    return this;
  }
}
