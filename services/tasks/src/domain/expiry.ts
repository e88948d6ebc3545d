import { TaskFamily } from '@gfts/contracts';

function utcMidnight(year: number, month: number, day: number): Date {
  return new Date(Date.UTC(year, month, day));
}

/** The next UTC midnight strictly after `now`. */
export function nextMidnight(now: Date): Date {
  return utcMidnight(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
}

/** The next Monday 00:00 UTC strictly after `now`; assigned on a Monday, that is a week later. */
export function nextMonday(now: Date): Date {
  const weekday = now.getUTCDay(); // 0 Sunday .. 6 Saturday
  const days = (1 - weekday + 7) % 7 || 7;
  return utcMidnight(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + days);
}

/** The first day of next month, 00:00 UTC. */
export function firstOfNextMonth(now: Date): Date {
  return utcMidnight(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
}

/** The end of the current calendar quarter: the first day of the next one, 00:00 UTC. */
export function endOfQuarter(now: Date): Date {
  const quarterStart = Math.floor(now.getUTCMonth() / 3) * 3;
  return utcMidnight(now.getUTCFullYear(), quarterStart + 3, 1);
}

/**
 * The season end seasonal tasks get: the admin-set one while it lies ahead, else (never
 * set, or already past) the end of the current calendar quarter.
 */
export function seasonEnd(now: Date, adminSeasonEnd: Date | null): { endsAt: Date; source: 'admin' | 'quarter' } {
  if (adminSeasonEnd && adminSeasonEnd.getTime() > now.getTime()) return { endsAt: adminSeasonEnd, source: 'admin' };
  return { endsAt: endOfQuarter(now), source: 'quarter' };
}

/** When a gamer task of `family` assigned at `now` expires (design.md "Tasks"); null never. */
export function expiryFor(family: TaskFamily, now: Date, adminSeasonEnd: Date | null = null): Date | null {
  switch (family) {
    case TaskFamily.DAILY:
      return nextMidnight(now);
    case TaskFamily.WEEKLY:
      return nextMonday(now);
    case TaskFamily.MONTHLY:
      return firstOfNextMonth(now);
    case TaskFamily.SEASONAL:
      return seasonEnd(now, adminSeasonEnd).endsAt;
    case TaskFamily.LIFETIME:
      return null;
  }
}

/** A gamer task is active until its expiry time is reached. */
export function isActive(expiredAt: Date | null, now: Date): boolean {
  return expiredAt === null || expiredAt.getTime() > now.getTime();
}
