import type { ApplicationSettings, Season } from '@gfts/contracts';
import { gamer } from '@gfts/testkit';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTasksStack, type TasksStack } from '../support/stack.ts';
import { World } from '../support/world.ts';

const HOUR = 3_600_000;

/** The wall clock of `timeZone` at `iso`: weekday, hour and minute. */
function localClock(iso: string, timeZone: string): { weekday: string; hour: number; minute: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'long', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' }).formatToParts(new Date(iso)).map((p) => [p.type, p.value]),
  );
  return { weekday: parts.weekday!.toLowerCase(), hour: Number(parts.hour), minute: Number(parts.minute) };
}

describe('application settings: reset time zone, hour and weekday', () => {
  let stack: TasksStack;
  beforeAll(async () => {
    stack = await startTasksStack();
  });
  afterAll(async () => stack?.close());

  const settingsOf = (world: World, who = world.admin) => stack.api<ApplicationSettings>('GET', `/api/v1/${world.app}/settings`, { headers: who.auth });
  const put = (world: World, body: unknown, who = world.admin) => stack.api<ApplicationSettings>('PUT', `/api/v1/${world.app}/settings`, { headers: who.auth, body });

  it('answers UTC, midnight and Monday until set, to any token of the application', async () => {
    const world = new World(stack);
    const response = await settingsOf(world, world.gamer());
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ timeZone: 'UTC', dailyResetHour: 0, weeklyResetDay: 'monday' });
  });

  it('an admin sets them (zone casing as the time-zone database writes it); every token of the application reads them', async () => {
    const world = new World(stack);
    const response = await put(world, { timeZone: 'europe/berlin', dailyResetHour: 4, weeklyResetDay: 'sunday' });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toEqual({ timeZone: 'Europe/Berlin', dailyResetHour: 4, weeklyResetDay: 'sunday' });
    expect((await settingsOf(world, world.gamer())).body).toEqual(response.body);
  });

  it('refuses a gamer (403), another application\'s admin (403) and no token (401), changing nothing', async () => {
    const world = new World(stack);
    const body = { timeZone: 'America/New_York', dailyResetHour: 6, weeklyResetDay: 'friday' };
    expect((await put(world, body, world.gamer())).status).toBe(403);
    expect((await put(world, body, world.server)).status).toBe(403);
    const foreignAdmin = gamer(randomUUID(), 'Other admin', { roles: ['admin'] });
    expect((await put(world, body, foreignAdmin)).status).toBe(403);
    expect((await settingsOf(world, foreignAdmin)).status).toBe(403);
    // whatever the body: refused before it is validated (before: 400 with the schema's errors)
    for (const who of [world.gamer(), foreignAdmin]) expect((await put(world, {}, who)).status).toBe(403);
    expect((await stack.api('PUT', `/api/v1/${world.app}/settings`, { body })).status).toBe(401);
    expect((await settingsOf(world)).body).toEqual({ timeZone: 'UTC', dailyResetHour: 0, weeklyResetDay: 'monday' });
  });

  it('answers 400 for an unknown zone, an offset, an hour or day out of range, a missing or extra field, changing nothing', async () => {
    const world = new World(stack);
    const good = { timeZone: 'Asia/Tokyo', dailyResetHour: 5, weeklyResetDay: 'tuesday' };
    expect((await put(world, good)).status).toBe(200);
    const bad = [
      { ...good, timeZone: 'Mars/Olympus_Mons' },
      { ...good, timeZone: '+01:00' },
      { ...good, timeZone: 'Europe/Berlin; drop' },
      { ...good, timeZone: '' },
      { ...good, dailyResetHour: 24 },
      { ...good, dailyResetHour: -1 },
      { ...good, dailyResetHour: 1.5 },
      { ...good, weeklyResetDay: 'funday' },
      { ...good, weeklyResetDay: 'Monday' },
      { timeZone: 'UTC', dailyResetHour: 0 },
      { ...good, extra: true },
    ];
    for (const body of bad) {
      const response = await put(world, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect((response.body as unknown as { code: string }).code).toBe('VALIDATION_FAILED');
    }
    const unknown = await put(world, { ...good, timeZone: 'Mars/Olympus_Mons' });
    expect((unknown.body as unknown as { detail: string }).detail).toMatch(/time zone/);
    expect((await settingsOf(world)).body).toEqual(good);
  });

  it('daily, weekly and monthly tasks assigned afterwards expire at the reset hour and day on the zone\'s clock', async () => {
    const world = new World(stack);
    const timeZone = 'America/New_York';
    expect((await put(world, { timeZone, dailyResetHour: 5, weeklyResetDay: 'friday' })).status).toBe(200);
    await world.createTask({ family: 'daily', name: 'Daily' });
    await world.createTask({ family: 'weekly', name: 'Weekly' });
    await world.createTask({ family: 'monthly', name: 'Monthly' });
    const ann = world.gamer();
    const before = Date.now();
    const [daily] = (await world.assign(ann, 'daily')).body;
    const [weekly] = (await world.assign(ann, 'weekly')).body;
    const [monthly] = (await world.assign(ann, 'monthly')).body;

    const dailyEnd = localClock(daily!.expiredAt!, timeZone);
    expect([dailyEnd.hour, dailyEnd.minute]).toEqual([5, 0]);
    expect(Date.parse(daily!.expiredAt!)).toBeGreaterThan(before);
    expect(Date.parse(daily!.expiredAt!) - before).toBeLessThanOrEqual(25 * HOUR);

    const weeklyEnd = localClock(weekly!.expiredAt!, timeZone);
    expect(weeklyEnd).toEqual({ weekday: 'friday', hour: 5, minute: 0 });
    expect(Date.parse(weekly!.expiredAt!) - before).toBeLessThanOrEqual(7 * 24 * HOUR + HOUR);

    const monthlyEnd = new Intl.DateTimeFormat('en-US', { timeZone, day: 'numeric', hour: 'numeric', hourCycle: 'h23' }).formatToParts(new Date(monthly!.expiredAt!));
    expect(Object.fromEntries(monthlyEnd.map((p) => [p.type, p.value]))).toMatchObject({ day: '1', hour: '05' });

    // the season end while none is set: the first day of the next quarter, 05:00 in New York
    const season = await stack.api<Season>('GET', `/api/v1/${world.app}/season`, { headers: ann.auth });
    expect(season.body.source).toBe('quarter');
    expect(localClock(season.body.endsAt, timeZone)).toMatchObject({ hour: 5, minute: 0 });
  });

  it('another application keeps its own schedule (UTC midnight)', async () => {
    const world = new World(stack);
    expect((await put(world, { timeZone: 'Asia/Kolkata', dailyResetHour: 3, weeklyResetDay: 'monday' })).status).toBe(200);
    const other = new World(stack);
    await other.createTask({ family: 'daily' });
    const [task] = (await other.assign(other.gamer(), 'daily')).body;
    expect(task!.expiredAt).toMatch(/T00:00:00\.000Z$/);
  });
});
