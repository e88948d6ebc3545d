import { describe, expect, it } from 'vitest';
import { cpuOfSecond, cpuOfSlowSeconds, secondsLine, slowSecondsCpuLine, type TimelinePoint } from '../../src/pipeline-report.ts';
import { checkAim, cpuPercent, etaMs, growthExponent, growthFactor, histogramByLabel, histogramDelta, histogramQuantile, latencyBySecond, percentileSorted, ratio, summarize } from '../../src/stats.ts';

describe('percentiles', () => {
  it('uses the nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentileSorted(values, 50)).toBe(50);
    expect(percentileSorted(values, 99)).toBe(99);
    expect(percentileSorted(values, 99.9)).toBe(100);
    expect(percentileSorted(values, 0)).toBe(1);
    expect(percentileSorted(values, 100)).toBe(100);
  });

  it('is the maximum for tiny samples and NaN for none', () => {
    expect(percentileSorted([7, 9], 99)).toBe(9);
    expect(percentileSorted([7, 9], 50)).toBe(7);
    expect(percentileSorted([], 50)).toBeNaN();
  });

  it('summarises unsorted samples', () => {
    const s = summarize([5, 1, 3, 2, 4]);
    expect(s).toMatchObject({ n: 5, mean: 3, p50: 3, p99: 5, p999: 5, max: 5 });
    expect(summarize([]).n).toBe(0);
    expect(summarize([]).p50).toBeNaN();
  });
});

describe('ratios and aims', () => {
  it('divides, or says there is no figure', () => {
    expect(ratio(700, 1000)).toBeCloseTo(0.7);
    expect(ratio(1, 0)).toBeNaN();
    expect(ratio(undefined, 3)).toBeNaN();
    expect(ratio(Number.NaN, 3)).toBeNaN();
  });

  it('passes a minimum at or above the aim and a maximum at or below it', () => {
    expect(checkAim('gw', 0.7, 0.7, 'min').verdict).toBe('pass');
    expect(checkAim('gw', 0.69, 0.7, 'min').verdict).toBe('miss');
    expect(checkAim('p99', 100, 100, 'max').verdict).toBe('pass');
    expect(checkAim('p99', 101, 100, 'max').verdict).toBe('miss');
    expect(checkAim('p99', Number.NaN, 100, 'max').verdict).toBe('no data');
  });
});

describe('growth', () => {
  it('is last over first in size order', () => {
    expect(growthFactor([{ size: 1_000_000, value: 30 }, { size: 10_000, value: 20 }, { size: 100_000, value: 25 }])).toBe(1.5);
    expect(growthFactor([{ size: 10, value: 5 }])).toBeNaN();
  });

  it('fits the exponent of a power law', () => {
    expect(growthExponent([{ size: 10_000, value: 10 }, { size: 1_000_000, value: 1000 }])).toBeCloseTo(1);
    expect(growthExponent([{ size: 10_000, value: 10 }, { size: 1_000_000, value: 10 }])).toBeCloseTo(0);
  });
});

describe('cpu and eta', () => {
  it('turns clock ticks into percent of one core', () => {
    expect(cpuPercent(150, 100, 1000)).toBe(150);
    expect(cpuPercent(10, 100, 0)).toBeNaN();
  });

  it('extrapolates the remaining time', () => {
    expect(etaMs(0.25, 1000)).toBe(3000);
    expect(etaMs(1, 1000)).toBe(0);
    expect(etaMs(0, 1000)).toBeNaN();
  });
});

describe('latency by second of publication', () => {
  it('groups samples by the second their event was published in, in order, skipping empty seconds', () => {
    const start = 5_000;
    const samples = [
      { at: 7_100, ms: 40 },
      { at: 5_000, ms: 10 },
      { at: 5_999, ms: 30 },
      { at: 4_990, ms: 5 },
      { at: 7_900, ms: 200 },
    ];
    expect(latencyBySecond(samples, start)).toEqual([
      // a publication a little before the start counts in second 0
      { second: 0, n: 3, p50: 10, p99: 30, max: 30 },
      { second: 2, n: 2, p50: 40, p99: 200, max: 200 },
    ]);
    expect(latencyBySecond([], start)).toEqual([]);
  });

  it('says how many seconds had an event over the aim, and the worst', () => {
    const seconds = latencyBySecond([{ at: 0, ms: 20 }, { at: 1_500, ms: 150 }, { at: 2_100, ms: 99.6 }, { at: 3_000, ms: 120 }], 0);
    expect(secondsLine(seconds, 100)).toBe('p99 ms by second of publication: 20 150 100 120 (median 100); 2 of 4 seconds had an event over 100 ms (the worst 150 ms, published in second 1).');
    expect(secondsLine(seconds.slice(0, 1), 100)).toBe('p99 ms by second of publication: 20 (median 20); no second had an event over 100 ms.');
  });
});

