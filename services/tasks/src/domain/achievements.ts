import { gamerTaskTree } from './gamer-task.ts';
import { trackedTaskId } from './ids.ts';
import type { CatalogEntry, GamerTaskRecord } from './model.ts';

/** Where an achievement moves: the entry itself, or each child of a composite. */
export function leavesOf(entry: CatalogEntry): { id: string; applicationStatsId: string }[] {
  return entry.children.length > 0 ? entry.children : [entry];
}

export interface AchievementIndex {
  /** live achievement entries with at least one leaf tied to the stat */
  byStat: Map<string, CatalogEntry[]>;
  all: CatalogEntry[];
}

/** Achievements of an application by the stats that move them (archived ones are not tracked anew). */
export function achievementIndex(entries: CatalogEntry[]): AchievementIndex {
  const all = entries.filter((e) => e.isAchievement && !e.archived);
  const byStat = new Map<string, CatalogEntry[]>();
  for (const entry of all) {
    for (const stat of new Set(leavesOf(entry).map((l) => l.applicationStatsId))) {
      const list = byStat.get(stat) ?? [];
      list.push(entry);
      byStat.set(stat, list);
    }
  }
  return { byStat, all };
}

/**
 * Achievements a gamer must be given before an event for these stats applies: those with a
 * leaf tied to one of the stats that the gamer does not hold yet. Achievements are tracked
 * for every gamer without assignment, their records created on first need.
 */
export function missingAchievements(index: AchievementIndex, stats: Iterable<string>, heldTaskIds: ReadonlySet<string>): CatalogEntry[] {
  const missing = new Map<string, CatalogEntry>();
  for (const stat of stats) {
    for (const entry of index.byStat.get(stat) ?? []) {
      if (missing.has(entry.id)) continue;
      if (leavesOf(entry).some((leaf) => leaf.applicationStatsId === stat && !heldTaskIds.has(leaf.id))) missing.set(entry.id, entry);
    }
  }
  return [...missing.values()];
}

/** Every live achievement the gamer lacks a record of (itself or one of its children). */
export function untrackedAchievements(index: AchievementIndex, heldTaskIds: ReadonlySet<string>): CatalogEntry[] {
  return index.all.filter((entry) => !heldTaskIds.has(entry.id) || entry.children.some((c) => !heldTaskIds.has(c.id)));
}

/**
 * The records that track these achievements for a gamer (parent and children), with ids
 * derived from what they track, so every replica that creates them writes the same
 * documents and the first write wins.
 */
export function achievementRecords(entries: CatalogEntry[], applicationId: string, gamerId: string, now: Date): GamerTaskRecord[] {
  return entries.flatMap((entry) => {
    const idFor = (taskId: string) => trackedTaskId(applicationId, gamerId, taskId);
    const tree = gamerTaskTree(entry, { applicationId, gamerId, now, expiredAt: null, idFor });
    return [tree.parent, ...tree.children];
  });
}
