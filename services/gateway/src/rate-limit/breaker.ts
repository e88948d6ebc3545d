/**
 * After a failed or slow shared-store call, requests skip the store for a pause instead of
 * each waiting out the timeout again: during an outage one request per pause probes it.
 */
export class Breaker {
  #openUntil = 0;
  #failing = false;
  readonly #pauseMs: number;

  constructor(pauseMs: number) {
    this.#pauseMs = pauseMs;
  }

  /** Whether the shared store may be tried at `nowMs`. */
  allows(nowMs: number): boolean {
    return nowMs >= this.#openUntil;
  }

  /** A failure at `nowMs`; true when it starts an outage (worth one log line, not one per probe). */
  trip(nowMs: number): boolean {
    const starts = !this.#failing;
    this.#failing = true;
    this.#openUntil = nowMs + this.#pauseMs;
    return starts;
  }

  /** A success; true when it ends an outage. */
  recover(): boolean {
    const ends = this.#failing;
    this.#failing = false;
    this.#openUntil = 0;
    return ends;
  }
}
