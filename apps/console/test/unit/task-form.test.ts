import { TASK_FAMILIES } from '@gfts/contracts/task-families';
import { describe, expect, it } from 'vitest';
import { byFamily, createBody, emptyChild, emptyForm, formOf, patchBody } from '../../src/pages/task-form.ts';
import type { ApplicationTask } from '../../src/session.ts';

const stored: ApplicationTask = {
  id: '11111111-1111-4111-8111-111111111111', applicationId: '22222222-2222-4222-8222-222222222222', name: 'Win 3', description: '',
  targetValue: 3, numberOfGames: 0, family: 'daily', parentTaskId: null, applicationStatsId: 'wins', isAchievement: false,
  rewards: [{ id: '33333333-3333-4333-8333-333333333333', inventoryItemId: '44444444-4444-4444-8444-444444444444', quantity: 2 }], children: [],
};

describe('the catalog form', () => {
  it('sends a composite with its children inline, numbers as numbers', () => {
    const body = createBody({ ...emptyForm(), name: 'Weekly hero', family: 'weekly', applicationStatsId: 'wins', targetValue: '2', children: [{ ...emptyChild(), name: 'Kills', applicationStatsId: 'kills', targetValue: '10' }, { ...emptyChild(), name: 'Wins', applicationStatsId: 'wins' }] });
    expect(body).toMatchObject({ name: 'Weekly hero', family: 'weekly', targetValue: 2, numberOfGames: 0, children: [{ name: 'Kills', applicationStatsId: 'kills', targetValue: 10, numberOfGames: 0 }, { name: 'Wins', targetValue: 1 }] });
    expect(createBody(emptyForm())).not.toHaveProperty('children');
  });

  it('passes what is not a number through, for the API to name it', () => {
    expect(createBody({ ...emptyForm(), targetValue: 'ten' }).targetValue).toBe('ten');
  });

  it('patches only the fields an edit changed', () => {
    expect(patchBody(stored, { ...formOf(stored), targetValue: '5' })).toEqual({ targetValue: 5 });
    expect(patchBody(stored, formOf(stored))).toEqual({});
    // the service refuses a change of kind: the patch never carries one
    expect(patchBody(stored, { ...formOf(stored), isAchievement: !stored.isAchievement })).toEqual({});
    expect(patchBody(stored, { ...formOf(stored), rewards: [] })).toEqual({ rewards: [] });
  });

  it('groups top-level tasks by family in the families\' order, children under their parent', () => {
    const child = { ...stored, id: '55555555-5555-4555-8555-555555555555', parentTaskId: stored.id, family: 'lifetime' as const };
    const weekly = { ...stored, id: '66666666-6666-4666-8666-666666666666', family: 'weekly' as const, name: 'A' };
    expect(byFamily([weekly, child, stored]).map(([family, list]) => [family, list.map((t) => t.id)])).toEqual([
      ['daily', [stored.id]],
      ['weekly', [weekly.id]],
    ]);
  });

  it('shows a task of every family the contracts know: the console keeps no list of its own', () => {
    const tasks = TASK_FAMILIES.map((family, i) => ({ ...stored, id: `${i}`, family }));
    expect(byFamily(tasks).map(([family]) => family)).toEqual([...TASK_FAMILIES]);
  });
});
