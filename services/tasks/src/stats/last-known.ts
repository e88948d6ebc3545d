/**
 * How long a gauge read from NATS keeps its last value through failed reads. Past it the
 * gauge reads NaN (unknown): a pod cut off from NATS kept its last backlog for ever, and the
 * alerts take the max over pods, so one stale high value kept a lag alert firing after the
 * backlog had drained (until 2026-11-29).
 */
export const NATS_GAUGE_STALE_MS = 60_000;

/** The last value read, while it is recent enough to stand for now. */
export class LastKnown {
  private value = Number.NaN;
  private at = Number.NEGATIVE_INFINITY;

  read(value: number, now = Date.now()): void {
    this.value = value;
    this.at = now;
  }

  /** the last value, or NaN once it is older than NATS_GAUGE_STALE_MS (or none was read) */
  now(now = Date.now()): number {
    return now - this.at <= NATS_GAUGE_STALE_MS ? this.value : Number.NaN;
  }
}
