/**
 * Requests of each gamer this replica is serving at once, up to a cap
 * (RATE_LIMIT_IN_FLIGHT_MAX). The budget per window bounds how many requests a gamer makes;
 * this bounds how many they hold open, each holding a connection to a service from the
 * gateway's shared pool until its answer is taken (or SEND_TIMEOUT_MS passes).
 */
export class InFlight {
  readonly #counts = new Map<string, number>();
  readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  /** Takes one of `key`'s slots: false when it holds `max` already. */
  take(key: string): boolean {
    const held = this.#counts.get(key) ?? 0;
    if (held >= this.max) return false;
    this.#counts.set(key, held + 1);
    return true;
  }

  /** Gives back one slot `take` gave. */
  give(key: string): void {
    const held = (this.#counts.get(key) ?? 0) - 1;
    if (held > 0) this.#counts.set(key, held);
    else this.#counts.delete(key);
  }

  /** Gamers holding at least one slot. */
  get gamers(): number {
    return this.#counts.size;
  }
}
