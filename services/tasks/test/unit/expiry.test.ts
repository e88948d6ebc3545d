import { describe, expect, it } from 'vitest';
import { endOfQuarter, expiryFor, firstOfNextMonth, isActive, nextMidnight, nextMonday, seasonEnd } from '../../src/domain/expiry.ts';

const at = (iso: string) => new Date(iso);
const iso = (d: Date | null) => d?.toISOString() ?? null;

describe('expiry dates (UTC)', () => {
  it('daily tasks expire at the next midnight', () => {
    expect(iso(nextMidnight(at('2026-05-10T13:45:00Z')))).toBe('2026-05-11T00:00:00.000Z');
    expect(iso(nextMidnight(at('2026-05-10T23:59:59.999Z')))).toBe('2026-05-11T00:00:00.000Z');
    // assigned exactly at midnight: that day's midnight has passed, the next one counts
    expect(iso(nextMidnight(at('2026-05-10T00:00:00Z')))).toBe('2026-05-11T00:00:00.000Z');
  });

  it('daily expiry crosses month and year ends', () => {
    expect(iso(nextMidnight(at('2026-01-31T08:00:00Z')))).toBe('2026-02-01T00:00:00.000Z');
    expect(iso(nextMidnight(at('2026-04-30T08:00:00Z')))).toBe('2026-05-01T00:00:00.000Z');
    expect(iso(nextMidnight(at('2026-12-31T23:00:00Z')))).toBe('2027-01-01T00:00:00.000Z');
    expect(iso(nextMidnight(at('2027-02-28T12:00:00Z')))).toBe('2027-03-01T00:00:00.000Z');
  });

  it('handles the leap day 2028-02-29', () => {
    expect(iso(nextMidnight(at('2028-02-28T12:00:00Z')))).toBe('2028-02-29T00:00:00.000Z');
    expect(iso(nextMidnight(at('2028-02-29T12:00:00Z')))).toBe('2028-03-01T00:00:00.000Z');
    expect(iso(firstOfNextMonth(at('2028-02-29T12:00:00Z')))).toBe('2028-03-01T00:00:00.000Z');
    expect(iso(firstOfNextMonth(at('2028-01-31T12:00:00Z')))).toBe('2028-02-01T00:00:00.000Z');
    // 2028-02-29 is a Tuesday: the week ends Monday 2028-03-06
    expect(iso(nextMonday(at('2028-02-29T12:00:00Z')))).toBe('2028-03-06T00:00:00.000Z');
  });

  it('weekly tasks expire at the next Monday 00:00', () => {
    // 2026-11-18 is a Wednesday
    expect(iso(nextMonday(at('2026-11-18T10:00:00Z')))).toBe('2026-11-23T00:00:00.000Z');
    // Sunday: the very next day
    expect(iso(nextMonday(at('2026-11-22T23:59:59Z')))).toBe('2026-11-23T00:00:00.000Z');
    // Saturday
    expect(iso(nextMonday(at('2026-11-21T00:00:00Z')))).toBe('2026-11-23T00:00:00.000Z');
  });

  it('a weekly task assigned on a Monday runs until the following Monday', () => {
    expect(iso(nextMonday(at('2026-11-23T00:00:00Z')))).toBe('2026-11-30T00:00:00.000Z');
    expect(iso(nextMonday(at('2026-11-23T09:30:00Z')))).toBe('2026-11-30T00:00:00.000Z');
    expect(iso(nextMonday(at('2026-11-23T23:59:59.999Z')))).toBe('2026-11-30T00:00:00.000Z');
  });

  it('weekly expiry crosses month and year ends', () => {
    // Thursday 2026-12-31 -> Monday 2027-01-04
    expect(iso(nextMonday(at('2026-12-31T18:00:00Z')))).toBe('2027-01-04T00:00:00.000Z');
    // Friday 2026-01-30 -> Monday 2026-02-02
    expect(iso(nextMonday(at('2026-01-30T18:00:00Z')))).toBe('2026-02-02T00:00:00.000Z');
  });

  it('monthly tasks expire on the first of next month, also across the year end', () => {
    expect(iso(firstOfNextMonth(at('2026-05-01T00:00:00Z')))).toBe('2026-06-01T00:00:00.000Z');
    expect(iso(firstOfNextMonth(at('2026-05-31T23:59:59Z')))).toBe('2026-06-01T00:00:00.000Z');
    expect(iso(firstOfNextMonth(at('2026-12-15T00:00:00Z')))).toBe('2027-01-01T00:00:00.000Z');
  });

  it('seasonal tasks expire at the end of the calendar quarter until an admin sets a season end', () => {
    expect(iso(endOfQuarter(at('2026-02-10T00:00:00Z')))).toBe('2026-04-01T00:00:00.000Z');
    expect(iso(endOfQuarter(at('2026-03-31T23:59:59Z')))).toBe('2026-04-01T00:00:00.000Z');
    expect(iso(endOfQuarter(at('2026-04-01T00:00:00Z')))).toBe('2026-07-01T00:00:00.000Z');
    expect(iso(endOfQuarter(at('2026-11-21T00:00:00Z')))).toBe('2027-01-01T00:00:00.000Z');
    const now = at('2026-11-21T00:00:00Z');
    expect(seasonEnd(now, null)).toEqual({ endsAt: at('2027-01-01T00:00:00Z'), source: 'quarter' });
    expect(seasonEnd(now, at('2026-12-01T00:00:00Z'))).toEqual({ endsAt: at('2026-12-01T00:00:00Z'), source: 'admin' });
    // a season end already past no longer applies
    expect(seasonEnd(now, at('2026-11-01T00:00:00Z'))).toEqual({ endsAt: at('2027-01-01T00:00:00Z'), source: 'quarter' });
  });

  it('gives each family its rule and lifetime none', () => {
    const now = at('2026-11-18T10:00:00Z');
    expect(iso(expiryFor('daily', now))).toBe('2026-11-19T00:00:00.000Z');
    expect(iso(expiryFor('weekly', now))).toBe('2026-11-23T00:00:00.000Z');
    expect(iso(expiryFor('monthly', now))).toBe('2026-12-01T00:00:00.000Z');
    expect(iso(expiryFor('seasonal', now))).toBe('2027-01-01T00:00:00.000Z');
    expect(iso(expiryFor('seasonal', now, at('2026-12-20T00:00:00Z')))).toBe('2026-12-20T00:00:00.000Z');
    expect(expiryFor('lifetime', now)).toBeNull();
  });

  it('a task is active until its expiry time is reached', () => {
    const expiry = at('2026-11-19T00:00:00Z');
    expect(isActive(expiry, at('2026-11-18T23:59:59.999Z'))).toBe(true);
    expect(isActive(expiry, expiry)).toBe(false);
    expect(isActive(null, at('2099-01-01T00:00:00Z'))).toBe(true);
  });
});
