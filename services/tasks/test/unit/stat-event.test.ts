import { describe, expect, it } from 'vitest';
import { gamerTaskTree } from '../../src/domain/gamer-task.ts';
import type { CatalogEntry, GamerTaskRecord } from '../../src/domain/model.ts';
import { APPLIED_EVENTS_PRUNE_AT, gameUpdate, normaliseEvent, prunableEventIds, statTotals } from '../../src/domain/stat-event.ts';

function task(over: Partial<GamerTaskRecord> = {}): GamerTaskRecord {
  const entry: CatalogEntry = {
    id: 't1', applicationId: 'a', name: 'n', description: '', targetValue: 10, numberOfGames: 3, family: 'daily',
    applicationStatsId: 'wins', isAchievement: false, rewards: [], children: [], archived: false,
    createdAt: new Date(), updatedAt: new Date(),
  };
  let n = 0;
  const { parent } = gamerTaskTree(entry, { applicationId: 'a', gamerId: 'g', now: new Date(), expiredAt: null, idFor: () => `id${++n}` });
  return { ...parent, ...over };
}

describe('stat events', () => {
  it('sums a stat named twice in one event (one game)', () => {
    const totals = statTotals({ stats: [{ applicationStatsId: 'wins', value: 1 }, { applicationStatsId: 'kills', value: 4 }, { applicationStatsId: 'wins', value: 2 }] });
    expect([...totals]).toEqual([['wins', 3], ['kills', 4]]);
  });

  it('lower-cases ids so one event has one id', () => {
    const event = normaliseEvent({ eventId: 'ABC', applicationId: 'DEF', gamerId: 'GHI', gameId: 'Game-1', occurredAt: 'x', stats: [] });
    expect(event).toMatchObject({ eventId: 'abc', applicationId: 'def', gamerId: 'ghi', gameId: 'Game-1' });
  });

  it('applies a game to a task tied to one of the event\'s stats', () => {
    expect(gameUpdate(task(), 'e1', new Map([['wins', 4]]))).toMatchObject({ outcome: 'progressed', progress: 4, games: 1, completed: false, appliedEventIds: ['e1'] });
    expect(gameUpdate(task(), 'e1', new Map([['kills', 4]]))).toBeNull();
  });

  it('never applies an event twice, nor to a completed task or a composite parent', () => {
    expect(gameUpdate(task({ appliedEventIds: ['e1'] }), 'e1', new Map([['wins', 4]]))).toBeNull();
    expect(gameUpdate(task({ completed: true }), 'e2', new Map([['wins', 4]]))).toBeNull();
    expect(gameUpdate(task({ statKey: null }), 'e2', new Map([['wins', 4]]))).toBeNull();
  });

  it('never forgets an applied event that is not recorded as processed', () => {
    const long = Array.from({ length: APPLIED_EVENTS_PRUNE_AT + 10 }, (_, i) => `e${i}`);
    const update = gameUpdate(task({ appliedEventIds: long }), 'new', new Map([['wins', 1]]));
    expect(update?.appliedEventIds).toEqual([...long, 'new']);
    // only recorded ids may go, and only from a list past the bound
    const recorded = new Set(['e0', 'e3', 'other']);
    expect(prunableEventIds(long, recorded)).toEqual(['e0', 'e3']);
    expect(prunableEventIds(long.slice(0, APPLIED_EVENTS_PRUNE_AT), recorded)).toEqual([]);
  });
});

describe('tracked task ids', () => {
  it('are the same for the same gamer and task, different otherwise, and valid UUIDs', async () => {
    const { trackedTaskId } = await import('../../src/domain/ids.ts');
    const a = trackedTaskId('app', 'gamer', 'task');
    expect(a).toBe(trackedTaskId('app', 'gamer', 'task'));
    expect(a).not.toBe(trackedTaskId('app', 'gamer2', 'task'));
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