describe('CPU of the slow seconds', () => {
  const second = (s: number, max: number) => ({ second: s, n: 10, p50: max / 2, p99: max, max });
  const point = (t: number, other: number, db: number) => ({ t, published: 0, backlog: 0, processed: 0, cpu: { machinePercent: 100 + other + db, otherPercent: other, processes: { tasks: 100, 'tasks-db': db } } });
  // sampled at about 0, 1.02, 2.05, 3.01 s: second s of publication is the interval ending near s + 1
  const timeline: TimelinePoint[] = [{ t: 0, published: 0, backlog: 0, processed: 0 }, point(1.02, 5, 50), point(2.05, 60, 50), point(3.01, 10, 90)];
  const seconds = [second(0, 40), second(1, 300), second(2, 150)];

  it('matches each second with the interval that ends nearest its end, and none beyond half a second', () => {
    expect(cpuOfSecond(timeline, 0)?.otherPercent).toBe(5);
    expect(cpuOfSecond(timeline, 1)?.otherPercent).toBe(60);
    expect(cpuOfSecond(timeline, 2)?.otherPercent).toBe(10);
    expect(cpuOfSecond(timeline, 3)).toBeUndefined();
    // the first point has no interval of its own
    expect(cpuOfSecond([timeline[0]!], -1)).toBeUndefined();
  });

  it('averages the seconds with an event over the aim against the others', () => {
    const cmp = cpuOfSlowSeconds(seconds, timeline, 100)!;
    expect(cmp.slow).toEqual({ seconds: 2, machinePercent: 205, otherPercent: 35, processes: { tasks: 100, 'tasks-db': 70 } });
    expect(cmp.rest).toEqual({ seconds: 1, machinePercent: 155, otherPercent: 5, processes: { tasks: 100, 'tasks-db': 50 } });
    // without both kinds of second there is nothing to compare
    expect(cpuOfSlowSeconds(seconds, timeline, 1000)).toBeUndefined();
    expect(cpuOfSlowSeconds(seconds, [], 100)).toBeUndefined();
  });

  it('says it in one line, with each second\'s other CPU beside the p99s', () => {
    expect(slowSecondsCpuLine([...seconds, second(3, 20)], timeline, 100, ['tasks-db', 'nats'])).toBe(
      'CPU % of one core in the 2 seconds with an event over 100 ms vs the other 1: machine 205 vs 155, other 35 vs 5, tasks-db 70 vs 50, nats – vs –; other CPU by second of publication: 5 60 10 –.',
    );
  });
});

describe('a service histogram from /metrics', () => {
  const scrape = (pulled: number[], written: number[]) => [
    '# HELP gfts_stats_event_age_seconds age',
    '# TYPE gfts_stats_event_age_seconds histogram',
    ...[['pulled', pulled], ['written', written]].flatMap(([stage, counts]) => [
      ...(counts as number[]).map((n, i) => `gfts_stats_event_age_seconds_bucket{le="${['0.01', '0.1', '1', '+Inf'][i]}",stage="${stage as string}",service="tasks"} ${n}`),
      `gfts_stats_event_age_seconds_sum{stage="${stage as string}",service="tasks"} ${(counts as number[])[3]! * 0.05}`,
      `gfts_stats_event_age_seconds_count{stage="${stage as string}",service="tasks"} ${(counts as number[])[3]}`,
    ]),
    'gfts_stats_batch_events_bucket{le="1",service="tasks"} 4',
  ].join('\n');

  it('reads each stage\'s buckets, sum and count, and what they gained between two scrapes', () => {
    const before = histogramByLabel(scrape([10, 10, 10, 10], [0, 10, 10, 10]), 'gfts_stats_event_age_seconds', 'stage');
    const after = histogramByLabel(scrape([60, 110, 110, 110], [0, 50, 109, 110]), 'gfts_stats_event_age_seconds', 'stage');
    expect([...after.keys()]).toEqual(['pulled', 'written']);
    expect(after.get('written')!.buckets).toEqual([[0.01, 0], [0.1, 50], [1, 109], [Number.POSITIVE_INFINITY, 110]]);
    const gained = histogramDelta(after.get('written')!, before.get('written'));
    expect(gained.buckets).toEqual([[0.01, 0], [0.1, 40], [1, 99], [Number.POSITIVE_INFINITY, 100]]);
    expect(gained.count).toBe(100);
    expect(gained.sum).toBeCloseTo(5, 9);
    expect(histogramDelta(after.get('pulled')!, undefined).count).toBe(110);
  });

  it('estimates quantiles inside the buckets as histogram_quantile does', () => {
    const series = { buckets: [[0.01, 0], [0.1, 40], [1, 99], [Number.POSITIVE_INFINITY, 100]] as Array<[number, number]>, sum: 5, count: 100 };
    // the 50th of 100 lies 10 of the 59 into (0.1, 1]
    expect(histogramQuantile(series, 0.5)).toBeCloseTo(0.1 + 0.9 * (10 / 59), 9);
    expect(histogramQuantile(series, 0.2)).toBeCloseTo(0.01 + 0.09 * (20 / 40), 9);
    // in the +Inf bucket: the highest finite bound
    expect(histogramQuantile(series, 0.999)).toBe(1);
    expect(histogramQuantile({ buckets: [], sum: 0, count: 0 }, 0.5)).toBeNaN();
  });
});
