// When to try again after a lost or refused connection: exponential backoff with jitter,
// bounded, so that a fleet of clients dropped at once (a restart, a deploy) comes back
// spread over time instead of in one storm.

export interface BackoffOptions {
  /** delay before the first retry, before jitter (ms) */
  initialDelayMs: number;
  /** the delay grows by this factor per failed attempt */
  multiplier: number;
  /** no delay exceeds this (ms) */
  maxDelayMs: number;
  /**
   * Share of each delay that is random, 0..1: the delay is drawn from
   * [ceiling × (1 − jitter), ceiling]. 1 is "full jitter", 0 none.
   */
  jitter: number;
  /** failed connects in a row after which the client gives up, with no more retry (Infinity: never) */
  maxAttempts: number;
  /**
   * How long a connection must stay open before the schedule starts over (ms). One that
   * the service opens and closes again at once (its store or NATS down: 1011) is a failed
   * attempt like a refused one, so the delays keep growing through an outage.
   */
  resetAfterMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = {
  initialDelayMs: 500,
  multiplier: 2,
  maxDelayMs: 30_000,
  jitter: 0.5,
  maxAttempts: Infinity,
  resetAfterMs: 5_000,
};

/** Merges partial settings over the defaults and refuses nonsense early, with a clear message. */
export function backoffOptions(partial: Partial<BackoffOptions> = {}): BackoffOptions {
  const options = { ...DEFAULT_BACKOFF, ...partial };
  const { initialDelayMs, multiplier, maxDelayMs, jitter, maxAttempts, resetAfterMs } = options;
  // 0 would make every delay 0: a reconnect loop as fast as the network refuses
  if (!(initialDelayMs > 0 && Number.isFinite(initialDelayMs))) throw new RangeError('backoff.initialDelayMs must be a finite number > 0');
  if (!(multiplier >= 1 && Number.isFinite(multiplier))) throw new RangeError('backoff.multiplier must be a finite number >= 1');
  if (!(maxDelayMs >= initialDelayMs && Number.isFinite(maxDelayMs))) throw new RangeError('backoff.maxDelayMs must be finite and >= initialDelayMs');
  if (!(jitter >= 0 && jitter <= 1)) throw new RangeError('backoff.jitter must be between 0 and 1');
  if (!(maxAttempts >= 1)) throw new RangeError('backoff.maxAttempts must be >= 1');
  if (!(resetAfterMs >= 0 && Number.isFinite(resetAfterMs))) throw new RangeError('backoff.resetAfterMs must be a finite number >= 0');
  return options;
}

/** The upper bound of the delay before retry number `attempt` (0 for the first retry). */
export function backoffCeiling(attempt: number, options: BackoffOptions): number {
  // multiplier ** attempt may overflow to Infinity: min() bounds it
  return Math.min(options.maxDelayMs, options.initialDelayMs * options.multiplier ** attempt);
}

/**
 * The delay before retry number `attempt` (0-based), which follows `attempt + 1` failed
 * connects in a row; `undefined` when those are `maxAttempts`: the client gives up instead.
 * So `maxAttempts: 1` never retries, `maxAttempts: 3` retries twice (until 2026-11-28 it
 * counted retries, one connect more than documented). `random` is injectable for tests
 * (Math.random by default).
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number = Math.random): number | undefined {
  if (attempt + 1 >= options.maxAttempts) return undefined;
  const ceiling = backoffCeiling(attempt, options);
  return Math.round(ceiling * (1 - options.jitter * random()));
}
