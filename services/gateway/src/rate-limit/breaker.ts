/**
 * After a failed or slow shared-store call, requests skip the store for a pause instead of
 * each waiting out the timeout again: during an outage one request per pause probes it, and
 * the others skip it until that probe has answered. (Until 2026-11-28 every request after
 * the pause went to the store until the first failure came back: with a store that hangs,
 * each waited RATE_LIMIT_STORE_TIMEOUT_MS, about a tenth of the time.)
 */
export class Breaker {
  #openUntil = 0;
  #failing = false;
  #probing = false;
  readonly #pauseMs: number;

  constructor(pauseMs: number) {
    this.#pauseMs = pauseMs;
  }

  /**
   * Whether the shared store may be tried at `nowMs`. During an outage, true once per pause:
   * that call is the probe, and its trip() or recover() must follow.
   */
  allows(nowMs: number): boolean {
    if (!this.#failing) return true;
    if (this.#probing || nowMs < this.#openUntil) return false;
    this.#probing = true;
    return true;
  }

  /** A failure at `nowMs`; true when it starts an outage (worth one log line, not one per probe). */
  trip(nowMs: number): boolean {
    const starts = !this.#failing;
    this.#failing = true;
    this.#probing = false;
    this.#openUntil = nowMs + this.#pauseMs;
    return starts;
  }

  /** A success; true when it ends an outage. */
  recover(): boolean {
    const ends = this.#failing;
    this.#failing = false;
    this.#probing = false;
    this.#openUntil = 0;
    return ends;
  }
}
