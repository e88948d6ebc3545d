import type { ApplicationTaskInput } from '@gfts/contracts';
import { describe, expect, it } from 'vitest';
import { applicationTaskView, buildCatalogEntry, catalogListView, patchCatalogEntry } from '../../src/domain/catalog.ts';
import type { CatalogEntry } from '../../src/domain/model.ts';

const APP = '0a0a0a0a-0000-4000-8000-000000000001';
const ITEM = '0b0b0b0b-0000-4000-8000-000000000002';
const ITEM2 = '0b0b0b0b-0000-4000-8000-000000000003';

function ids() {
  let n = 0;
  return () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
}
const ctx = () => ({ applicationId: APP, now: new Date('2026-11-21T00:00:00Z'), newId: ids() });

const single = (over: Partial<ApplicationTaskInput> = {}): ApplicationTaskInput => ({
  name: 'Win 3',
  targetValue: 3,
  numberOfGames: 5,
  family: 'daily',
  applicationStatsId: 'wins',
  rewards: [{ inventoryItemId: ITEM, quantity: 2 }],
  ...over,
});

function problems(input: ApplicationTaskInput): string[] {
  const result = buildCatalogEntry(input, ctx());
  return result.ok ? [] : result.problems;
}

function entry(input: ApplicationTaskInput): CatalogEntry {
  const result = buildCatalogEntry(input, ctx());
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.value;
}

describe('catalog invariants', () => {
  it('builds a single task with ids for it and its rewards', () => {
    const built = entry(single({ family: 'DAILY' as never }));
    expect(built).toMatchObject({ applicationId: APP, family: 'daily', isAchievement: false, description: '', children: [], archived: false });
    expect(built.rewards).toEqual([{ id: expect.any(String), inventoryItemId: ITEM, quantity: 2 }]);
  });

  it('builds a composite with its children inline, which inherit family and isAchievement', () => {
    const built = entry(single({
      isAchievement: true,
      family: 'lifetime',
      children: [
        { name: 'a', targetValue: 1, numberOfGames: 0, applicationStatsId: 'kills' },
        { name: 'b', targetValue: 2, numberOfGames: 0, applicationStatsId: 'wins', family: 'LIFETIME' as never, isAchievement: true },
      ],
    }));
    expect(built.children).toHaveLength(2);
    expect(built.children.every((c) => c.family === 'lifetime' && c.isAchievement)).toBe(true);
    const view = applicationTaskView(built)!;
    expect(view.children.map((c) => c.parentTaskId)).toEqual([built.id, built.id]);
    expect(applicationTaskView(built, built.children[1]!.id)).toMatchObject({ parentTaskId: built.id, children: [] });
  });

  it('needs at least two children', () => {
    expect(problems(single({ children: [{ name: 'a', targetValue: 1, numberOfGames: 0, applicationStatsId: 'x' }] }))).toContain('a composite task has at least 2 children');
    expect(problems(single({ children: [] }))).toContain('a composite task has at least 2 children');
  });

  it('refuses grandchildren', () => {
    const child = { name: 'a', targetValue: 1, numberOfGames: 0, applicationStatsId: 'x' };
    const found = problems(single({ children: [{ ...child, children: [child, child] }, child] }));
    expect(found).toContain('children[0].children: a child task cannot have children');
  });

  it('an achievement is lifetime', () => {
    expect(problems(single({ isAchievement: true, family: 'daily' }))).toContain('an achievement belongs to the lifetime family');
    expect(problems(single({ isAchievement: true, family: 'lifetime' }))).toEqual([]);
  });

  it('children follow their parent\'s family and achievement flag', () => {
    const child = { name: 'a', targetValue: 1, numberOfGames: 0, applicationStatsId: 'x' };
    expect(problems(single({ children: [{ ...child, family: 'weekly' }, child] }))).toContain('children[0].family must be the parent\'s (daily)');
    expect(problems(single({ children: [child, { ...child, isAchievement: true }] }))).toEqual(
      expect.arrayContaining(['children[1].isAchievement must be the parent\'s (false)', 'children[1].an achievement belongs to the lifetime family']),
    );
  });

  it('checks ranges, the stat and rewards', () => {
    expect(problems(single({ targetValue: 0 }))).toContain('targetValue must be an integer from 1 to 1000000000');
    expect(problems(single({ numberOfGames: -1 }))).toContain('numberOfGames must be an integer from 0 (no limit) to 100000');
    expect(problems(single({ numberOfGames: 1.5 }))).toHaveLength(1);
    expect(problems(single({ applicationStatsId: '  ' }))).toContain('applicationStatsId must name exactly one stat');
    expect(problems(single({ applicationStatsId: 'kills ' }))).toEqual(['applicationStatsId must not start or end with white space']);
    expect(problems(single({ children: [{ name: 'a', targetValue: 1, numberOfGames: 0, applicationStatsId: ' x' }, { name: 'b', targetValue: 1, numberOfGames: 0, applicationStatsId: 'y' }] }))).toEqual(['children[0].applicationStatsId must not start or end with white space']);
    expect(problems(single({ applicationStatsId: 'head shots' }))).toEqual([]);
    expect(problems(single({ name: ' ' }))).toContain('name must not be blank');
    expect(problems(single({ family: 'yearly' as never }))).toHaveLength(1);
    expect(problems(single({ rewards: [{ inventoryItemId: ITEM, quantity: 1 }, { inventoryItemId: ITEM.toUpperCase(), quantity: 2 }] }))[0]).toMatch(/repeats inventory item/);
    expect(problems(single({ rewards: [{ inventoryItemId: ITEM, quantity: 0 }] }))).toHaveLength(1);
    expect(problems(single({ parentTaskId: ITEM as never }))[0]).toMatch(/parentTaskId is set by the service/);
  });
});

