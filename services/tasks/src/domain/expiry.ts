import { TaskFamily } from '@gfts/contracts';
import { nextDailyReset, nextPeriodStart, nextWeeklyReset, UTC_SCHEDULE, type ResetSchedule } from './reset-schedule.ts';

/** The next UTC midnight strictly after `now` (the daily reset while no settings are set). */
export function nextMidnight(now: Date): Date {
  return nextDailyReset(now, UTC_SCHEDULE);
}

/** The next Monday 00:00 UTC strictly after `now`; assigned on a Monday, that is a week later. */
export function nextMonday(now: Date): Date {
  return nextWeeklyReset(now, UTC_SCHEDULE);
}

/** The first day of next month at the reset hour (00:00 UTC while no settings are set). */
export function firstOfNextMonth(now: Date, schedule: ResetSchedule = UTC_SCHEDULE): Date {
  return nextPeriodStart(now, schedule, 1);
}

/** The end of the current calendar quarter: the first day of the next one, at the reset hour. */
export function endOfQuarter(now: Date, schedule: ResetSchedule = UTC_SCHEDULE): Date {
  return nextPeriodStart(now, schedule, 3);
}

/**
 * The season end seasonal tasks get: the admin-set one while it lies ahead, else (never
 * set, or already past) the end of the current calendar quarter.
 */
export function seasonEnd(now: Date, adminSeasonEnd: Date | null, schedule: ResetSchedule = UTC_SCHEDULE): { endsAt: Date; source: 'admin' | 'quarter' } {
  if (adminSeasonEnd && adminSeasonEnd.getTime() > now.getTime()) return { endsAt: adminSeasonEnd, source: 'admin' };
  return { endsAt: endOfQuarter(now, schedule), source: 'quarter' };
}

/**
 * When a gamer task of `family` assigned at `now` expires (design.md "Tasks"), in the
 * application's reset schedule (time zone, hour, weekday; UTC midnight and Monday until
 * set); null never.
 */
export function expiryFor(family: TaskFamily, now: Date, adminSeasonEnd: Date | null = null, schedule: ResetSchedule = UTC_SCHEDULE): Date | null {
  switch (family) {
    case TaskFamily.DAILY:
      return nextDailyReset(now, schedule);
    case TaskFamily.WEEKLY:
      return nextWeeklyReset(now, schedule);
    case TaskFamily.MONTHLY:
      return firstOfNextMonth(now, schedule);
    case TaskFamily.SEASONAL:
      return seasonEnd(now, adminSeasonEnd, schedule).endsAt;
    case TaskFamily.LIFETIME:
      return null;
  }
}

/** A gamer task is active until its expiry time is reached. */
export function isActive(expiredAt: Date | null, now: Date): boolean {
  return expiredAt === null || expiredAt.getTime() > now.getTime();
}
