import { describe, expect, it } from 'vitest';
import { expiryFor } from '../../src/domain/expiry.ts';
import { canonicalTimeZone, instantOfWallTime, nextDailyReset, nextPeriodStart, nextWeeklyReset, type ResetSchedule } from '../../src/domain/reset-schedule.ts';

const at = (iso: string) => new Date(iso);
const iso = (d: Date | null) => d?.toISOString() ?? null;
const berlin = (hour: number, weeklyResetDay: ResetSchedule['weeklyResetDay'] = 'monday'): ResetSchedule => ({ timeZone: 'Europe/Berlin', dailyResetHour: hour, weeklyResetDay });
const newYork = (hour: number, weeklyResetDay: ResetSchedule['weeklyResetDay'] = 'monday'): ResetSchedule => ({ timeZone: 'America/New_York', dailyResetHour: hour, weeklyResetDay });
const HOUR = 3_600_000;

// 2026 transitions: Berlin 03-29 01:00Z (CET→CEST) and 10-25 01:00Z (CEST→CET);
// New York 03-08 07:00Z (EST→EDT) and 11-01 06:00Z (EDT→EST).
describe('daily resets in a time zone, across daylight-saving changes', () => {
  it('Berlin, spring: the reset stays at 04:00 local, the day between two resets is 23 hours', () => {
    const before = nextDailyReset(at('2026-03-27T12:00:00Z'), berlin(4));
    expect(iso(before)).toBe('2026-03-28T03:00:00.000Z'); // 04:00 CET
    const across = nextDailyReset(before, berlin(4));
    expect(iso(across)).toBe('2026-03-29T02:00:00.000Z'); // 04:00 CEST
    expect(across.getTime() - before.getTime()).toBe(23 * HOUR);
    expect(iso(nextDailyReset(across, berlin(4)))).toBe('2026-03-30T02:00:00.000Z');
  });

  it('Berlin, autumn: the reset stays at 04:00 local, the day between two resets is 25 hours', () => {
    const before = nextDailyReset(at('2026-10-23T12:00:00Z'), berlin(4));
    expect(iso(before)).toBe('2026-10-24T02:00:00.000Z'); // 04:00 CEST
    const across = nextDailyReset(before, berlin(4));
    expect(iso(across)).toBe('2026-10-25T03:00:00.000Z'); // 04:00 CET
    expect(across.getTime() - before.getTime()).toBe(25 * HOUR);
  });

  it('Berlin: a reset hour the spring change skips happens when the clock jumps; one the autumn change repeats happens once, the first time', () => {
    // 02:00 does not exist on 2026-03-29: the clock goes from 01:59:59 CET to 03:00 CEST
    expect(iso(nextDailyReset(at('2026-03-28T12:00:00Z'), berlin(2)))).toBe('2026-03-29T01:00:00.000Z');
    // 02:00 happens twice on 2026-10-25 (00:00Z in CEST, 01:00Z in CET): the first one
    expect(iso(nextDailyReset(at('2026-10-24T12:00:00Z'), berlin(2)))).toBe('2026-10-25T00:00:00.000Z');
    // and between the two, the next reset is the next day's, not the repeated hour
    expect(iso(nextDailyReset(at('2026-10-25T00:30:00Z'), berlin(2)))).toBe('2026-10-26T01:00:00.000Z');
  });

  it('New York, spring and autumn: midnight local either side of each change', () => {
    expect(iso(nextDailyReset(at('2026-03-07T12:00:00Z'), newYork(0)))).toBe('2026-03-08T05:00:00.000Z'); // 00:00 EST
    expect(iso(nextDailyReset(at('2026-03-08T05:00:00Z'), newYork(0)))).toBe('2026-03-09T04:00:00.000Z'); // 00:00 EDT, 23 h later
    expect(iso(nextDailyReset(at('2026-10-31T12:00:00Z'), newYork(0)))).toBe('2026-11-01T04:00:00.000Z'); // 00:00 EDT
    expect(iso(nextDailyReset(at('2026-11-01T04:00:00Z'), newYork(0)))).toBe('2026-11-02T05:00:00.000Z'); // 00:00 EST, 25 h later
  });

  it('New York: 02:00 on the spring day is 03:00 EDT; 01:00 on the autumn day is its first (EDT) occurrence', () => {
    expect(iso(nextDailyReset(at('2026-03-07T12:00:00Z'), newYork(2)))).toBe('2026-03-08T07:00:00.000Z');
    expect(iso(nextDailyReset(at('2026-10-31T12:00:00Z'), newYork(1)))).toBe('2026-11-01T05:00:00.000Z');
    expect(iso(nextDailyReset(at('2026-11-01T05:30:00Z'), newYork(1)))).toBe('2026-11-02T06:00:00.000Z');
  });

  it('every day of a year, in three zones (two hemispheres) and hours: strictly ahead, at most a day and an hour away, at the reset hour on the local clock', () => {
    for (const timeZone of ['Europe/Berlin', 'America/New_York', 'Australia/Sydney']) {
      for (const dailyResetHour of [0, 2, 23]) {
        const schedule: ResetSchedule = { timeZone, dailyResetHour, weeklyResetDay: 'monday' };
        const hourOf = new Intl.DateTimeFormat('en-US', { timeZone, hour: 'numeric', hourCycle: 'h23' });
        for (let t = Date.UTC(2026, 0, 1, 7, 13); t < Date.UTC(2027, 0, 1); t += 24 * HOUR) {
          const reset = nextDailyReset(new Date(t), schedule);
          expect(reset.getTime()).toBeGreaterThan(t);
          expect(reset.getTime() - t).toBeLessThanOrEqual(25 * HOUR);
          const localHour = Number(hourOf.format(reset));
          // the local hour is the reset hour, or the hour after it where the clock skipped it
          expect([dailyResetHour, (dailyResetHour + 1) % 24], `${timeZone} ${dailyResetHour} ${new Date(t).toISOString()}`).toContain(localHour);
        }
      }
    }
  }, 60_000);
});

