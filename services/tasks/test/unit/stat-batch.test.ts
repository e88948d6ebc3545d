import type { StatEvent } from '@gfts/contracts';
import { describe, expect, it } from 'vitest';
import { gamerTaskTree } from '../../src/domain/gamer-task.ts';
import type { CatalogEntry, CatalogTask, GamerTaskRecord } from '../../src/domain/model.ts';
import { planGamerBatch } from '../../src/domain/stat-batch.ts';

const now = new Date('2026-11-23T10:00:00Z');
const leaf = (id: string, stat: string, targetValue: number, numberOfGames = 0): CatalogTask => ({
  id, name: id, description: '', targetValue, numberOfGames, family: 'daily', applicationStatsId: stat, isAchievement: false, rewards: [],
});
const entry = (task: CatalogTask, children: CatalogTask[] = []): CatalogEntry => ({ ...task, applicationId: 'app', children, archived: false, createdAt: now, updatedAt: now });

function tree(e: CatalogEntry, expiredAt: Date | null = null): GamerTaskRecord[] {
  const { parent, children } = gamerTaskTree(e, { applicationId: 'app', gamerId: 'g', now, expiredAt, idFor: (taskId) => `gt-${taskId}` });
  return [parent, ...children];
}

let n = 0;
const event = (stats: Record<string, number>): StatEvent => ({
  eventId: `e${++n}`, applicationId: 'app', gamerId: 'g', gameId: 'game', occurredAt: now.toISOString(),
  stats: Object.entries(stats).map(([applicationStatsId, value]) => ({ applicationStatsId, value })),
});

