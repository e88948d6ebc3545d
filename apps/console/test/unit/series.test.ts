import { describe, expect, it } from 'vitest';
import { countPerBucket, keepLast, niceMax, ratePerSecond } from '../../src/charts/series.ts';

describe('chart data', () => {
  it('turns counter samples into per-second rates, never negative', () => {
    expect(ratePerSecond([{ at: 0, value: 10 }, { at: 2_000, value: 30 }, { at: 4_000, value: 5 }, { at: 4_000, value: 9 }])).toEqual([
      { at: 2_000, value: 10 },
      { at: 4_000, value: 0 },
    ]);
    expect(ratePerSecond([{ at: 0, value: 1 }])).toEqual([]);
  });

  it('counts timestamps per bucket up to now, dropping older and later ones', () => {
    const hour = 3_600_000;
    const now = Date.parse('2026-11-23T12:30:00Z');
    const points = countPerBucket(['2026-11-23T12:10:00Z', '2026-11-23T12:59:59Z', '2026-11-23T11:00:00Z', '2026-11-23T09:00:00Z', '2026-11-23T13:00:00Z', 'garbage'], now, hour, 3);
    expect(points).toEqual([
      { at: Date.parse('2026-11-23T10:00:00Z'), value: 0 },
      { at: Date.parse('2026-11-23T11:00:00Z'), value: 1 },
      { at: Date.parse('2026-11-23T12:00:00Z'), value: 2 },
    ]);
  });

  it('keeps the newest samples and rounds axes up to 1, 2 or 5 times a power of ten', () => {
    expect(keepLast([1, 2, 3], 4, 3)).toEqual([2, 3, 4]);
    expect(keepLast([1], 2, 3)).toEqual([1, 2]);
    expect([0, 0.3, 1, 3, 7, 12, 20, 480].map(niceMax)).toEqual([1, 0.5, 1, 5, 10, 20, 20, 500]);
  });
});
