import { describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../../src/domain/model.ts';
import { completionRate, isUnlockRateRecord, unlockRates } from '../../src/domain/unlock-rates.ts';

const entry = (id: string, over: Partial<CatalogEntry> = {}): CatalogEntry => ({
  id, applicationId: 'app', name: `N${id}`, description: '', targetValue: 1, numberOfGames: 0, family: 'lifetime', applicationStatsId: 's',
  isAchievement: true, rewards: [], children: [], archived: false, createdAt: new Date(0), updatedAt: new Date(0), ...over,
});

describe('unlock rates', () => {
  it('counts whole achievements only, not tasks or a composite\'s children', () => {
    expect(isUnlockRateRecord({ isAchievement: true, parentGamerTaskId: null })).toBe(true);
    expect(isUnlockRateRecord({ isAchievement: true, parentGamerTaskId: 'parent' })).toBe(false);
    expect(isUnlockRateRecord({ isAchievement: false, parentGamerTaskId: null })).toBe(false);
  });

  it('is completed over tracked, 0 with nobody tracked, never above 1', () => {
    expect(completionRate(1, 4)).toBe(0.25);
    expect(completionRate(0, 0)).toBe(0);
    expect(completionRate(3, 0)).toBe(0);
    expect(completionRate(5, 4)).toBe(1);
  });

  it('lists every live achievement in catalog order, zero where nothing was counted', () => {
    const entries = [entry('a'), entry('t', { isAchievement: false }), entry('x', { archived: true }), entry('b')];
    const counters = new Map([['b', { completedCount: 1, trackedCount: 3 }], ['x', { completedCount: 9, trackedCount: 9 }]]);
    expect(unlockRates(entries, counters)).toEqual([
      { taskId: 'a', name: 'Na', completedCount: 0, trackedCount: 0, completionRate: 0 },
      { taskId: 'b', name: 'Nb', completedCount: 1, trackedCount: 3, completionRate: 1 / 3 },
    ]);
  });
});
