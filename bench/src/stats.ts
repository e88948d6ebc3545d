/**
 * Pure figures math of the bench: percentiles, ratios against aims, growth factors.
 * No I/O here, so the unit tests pin the arithmetic the results depend on.
 */

/** Nearest-rank percentile (p in 0..100) of values sorted ascending; NaN when empty. */
export function percentileSorted(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  if (p <= 0) return sorted[0]!;
  if (p >= 100) return sorted[sorted.length - 1]!;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export interface LatencySummary {
  n: number;
  mean: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
}

/** Summary of latency samples (any unit; the bench uses milliseconds). */
export function summarize(values: readonly number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const mean = n === 0 ? Number.NaN : sorted.reduce((s, v) => s + v, 0) / n;
  return {
    n,
    mean,
    p50: percentileSorted(sorted, 50),
    p99: percentileSorted(sorted, 99),
    p999: percentileSorted(sorted, 99.9),
    max: n === 0 ? Number.NaN : sorted[n - 1]!,
  };
}

/** Latency of the events published in one second of a phase. */
export interface SecondLatency {
  /** whole seconds from the phase's start to the events' publication */
  second: number;
  n: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * Latency samples grouped by the second of the phase in which their event was published
 * (`at`: publication, same clock as `startMs`), in order; seconds without a sample are left
 * out. Shows whether a phase's p99 is a few stalls or spread over the whole phase.
 */
export function latencyBySecond(samples: ReadonlyArray<{ at: number; ms: number }>, startMs: number): SecondLatency[] {
  const bySecond = new Map<number, number[]>();
  for (const { at, ms } of samples) {
    const second = Math.max(0, Math.floor((at - startMs) / 1000));
    const list = bySecond.get(second);
    if (list) list.push(ms);
    else bySecond.set(second, [ms]);
  }
  return [...bySecond.keys()].sort((a, b) => a - b).map((second) => {
    const { n, p50, p99, max } = summarize(bySecond.get(second)!);
    return { second, n, p50, p99, max };
  });
}

/** One label value's series of a Prometheus histogram: cumulative bucket counts by upper bound, and the sum and count. */
export interface HistogramSeries {
  /** [upper bound, cumulative count], ascending, +Inf last */
  buckets: Array<[number, number]>;
  sum: number;
  count: number;
}

/**
 * The series of histogram `name` in Prometheus text, by the value of `label` (e.g. the tasks
 * service's gfts_stats_event_age_seconds by `stage`). Other labels are ignored.
 */
export function histogramByLabel(text: string, name: string, label: string): Map<string, HistogramSeries> {
  const out = new Map<string, HistogramSeries>();
  const of = (value: string) => {
    let series = out.get(value);
    if (!series) out.set(value, (series = { buckets: [], sum: 0, count: 0 }));
    return series;
  };
  const labelValue = (labels: string, key: string) => new RegExp(`(?:^|,)${key}="([^"]*)"`).exec(labels)?.[1];
  for (const line of text.split('\n')) {
    const m = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m || !m[1]!.startsWith(name)) continue;
    const [, metric, labels, raw] = m;
    const value = labelValue(labels!, label);
    if (value === undefined) continue;
    const n = Number(raw);
    if (metric === `${name}_bucket`) {
      const le = labelValue(labels!, 'le');
      if (le !== undefined) of(value).buckets.push([le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le), n]);
    } else if (metric === `${name}_sum`) of(value).sum = n;
    else if (metric === `${name}_count`) of(value).count = n;
  }
  for (const series of out.values()) series.buckets.sort((a, b) => a[0] - b[0]);
  return out;
}

/** What a histogram series gained between two scrapes (`before` absent: from nothing). */
export function histogramDelta(after: HistogramSeries, before: HistogramSeries | undefined): HistogramSeries {
  const earlier = new Map(before?.buckets ?? []);
  return {
    buckets: after.buckets.map(([le, n]) => [le, n - (earlier.get(le) ?? 0)]),
    sum: after.sum - (before?.sum ?? 0),
    count: after.count - (before?.count ?? 0),
  };
}

