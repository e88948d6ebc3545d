import { rateLimitBucket, rateLimitBucketDeleted } from '@gfts/contracts';
import { createHash } from 'node:crypto';

/**
 * Pure rules of the shared limiter: fixed windows aligned to the epoch, so every replica
 * agrees on which window a request falls into from its own clock, without talking to the
 * others; a counter per (gamer, window) that is only ever raised by compare-and-set.
 */

export interface Window {
  /** the window's number since the epoch; part of the counter's key */
  index: number;
  /** milliseconds until the next window starts (what Retry-After rounds up) */
  resetsInMs: number;
}

export function windowAt(nowMs: number, windowMs: number): Window {
  const index = Math.floor(nowMs / windowMs);
  return { index, resetsInMs: (index + 1) * windowMs - nowMs };
}

/**
 * The KV key of a gamer's counter in one window. Rate-limit keys carry token claims, which
 * may hold characters KV keys refuse, so they are hashed: a fixed, always-valid length.
 */
export function counterKey(limitKey: string, window: Window): string {
  return `${createHash('sha256').update(limitKey).digest('base64url')}.${window.index}`;
}

/** Counters are stored as decimal text, readable with `nats kv get`. */
export function encodeCount(count: number): Uint8Array {
  return new TextEncoder().encode(String(count));
}

/** A value that is not a count (written by hand, corrupted) counts as empty, not as an error. */
export function decodeCount(value: Uint8Array | undefined): number {
  if (!value || value.length === 0) return 0;
  const count = Number(new TextDecoder().decode(value));
  return Number.isSafeInteger(count) && count > 0 ? count : 0;
}

/**
 * Beyond the waiting requests' own slots, a lease takes at most this share of what is left
 * of a budget: slots leased to a replica and unspent there keep a gamer from at most a
 * quarter of what remained when another replica serves them, and leases shrink to single
 * slots as the budget runs out.
 */
const LEASE_SHARE = 4;

/**
 * How many slots to take when `count` of a `max` budget are spent: the `requests` arriving
 * together get one each while the budget lasts (the first `granted` pass, the rest are
 * refused), and a lease of `wanted` slots in all gets its extra ones only up to a
 * LEASE_SHARE of what is left. `next` is the count to write (no write when nothing is
 * granted, so a flood past the limit costs reads only).
 */
export function grant(count: number, max: number, requests: number, wanted = requests): { granted: number; next: number } {
  const left = Math.max(0, max - count);
  const granted = Math.min(left, Math.max(requests, Math.min(wanted, Math.floor(left / LEASE_SHARE))));
  return { granted, next: count + granted };
}

/**
 * The bucket of one window length. A KV bucket keeps the max age it was created with, so a
 * changed RATE_LIMIT_WINDOW_MS gets a bucket of its own rather than counters that expire early.
 */
export function bucketName(windowMs: number): string {
  // named in libs/contracts, whose NATS permissions give the gateway this bucket only
  return rateLimitBucket(windowMs);
}

/** The subject JetStream tells the bucket's deletion on. */
export function bucketDeletedSubject(windowMs: number): string {
  return rateLimitBucketDeleted(windowMs);
}

/**
 * How long a counter lives: its own window plus one more, so a replica whose clock is
 * behind still finds the counter of the window it believes current.
 */
export function counterTtlMs(windowMs: number): number {
  return 2 * windowMs;
}