describe('a gamer\'s events of one batch, applied in memory', () => {
  it('applies events in stream order and writes each task once, with the events that moved it', () => {
    const tasks = tree(entry(leaf('wins10', 'wins', 10)));
    const events = [event({ wins: 3 }), event({ kills: 9 }), event({ wins: 4 })];
    const plan = planGamerBatch(tasks, events, now);
    expect(plan.changes).toHaveLength(1);
    expect(plan.changes[0]).toMatchObject({ before: { progress: 0, games: 0 }, after: { progress: 7, games: 2, completed: false }, eventIds: [events[0]!.eventId, events[2]!.eventId] });
    expect(plan.completed).toEqual([]);
  });

  it('completes a task with the event that reaches the target, and no event moves it after', () => {
    const tasks = tree(entry(leaf('wins5', 'wins', 5)));
    const events = [event({ wins: 2 }), event({ wins: 3 }), event({ wins: 8 })];
    const plan = planGamerBatch(tasks, events, now);
    expect(plan.changes[0]!.after).toMatchObject({ progress: 5, games: 2, completed: true, completedAt: now, completedByEventId: events[1]!.eventId });
    expect(plan.changes[0]!.eventIds).toEqual([events[0]!.eventId, events[1]!.eventId]);
    expect(plan.completed.map((c) => [c.task.id, c.eventId])).toEqual([['gt-wins5', events[1]!.eventId]]);
  });

  it('follows the numberOfGames window across the batch (reset, then a fresh window)', () => {
    const tasks = tree(entry(leaf('w', 'wins', 10, 2)));
    const plan = planGamerBatch(tasks, [event({ wins: 4 }), event({ wins: 4 }), event({ wins: 6 })], now);
    // games 1-2 end at 8 < 10: reset; game 3 opens a new window at 6
    expect(plan.changes[0]!.after).toMatchObject({ progress: 6, games: 1, completed: false });
  });

  it('completes a composite parent with its last child, on the event that completed that child', () => {
    const tasks = tree(entry(leaf('p', 'wins', 1), [leaf('a', 'wins', 2), leaf('b', 'kills', 1)]));
    const first = event({ kills: 1 });
    const second = event({ wins: 2 });
    const plan = planGamerBatch(tasks, [first, second], now);
    const after = new Map(plan.changes.map((c) => [c.after.id, c.after]));
    expect(after.get('gt-p')).toMatchObject({ progress: 2, completed: true, completedByEventId: second.eventId });
    expect(plan.completed.map((c) => [c.task.id, c.eventId])).toEqual([
      ['gt-b', first.eventId],
      ['gt-a', second.eventId],
      ['gt-p', second.eventId],
    ]);
    // the parent's write starts from the state it was read in
    expect(plan.changes.find((c) => c.after.id === 'gt-p')!.before).toMatchObject({ progress: 0, completed: false });
  });

  it('counts a parent\'s progress in completed children before the last one', () => {
    const tasks = tree(entry(leaf('p', 'wins', 1), [leaf('a', 'wins', 2), leaf('b', 'kills', 1)]));
    const plan = planGamerBatch(tasks, [event({ kills: 1 })], now);
    expect(plan.changes.find((c) => c.after.id === 'gt-p')!.after).toMatchObject({ progress: 1, completed: false });
  });

  it('skips an event a task already shows as applied, and reports what that event completed earlier', () => {
    const [task] = tree(entry(leaf('w', 'wins', 3)));
    const earlier = event({ wins: 3 });
    const done: GamerTaskRecord = { ...task!, progress: 3, games: 1, completed: true, completedAt: now, completedByEventId: earlier.eventId, appliedEventIds: [earlier.eventId] };
    const plan = planGamerBatch([done], [earlier], now);
    expect(plan.changes).toEqual([]);
    expect(plan.completed).toEqual([]);
    expect(plan.completedEarlier.map((c) => [c.task.id, c.eventId])).toEqual([['gt-w', earlier.eventId]]);
  });

  it('leaves expired tasks alone', () => {
    const tasks = tree(entry(leaf('w', 'wins', 3)), new Date(now.getTime() - 1));
    expect(planGamerBatch(tasks, [event({ wins: 5 })], now).changes).toEqual([]);
  });

  it('writes games that only progressed as an increment, valid while no game of it could complete or reset', () => {
    const tasks = tree(entry(leaf('w', 'wins', 10, 5)));
    const plan = planGamerBatch(tasks, [event({ wins: 3 }), event({ wins: 4 })], now);
    // from progress p < 10 - 7 and games g <= 5 - 1 - 2, the same two games only progress
    expect(plan.changes[0]!.increment).toEqual({ progress: 7, games: 2, progressBelow: 3, gamesAtMost: 2 });
    expect(planGamerBatch(tree(entry(leaf('u', 'wins', 10))), [event({ wins: 3 })], now).changes[0]!.increment).toMatchObject({ gamesAtMost: null });
  });

  it('writes a completion, a window reset and a parent as exact states', () => {
    expect(planGamerBatch(tree(entry(leaf('w', 'wins', 2))), [event({ wins: 2 })], now).changes[0]!.increment).toBeNull();
    expect(planGamerBatch(tree(entry(leaf('w', 'wins', 9, 1))), [event({ wins: 2 })], now).changes[0]!.increment).toBeNull();
    const composite = planGamerBatch(tree(entry(leaf('p', 'wins', 1), [leaf('a', 'wins', 1), leaf('b', 'kills', 1)])), [event({ wins: 1 })], now);
    expect(composite.changes.find((c) => c.after.id === 'gt-p')!.increment).toBeNull();
  });
  it('catches a composite parent up with children another replica completed while its own write was refused', () => {
    const [parent, kill, win] = tree(entry(leaf('combo', 'kills', 1), [leaf('kill', 'kills', 1), leaf('win', 'wins', 1)]));
    const redelivered = event({ wins: 1 });
    // kill was completed elsewhere (parent progress 1), win by this event, whose parent write lost the race
    const tasks: GamerTaskRecord[] = [
      { ...parent!, progress: 1 },
      { ...kill!, progress: 1, games: 1, completed: true, completedByEventId: 'elsewhere', appliedEventIds: ['elsewhere'] },
      { ...win!, progress: 1, games: 1, completed: true, completedByEventId: redelivered.eventId, appliedEventIds: [redelivered.eventId] },
    ];
    const plan = planGamerBatch(tasks, [redelivered], now);
    expect(plan.changes.map((c) => [c.after.id, c.after.progress, c.after.completed, c.eventIds, c.increment])).toEqual([['gt-combo', 2, true, [redelivered.eventId], null]]);
    expect(plan.completed.map((c) => [c.task.id, c.eventId])).toEqual([['gt-combo', redelivered.eventId]]);
    // a parent already in step is left alone
    expect(planGamerBatch([{ ...parent!, progress: 1 }, tasks[1]!, { ...win! }], [event({ kills: 1 })], now).changes).toEqual([]);
  });

  it('never catches a composite parent up on an event its document already shows applied', () => {
    const [parent, kill, win] = tree(entry(leaf('combo', 'kills', 1), [leaf('kill', 'kills', 1), leaf('win', 'wins', 1)]));
    const redelivered = event({ kills: 1 });
    const applied = ['earlier', redelivered.eventId];
    // both children completed by earlier events; the parent behind them (data from before)
    const tasks: GamerTaskRecord[] = [
      { ...parent!, appliedEventIds: applied },
      { ...kill!, progress: 1, games: 1, completed: true, completedByEventId: 'earlier', appliedEventIds: applied },
      { ...win!, progress: 1, games: 1, completed: true, completedByEventId: 'before-that', appliedEventIds: applied },
    ];
    // only an applied event: its write would be refused and read back as landed, the parent's completion announced and counted unwritten
    const alone = planGamerBatch(tasks, [redelivered], now);
    expect(alone.changes).toEqual([]);
    expect(alone.completed).toEqual([]);
    // with a new event behind it: caught up with the new one (the applied one would make the whole write stale, every time)
    const next = event({ score: 1 });
    const caught = planGamerBatch(tasks, [redelivered, next], now);
    expect(caught.changes.map((c) => [c.after.id, c.after.progress, c.after.completed, c.eventIds])).toEqual([['gt-combo', 2, true, [next.eventId]]]);
    expect(caught.completed.map((c) => [c.task.id, c.eventId])).toEqual([['gt-combo', next.eventId]]);
    // the new one first: the batch's last event is the applied one, still not the cause
    expect(planGamerBatch(tasks, [next, redelivered], now).changes.map((c) => c.eventIds)).toEqual([[next.eventId]]);
  });
});