/**
 * The q-quantile (0..1) of a histogram series, interpolated linearly within its bucket as
 * Prometheus's histogram_quantile does: an estimate as coarse as the buckets. NaN when
 * empty; the highest finite bound when the quantile falls in the +Inf bucket.
 */
export function histogramQuantile(series: HistogramSeries, q: number): number {
  if (series.count <= 0 || series.buckets.length === 0) return Number.NaN;
  const rank = q * series.count;
  let lower = 0;
  let below = 0;
  for (const [le, cumulative] of series.buckets) {
    if (cumulative >= rank) {
      if (le === Number.POSITIVE_INFINITY) return lower;
      const inBucket = cumulative - below;
      return inBucket <= 0 ? le : lower + (le - lower) * ((rank - below) / inBucket);
    }
    lower = le;
    below = cumulative;
  }
  return lower;
}

/** a / b, NaN when either side is missing or b is zero. */
export function ratio(a: number | undefined, b: number | undefined): number {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return Number.NaN;
  return a / b;
}

export type Verdict = 'pass' | 'miss' | 'no data';

export interface AimCheck {
  name: string;
  /** the measured value (a ratio, a latency in ms, or a growth factor) */
  value: number;
  aim: number;
  /** 'min': value must be at least aim; 'max': at most aim */
  kind: 'min' | 'max';
  verdict: Verdict;
  detail: string;
}

export function checkAim(name: string, value: number, aim: number, kind: 'min' | 'max', detail = ''): AimCheck {
  let verdict: Verdict;
  if (!Number.isFinite(value)) verdict = 'no data';
  else verdict = (kind === 'min' ? value >= aim : value <= aim) ? 'pass' : 'miss';
  return { name, value, aim, kind, verdict, detail };
}

/**
 * How much a latency grows across a series of sizes: last / first. The aim "within 1.5×
 * from 10k to 1M" is a growth factor of at most 1.5.
 */
export function growthFactor(points: readonly { size: number; value: number }[]): number {
  const valid = points.filter((p) => Number.isFinite(p.value) && p.value > 0).sort((a, b) => a.size - b.size);
  if (valid.length < 2) return Number.NaN;
  return valid[valid.length - 1]!.value / valid[0]!.value;
}

/**
 * The exponent b of latency ≈ a·size^b fitted through the first and last point: 0 is flat
 * (an index seek), 1 is linear (a scan), between is e.g. a bounded scan plus fixed costs.
 */
export function growthExponent(points: readonly { size: number; value: number }[]): number {
  const valid = points.filter((p) => Number.isFinite(p.value) && p.value > 0 && p.size > 0).sort((a, b) => a.size - b.size);
  if (valid.length < 2) return Number.NaN;
  const first = valid[0]!;
  const last = valid[valid.length - 1]!;
  if (last.size === first.size) return Number.NaN;
  return Math.log(last.value / first.value) / Math.log(last.size / first.size);
}

/** CPU percent of one core from clock ticks consumed over a wall-clock interval. */
export function cpuPercent(ticks: number, clockTicksPerSecond: number, elapsedMs: number): number {
  if (elapsedMs <= 0) return Number.NaN;
  return (ticks / clockTicksPerSecond / (elapsedMs / 1000)) * 100;
}

/** Remaining time from progress so far: elapsed × (1 − done) / done; NaN before any progress. */
export function etaMs(done: number, elapsedMs: number): number {
  if (!(done > 0) || done > 1) return done >= 1 ? 0 : Number.NaN;
  return (elapsedMs * (1 - done)) / done;
}

/**
 * CPU milliseconds one process spent per unit of work (a request, a pair) over a phase:
 * its CPU percent of one core × the phase's seconds ÷ the units done. NaN without data.
 */
export function cpuMsPerUnit(cpuPercentOfCore: number, seconds: number, units: number): number {
  if (!Number.isFinite(cpuPercentOfCore) || !Number.isFinite(seconds) || !(units > 0)) return Number.NaN;
  return ((cpuPercentOfCore / 100) * seconds * 1000) / units;
}
