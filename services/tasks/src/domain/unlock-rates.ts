import type { AchievementStat } from '@gfts/contracts';
import type { CatalogEntry, GamerTaskRecord } from './model.ts';

/**
 * The records unlock rates count: a gamer's record of a whole achievement (a single one, or
 * a composite's parent), never a composite's children, which are steps towards it.
 */
export function isUnlockRateRecord(record: Pick<GamerTaskRecord, 'isAchievement' | 'parentGamerTaskId'>): boolean {
  return record.isAchievement && record.parentGamerTaskId === null;
}

/** completedCount / trackedCount, 0 while nobody is tracked; never above 1 (docs/tasks.md "Unlock rates"). */
export function completionRate(completedCount: number, trackedCount: number): number {
  if (trackedCount <= 0 || completedCount <= 0) return 0;
  return Math.min(1, completedCount / trackedCount);
}

/**
 * The unlock rates of an application: every live (not archived) achievement of the catalog,
 * in catalog order, with its counters (zero before anyone was tracked).
 */
export function unlockRates(entries: CatalogEntry[], counters: Map<string, { completedCount: number; trackedCount: number }>): AchievementStat[] {
  return entries
    .filter((e) => e.isAchievement && !e.archived)
    .map((e) => {
      const c = counters.get(e.id);
      const completedCount = Math.max(0, c?.completedCount ?? 0);
      const trackedCount = Math.max(0, c?.trackedCount ?? 0);
      return { taskId: e.id, name: e.name, completedCount, trackedCount, completionRate: completionRate(completedCount, trackedCount) };
    });
}
