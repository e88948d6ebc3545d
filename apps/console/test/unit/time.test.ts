import { describe, expect, it } from 'vitest';
import { utcDateTime, utcTimeOfDay } from '../../src/time.ts';

describe('times as the console shows them', () => {
  it('are UTC to the second, labelled UTC', () => {
    expect(utcDateTime('2026-11-27T23:59:59.999Z')).toBe('2026-11-27 23:59:59 UTC');
    expect(utcDateTime('2026-11-28T01:30:00+02:00')).toBe('2026-11-27 23:30:00 UTC');
    expect(utcDateTime(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe('2026-01-02 03:04:05 UTC');
    expect(utcTimeOfDay(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe('03:04:05 UTC');
  });

  it('leave a text that is no time as it is', () => {
    expect(utcDateTime('soon')).toBe('soon');
    expect(utcTimeOfDay('soon')).toBe('soon');
  });
});
