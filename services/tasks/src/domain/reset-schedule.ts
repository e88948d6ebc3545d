import type { Weekday } from '@gfts/contracts';

/**
 * When an application's periods turn over (design.md "Application settings"): at
 * `dailyResetHour`:00 local time in `timeZone` (an IANA name), weeks on `weeklyResetDay`.
 * Until an admin sets them: UTC, midnight, Monday.
 */
export interface ResetSchedule {
  timeZone: string;
  dailyResetHour: number;
  weeklyResetDay: Weekday;
}

export const UTC_SCHEDULE: ResetSchedule = { timeZone: 'UTC', dailyResetHour: 0, weeklyResetDay: 'monday' };

const WEEKDAYS: readonly Weekday[] = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** A calendar date and an hour on the wall clock of some zone (month 0-based, as Date.UTC). */
interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The wall clock of `timeZone` at `instant` (ms). */
function wallTimeAt(instant: number, timeZone: string): WallTime {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return { year: parts.year!, month: parts.month! - 1, day: parts.day!, hour: parts.hour!, minute: parts.minute! };
}

/** The wall clock read as if it were UTC: comparable, and offset = this − instant. */
const asUtc = (w: WallTime) => Date.UTC(w.year, w.month, w.day, w.hour, w.minute);

/** The zone's offset from UTC at `instant`, in ms (whole minutes; seconds-level offsets are long gone). */
function offsetAt(instant: number, timeZone: string): number {
  return asUtc(wallTimeAt(instant, timeZone)) - Math.floor(instant / 60_000) * 60_000;
}

/**
 * The first instant at which the wall clock of `timeZone` shows `year-month-day hour:00`
 * or later. Around a daylight-saving change a wall time may occur twice (autumn: the first
 * occurrence counts) or not at all (spring: the clock jumps over it, and the reset happens
 * at the jump, the first instant past that wall time).
 */
export function instantOfWallTime(year: number, month: number, day: number, hour: number, timeZone: string): Date {
  const wanted = Date.UTC(year, month, day, hour);
  // the offsets in force a day either side of the wanted wall time cover any transition near it
  const offsets = new Set([offsetAt(wanted - 86_400_000, timeZone), offsetAt(wanted, timeZone), offsetAt(wanted + 86_400_000, timeZone)]);
  const candidates = [...offsets].map((offset) => wanted - offset).filter((instant) => asUtc(wallTimeAt(instant, timeZone)) >= wanted);
  return new Date(Math.min(...candidates));
}

/** The calendar date `days` after the given one (month and year overflow as Date.UTC does). */
function addDays(date: { year: number; month: number; day: number }, days: number) {
  const d = new Date(Date.UTC(date.year, date.month, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth(), day: d.getUTCDate() };
}

const resetOn = (date: { year: number; month: number; day: number }, schedule: ResetSchedule) =>
  instantOfWallTime(date.year, date.month, date.day, schedule.dailyResetHour, schedule.timeZone);

/** The next daily reset strictly after `now`: today's at the reset hour if still ahead, else tomorrow's. */
export function nextDailyReset(now: Date, schedule: ResetSchedule): Date {
  const today = wallTimeAt(now.getTime(), schedule.timeZone);
  const todays = resetOn(today, schedule);
  return todays.getTime() > now.getTime() ? todays : resetOn(addDays(today, 1), schedule);
}

/** The next weekly reset strictly after `now`: the reset hour of the next reset day (a week on, if today's has passed). */
export function nextWeeklyReset(now: Date, schedule: ResetSchedule): Date {
  const today = wallTimeAt(now.getTime(), schedule.timeZone);
  const weekday = new Date(Date.UTC(today.year, today.month, today.day)).getUTCDay();
  const days = (WEEKDAYS.indexOf(schedule.weeklyResetDay) - weekday + 7) % 7;
  const candidate = resetOn(addDays(today, days), schedule);
  return candidate.getTime() > now.getTime() ? candidate : resetOn(addDays(today, days + 7), schedule);
}

/**
 * The next reset on the first day of a month whose number is a multiple of `everyMonths`
 * after the start of the year (1: every month; 3: quarters), strictly after `now`.
 */
export function nextPeriodStart(now: Date, schedule: ResetSchedule, everyMonths: 1 | 3): Date {
  const today = wallTimeAt(now.getTime(), schedule.timeZone);
  const periodStart = Math.floor(today.month / everyMonths) * everyMonths;
  const current = resetOn({ year: today.year, month: periodStart, day: 1 }, schedule);
  if (current.getTime() > now.getTime()) return current;
  const next = new Date(Date.UTC(today.year, periodStart + everyMonths, 1));
  return resetOn({ year: next.getUTCFullYear(), month: next.getUTCMonth(), day: 1 }, schedule);
}

/**
 * The IANA zone name to store, or null when the runtime's time-zone database (ICU, through
 * Intl) knows no such zone. The casing is the database's when only the casing differs
 * ("europe/berlin" → "Europe/Berlin"); an alias stays as written ("Asia/Kolkata", which ICU
 * would rename to its older "Asia/Calcutta"). Offsets ("+01:00") are refused: a zone is a
 * place whose offset changes with daylight saving, which is the point of naming one.
 */
export function canonicalTimeZone(name: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return null;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
  } catch {
    return null;
  }
}
