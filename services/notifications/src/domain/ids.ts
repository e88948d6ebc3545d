import { randomBytes } from 'node:crypto';

const RANDOM_BITS = 74n;
const RANDOM_MASK = (1n << RANDOM_BITS) - 1n;

/**
 * UUIDv7 ids that increase strictly within this process (RFC 9562 section 6.2, method 2:
 * within one millisecond, or when the clock steps back, the random part of the previous id
 * plus one). Notifications made by one replica therefore sort in the order they were made,
 * which the inbox's order, its cursor and the resume point rely on.
 */
export function monotonicUuidv7(clock: () => number = Date.now): () => string {
  let lastMs = -1;
  let lastRandom = 0n;
  return () => {
    const now = clock();
    if (now > lastMs) {
      lastMs = now;
      // the top bit stays clear, so about 2^73 increments fit before the millisecond is full
      lastRandom = BigInt(`0x${randomBytes(10).toString('hex')}`) & (RANDOM_MASK >> 1n);
    } else {
      lastRandom += 1n;
      if (lastRandom > RANDOM_MASK) {
        lastMs += 1;
        lastRandom = 0n;
      }
    }
    return format(lastMs, lastRandom);
  };
}

function format(ms: number, random: bigint): string {
  const randA = Number(random >> 62n) & 0xfff;
  const randB = random & ((1n << 62n) - 1n);
  const hex =
    ms.toString(16).padStart(12, '0') +
    (0x7000 | randA).toString(16).padStart(4, '0') +
    ((0b10n << 62n) | randB).toString(16).padStart(16, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The smallest UUIDv7 of millisecond `ms`: every id made from then on sorts after it. */
export function uuidv7Floor(ms: number): string {
  return format(ms, 0n);
}
