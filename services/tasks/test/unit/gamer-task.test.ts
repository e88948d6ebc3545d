import { describe, expect, it } from 'vitest';
import { childRecordsOf, completedFilter, gamerTaskList, gamerTaskTree, gamerTaskView } from '../../src/domain/gamer-task.ts';
import type { CatalogEntry, CatalogTask } from '../../src/domain/model.ts';

const now = new Date('2026-11-21T10:00:00Z');
const leaf = (id: string, stat: string): CatalogTask => ({
  id, name: id, description: '', targetValue: 2, numberOfGames: 0, family: 'daily', applicationStatsId: stat, isAchievement: false, rewards: [{ id: `r-${id}`, inventoryItemId: 'item', quantity: 1 }],
});
const composite: CatalogEntry = {
  ...leaf('parent', 'wins'), applicationId: 'app', children: [leaf('c1', 'kills'), leaf('c2', 'wins')], archived: false, createdAt: now, updatedAt: now,
};

function ids() {
  let n = 0;
  return () => `g${++n}`;
}

describe('gamer task trees', () => {
  const ctx = { applicationId: 'app', gamerId: 'gamer', now, expiredAt: new Date('2026-11-22T00:00:00Z'), idFor: ids() };

  it('gives a composite one gamer task per child, expiring together, the parent moved by its children only', () => {
    const { parent, children } = gamerTaskTree(composite, ctx);
    expect(parent.statKey).toBeNull();
    expect(parent.children).toEqual(children.map((c) => ({ taskId: c.taskId, gamerTaskId: c.id })));
    expect(children.map((c) => [c.statKey, c.parentGamerTaskId, c.expiredAt])).toEqual([
      ['kills', parent.id, ctx.expiredAt],
      ['wins', parent.id, ctx.expiredAt],
    ]);
    expect(parent.task.children).toEqual([{ id: 'c1' }, { id: 'c2' }]);
    expect(children[0]!.task).toMatchObject({ id: 'c1', parentTaskId: 'parent', rewards: [{ inventoryItemId: 'item', quantity: 1 }], children: [] });
    // the same children again, with the ids the parent recorded
    expect(childRecordsOf(parent, composite, now).map((c) => c.id)).toEqual(children.map((c) => c.id));
  });

  it('shows a gamer task with the spec\'s fields', () => {
    const { parent } = gamerTaskTree(composite, ctx);
    expect(gamerTaskView(parent)).toEqual({
      id: parent.id, createdAt: now.toISOString(), expiredAt: '2026-11-22T00:00:00.000Z', progress: 0, gamesPlayed: 0, completed: false, claimed: false, task: parent.task,
    });
  });

  it('lists top-level tasks with their childTasks, filters on completed and leaves expired ones out', () => {
    const a = gamerTaskTree(composite, ctx);
    const single = gamerTaskTree({ ...composite, id: 'single', children: [] }, { ...ctx, now: new Date(now.getTime() + 1) }).parent;
    const expired = gamerTaskTree({ ...composite, id: 'old', children: [] }, { ...ctx, expiredAt: new Date(now.getTime() - 1) }).parent;
    const doneSingle = { ...single, completed: true };
    const records = [a.children[1]!, doneSingle, a.parent, a.children[0]!, expired];
    const all = gamerTaskList(records, now, undefined);
    expect(all.map((t) => t.task.id)).toEqual(['parent', 'single']);
    expect(all[0]!.childTasks.map((c) => c.task.id)).toEqual(['c1', 'c2']);
    expect(all[1]!.childTasks).toEqual([]);
    expect(gamerTaskList(records, now, true).map((t) => t.task.id)).toEqual(['single']);
    expect(gamerTaskList(records, now, false).map((t) => t.task.id)).toEqual(['parent']);
  });

  it('reads completed true|false as a filter, and empty or absent as all', () => {
    expect(completedFilter(true)).toBe(true);
    expect(completedFilter(false)).toBe(false);
    expect(completedFilter('')).toBeUndefined();
    expect(completedFilter(undefined)).toBeUndefined();
  });
});
