import type { Count, KnownCount } from './shared-counter.ts';
import { windowAt } from './window.ts';

interface Lease {
  /** the window the slots belong to */
  window: number;
  /** the next slot to hand out: a number of the window's shared count */
  next: number;
  /** the lease's last slot */
  last: number;
  /** slots asked for when it was taken; the next lease of the window asks for twice as many */
  size: number;
  /** the shared counter as the update that took the lease left it */
  known?: KnownCount;
}

/**
 * Slots of gamers' shared budgets this replica has taken ahead of their requests: each is a
 * number of the window's shared count, handed out here without a round trip to the store.
 * A gamer's first lease in a window asks for `first` slots (at most `cap`), and each next
 * one for twice as many as the last (4, 8, 16 … up to `cap`), so a gamer who sends a few
 * requests holds a few slots and a busy one costs one round trip per `cap` requests.
 * Bounded: past `capacity` keys the gamer whose lease was taken longest ago goes (its
 * unused slots are lost, the strict side).
 */
export class Leases {
  readonly #leases = new Map<string, Lease>();
  readonly #cap: number;
  readonly #first: number;
  readonly #capacity: number;

  /** `capacity`: RATE_LIMIT_LOCAL_KEYS_MAX (until 2026-11-28 a fixed 10,000 whatever that setting said) */
  constructor(cap: number, first: number, capacity: number) {
    this.#cap = cap;
    this.#first = Math.min(first, cap);
    this.#capacity = capacity;
  }

  /** A leased slot for `key` in the window of `nowMs`, or undefined when none is left. */
  take(key: string, windowMs: number, nowMs: number): Count | undefined {
    const window = windowAt(nowMs, windowMs);
    const lease = this.#leases.get(key);
    if (!lease || lease.window !== window.index || lease.next > lease.last) return undefined;
    return { current: lease.next++, ttl: window.resetsInMs };
  }

  /** How many slots the next lease of `key` in window `window` asks for, its waiting requests' included. */
  size(key: string, window: number): number {
    const lease = this.#leases.get(key);
    return lease && lease.window === window ? Math.min(this.#cap, lease.size * 2) : this.#first;
  }

  /** Forgets every counter remembered (the bucket was made again); the leased slots stay. */
  forgetKnown(): void {
    for (const lease of this.#leases.values()) delete lease.known;
  }

  /** The shared counter of `key` as this replica's last update of it left it, if known. */
  known(key: string): KnownCount | undefined {
    return this.#leases.get(key)?.known;
  }

  /**
   * Keeps the slots first..last (none when last < first) of a lease of `size` slots asked
   * for, and the counter as the update that took it left it.
   */
  keep(key: string, window: number, size: number, first: number, last: number, known?: KnownCount): void {
    // Re-inserted so that Map order is the order leases were taken in.
    this.#leases.delete(key);
    if (this.#leases.size >= this.#capacity) this.#leases.delete(this.#leases.keys().next().value!);
    this.#leases.set(key, { window, next: first, last, size, ...(known ? { known } : {}) });
  }
}
