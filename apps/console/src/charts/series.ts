/** Pure data shaping for the console's charts. */

export interface Sample {
  /** epoch milliseconds */
  at: number;
  value: number;
}

export interface Point {
  at: number;
  value: number;
}

/**
 * Per-second rates between consecutive samples of a growing counter (the stats stream's
 * last sequence). A counter that went down (a new stream) restarts: no negative rate.
 */
export function ratePerSecond(samples: readonly Sample[]): Point[] {
  const points: Point[] = [];
  for (let i = 1; i < samples.length; i++) {
    const previous = samples[i - 1]!;
    const current = samples[i]!;
    const seconds = (current.at - previous.at) / 1000;
    if (seconds <= 0) continue;
    points.push({ at: current.at, value: Math.max(0, current.value - previous.value) / seconds });
  }
  return points;
}

/** Keeps the newest `max` entries. */
export function keepLast<T>(items: readonly T[], item: T, max: number): T[] {
  const next = [...items, item];
  return next.length > max ? next.slice(next.length - max) : next;
}

/**
 * Counts of timestamps per bucket over the `buckets` buckets of `bucketMs` ending at `now`
 * (the last bucket holds `now`); older timestamps fall outside the chart.
 */
export function countPerBucket(timestamps: readonly string[], now: number, bucketMs: number, buckets: number): Point[] {
  const end = Math.floor(now / bucketMs) * bucketMs + bucketMs;
  const start = end - buckets * bucketMs;
  const counts = Array.from({ length: buckets }, (_, i) => ({ at: start + i * bucketMs, value: 0 }));
  for (const text of timestamps) {
    const at = Date.parse(text);
    if (Number.isNaN(at) || at < start || at >= end) continue;
    counts[Math.floor((at - start) / bucketMs)]!.value += 1;
  }
  return counts;
}

/** A "nice" upper bound for an axis: 1, 2 or 5 times a power of ten, at least `max`. */
export function niceMax(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}