describe('catalog patches', () => {
  const child = { name: 'a', targetValue: 1, numberOfGames: 0, applicationStatsId: 'x' };
  const patchCtx = { now: new Date('2026-11-22T00:00:00Z'), newId: ids() };

  it('changes fields and stamps updatedAt', () => {
    const built = entry(single());
    const result = patchCatalogEntry(built, built.id, { targetValue: 9, rewards: [{ inventoryItemId: ITEM2, quantity: 1 }] }, patchCtx);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toMatchObject({ targetValue: 9, updatedAt: patchCtx.now, rewards: [{ inventoryItemId: ITEM2, quantity: 1 }] });
  });

  it('checks the white space of the stat ids a patch writes, not those stored before the rule', () => {
    const stored = entry(single({ children: [child, child] }));
    const legacy = { ...stored, children: stored.children.map((c) => ({ ...c, applicationStatsId: 'kills ' })) };
    const renamed = patchCatalogEntry(legacy, legacy.id, { name: 'Renamed' }, patchCtx);
    expect(renamed.ok).toBe(true);
    const fixed = patchCatalogEntry(legacy, legacy.children[0]!.id, { applicationStatsId: 'kills' }, patchCtx);
    expect(fixed.ok && fixed.value.children.map((c) => c.applicationStatsId)).toEqual(['kills', 'kills ']);
    expect(patchCatalogEntry(stored, stored.id, { applicationStatsId: ' y' }, patchCtx)).toEqual({ ok: false, problems: ['applicationStatsId must not start or end with white space'] });
  });

  it('carries a parent\'s family over to its children', () => {
    const built = entry(single({ children: [child, child] }));
    const result = patchCatalogEntry(built, built.id, { family: 'WEEKLY' as never }, patchCtx);
    expect(result.ok && result.value.children.map((c) => c.family)).toEqual(['weekly', 'weekly']);
  });

  it('refuses a child family of its own and a non-lifetime achievement', () => {
    const built = entry(single({ children: [child, child] }));
    const childPatch = patchCatalogEntry(built, built.children[0]!.id, { family: 'monthly' }, patchCtx);
    expect(childPatch.ok).toBe(false);
    const childOk = patchCatalogEntry(built, built.children[0]!.id, { targetValue: 4 }, patchCtx);
    expect(childOk.ok && childOk.value.children[0]!.targetValue).toBe(4);
    const achievement = patchCatalogEntry(built, built.id, { isAchievement: true }, patchCtx);
    expect(achievement.ok).toBe(false);
    if (!achievement.ok) expect(achievement.problems).toContain('an achievement belongs to the lifetime family');
  });

  it('keeps isAchievement as created: a lifetime task does not become an achievement, nor back', () => {
    const task = entry(single({ family: 'lifetime' }));
    const toAchievement = patchCatalogEntry(task, task.id, { isAchievement: true }, patchCtx);
    expect(toAchievement.ok).toBe(false);
    if (!toAchievement.ok) expect(toAchievement.problems).toEqual(['isAchievement is fixed when a task is created (it is false); archive the task and create it anew']);
    const achievement = entry(single({ family: 'lifetime', isAchievement: true }));
    expect(patchCatalogEntry(achievement, achievement.id, { isAchievement: false }, patchCtx).ok).toBe(false);
    // the same value is no change
    const same = patchCatalogEntry(achievement, achievement.id, { isAchievement: true, targetValue: 9 }, patchCtx);
    expect(same.ok && same.value.targetValue).toBe(9);
  });
});

describe('catalog list view', () => {
  it('lists tasks or achievements, children also on their own, archived never', () => {
    const composite = entry(single({ children: [{ name: 'a', targetValue: 1, numberOfGames: 0, applicationStatsId: 'x' }, { name: 'b', targetValue: 1, numberOfGames: 0, applicationStatsId: 'y' }] }));
    const achievement = entry(single({ isAchievement: true, family: 'lifetime' }));
    const archived = { ...entry(single()), archived: true };
    const tasks = catalogListView([composite, achievement, archived], false);
    expect(tasks.map((t) => t.id)).toEqual([composite.id, ...composite.children.map((c) => c.id)]);
    expect(tasks[0]!.children).toHaveLength(2);
    expect(catalogListView([composite, achievement, archived], true).map((t) => t.id)).toEqual([achievement.id]);
  });
});