describe('weekly, monthly and quarterly resets in a time zone', () => {
  it('weekly on the reset day at the reset hour, across the Berlin spring change', () => {
    // Wednesday 2026-03-25; Sunday 03:00 CEST exists (the first instant of summer time)
    expect(iso(nextWeeklyReset(at('2026-03-25T12:00:00Z'), berlin(3, 'sunday')))).toBe('2026-03-29T01:00:00.000Z');
    // Monday 04:00 CET before, CEST after
    expect(iso(nextWeeklyReset(at('2026-03-25T12:00:00Z'), berlin(4, 'monday')))).toBe('2026-03-30T02:00:00.000Z');
  });

  it('weekly across the New York autumn change, and a week on when today\'s reset has passed', () => {
    expect(iso(nextWeeklyReset(at('2026-10-28T12:00:00Z'), newYork(0, 'monday')))).toBe('2026-11-02T05:00:00.000Z');
    // Monday 2026-11-02 10:00 local is after that day's reset: the following Monday
    expect(iso(nextWeeklyReset(at('2026-11-02T15:00:00Z'), newYork(0, 'monday')))).toBe('2026-11-09T05:00:00.000Z');
    // Monday 2026-11-02 at 06:00 local with a 08:00 reset: today still
    expect(iso(nextWeeklyReset(at('2026-11-02T11:00:00Z'), newYork(8, 'monday')))).toBe('2026-11-02T13:00:00.000Z');
  });

  it('the local date decides the weekday: late Sunday UTC is already Monday in Berlin', () => {
    // 2026-11-22T23:30Z is Monday 00:30 CET; with a 06:00 Monday reset, today's is ahead
    expect(iso(nextWeeklyReset(at('2026-11-22T23:30:00Z'), berlin(6, 'monday')))).toBe('2026-11-23T05:00:00.000Z');
  });

  it('months and quarters start at the reset hour of their first local day', () => {
    expect(iso(nextPeriodStart(at('2026-03-15T12:00:00Z'), berlin(0), 1))).toBe('2026-03-31T22:00:00.000Z'); // 04-01 00:00 CEST
    expect(iso(nextPeriodStart(at('2026-02-10T12:00:00Z'), newYork(5), 3))).toBe('2026-04-01T09:00:00.000Z'); // 04-01 05:00 EDT
    // late on the last day in UTC, already the first in Berlin: that month's start has passed
    expect(iso(nextPeriodStart(at('2026-04-30T22:30:00Z'), berlin(0), 1))).toBe('2026-05-31T22:00:00.000Z');
  });

  it('expiryFor follows the schedule', () => {
    const now = at('2026-11-18T10:00:00Z'); // Wednesday, 05:00 in New York
    const schedule = newYork(6, 'friday');
    expect(iso(expiryFor('daily', now, null, schedule))).toBe('2026-11-18T11:00:00.000Z');
    expect(iso(expiryFor('weekly', now, null, schedule))).toBe('2026-11-20T11:00:00.000Z');
    expect(iso(expiryFor('monthly', now, null, schedule))).toBe('2026-12-01T11:00:00.000Z');
    expect(iso(expiryFor('seasonal', now, null, schedule))).toBe('2027-01-01T11:00:00.000Z');
    expect(expiryFor('lifetime', now, null, schedule)).toBeNull();
  });

  it('instantOfWallTime is exact away from transitions', () => {
    expect(iso(instantOfWallTime(2026, 6, 1, 12, 'Europe/Berlin'))).toBe('2026-07-01T10:00:00.000Z');
    expect(iso(instantOfWallTime(2026, 0, 1, 12, 'Asia/Kolkata'))).toBe('2026-01-01T06:30:00.000Z');
  });
});

describe('time zone names', () => {
  it('accepts IANA names in their canonical casing and refuses the rest', () => {
    expect(canonicalTimeZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    // aliases stay as written (ICU would rename Asia/Kolkata to Asia/Calcutta)
    expect(canonicalTimeZone('Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(canonicalTimeZone('America/Argentina/Buenos_Aires')).toBe('America/Argentina/Buenos_Aires');
    for (const bad of ['', 'Mars/Olympus_Mons', '+01:00', 'GMT+1:00', 'Europe/Berlin ', '../etc', 'Europe//Berlin', 'Europe/Berlin;x']) {
      expect(canonicalTimeZone(bad), bad).toBeNull();
    }
  });
});
