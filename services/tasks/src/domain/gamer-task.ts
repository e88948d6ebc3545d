import type { GamerTask, GamerTaskWithChildren, TaskDetail } from '@gfts/contracts';
import { isActive } from './expiry.ts';
import type { CatalogEntry, CatalogTask, GamerTaskRecord, TaskDefinition } from './model.ts';

interface TreeContext {
  applicationId: string;
  gamerId: string;
  now: Date;
  expiredAt: Date | null;
  /** the gamer task id for a catalog task: random for assignments, derived for tracked achievements */
  idFor?: (taskId: string) => string;
  /** older spelling of `idFor` for callers that only need fresh random ids (the bench seeds with it) */
  newId?: () => string;
  /** the Idempotency-Key and body of the assign writing the tree (GamerTaskRecord.assignKey) */
  assignKey?: string;
}

function idOf(ctx: TreeContext, taskId: string): string {
  if (ctx.idFor) return ctx.idFor(taskId);
  if (ctx.newId) return ctx.newId();
  throw new Error('gamerTaskTree needs idFor');
}

function detail(task: CatalogTask, applicationId: string, parentTaskId: string | null, children: CatalogTask[]): TaskDetail {
  return {
    id: task.id,
    applicationId,
    name: task.name,
    description: task.description,
    applicationStatsId: task.applicationStatsId,
    targetValue: task.targetValue,
    numberOfGames: task.numberOfGames,
    family: task.family,
    parentTaskId,
    isAchievement: task.isAchievement,
    rewards: task.rewards.map((r) => ({ inventoryItemId: r.inventoryItemId, quantity: r.quantity })),
    children: children.map((c) => ({ id: c.id })),
  };
}

function record(task: CatalogTask, ctx: TreeContext, id: string, parentGamerTaskId: string | null, detailOf: TaskDetail, composite: boolean): GamerTaskRecord {
  return {
    id,
    applicationId: ctx.applicationId,
    gamerId: ctx.gamerId,
    taskId: task.id,
    parentGamerTaskId,
    children: [],
    isAchievement: task.isAchievement,
    family: task.family,
    statKey: composite ? null : task.applicationStatsId,
    targetValue: task.targetValue,
    numberOfGames: task.numberOfGames,
    task: detailOf,
    progress: 0,
    games: 0,
    completed: false,
    completedAt: null,
    completedByEventId: null,
    claimState: 'none',
    claimStartedAt: null,
    claimedAt: null,
    appliedEventIds: [],
    createdAt: ctx.now,
    expiredAt: ctx.expiredAt,
  };
}

/**
 * The gamer tasks one catalog entry gives a gamer: the entry's own and, for a composite,
 * one per child, all expiring together. The parent records which gamer task holds which
 * child, so a half-written tree can be completed later with the same ids.
 */
export function gamerTaskTree(entry: CatalogEntry, ctx: TreeContext): { parent: GamerTaskRecord; children: GamerTaskRecord[] } {
  const composite = entry.children.length > 0;
  const parentId = idOf(ctx, entry.id);
  const parent = record(entry, ctx, parentId, null, detail(entry, ctx.applicationId, null, entry.children), composite);
  const children = entry.children.map((child) =>
    record(child, ctx, idOf(ctx, child.id), parentId, detail(child, ctx.applicationId, entry.id, []), false),
  );
  parent.children = children.map((c) => ({ taskId: c.taskId, gamerTaskId: c.id }));
  if (ctx.assignKey !== undefined) parent.assignKey = ctx.assignKey;
  return { parent, children };
}

/** The child records of a parent as they must exist, ids taken from the parent's record. */
export function childRecordsOf(parent: GamerTaskRecord, entry: CatalogEntry, now: Date): GamerTaskRecord[] {
  const ctx: TreeContext = { applicationId: parent.applicationId, gamerId: parent.gamerId, now, expiredAt: parent.expiredAt, idFor: () => '' };
  return parent.children.flatMap(({ taskId, gamerTaskId }) => {
    const child = entry.children.find((c) => c.id === taskId);
    return child ? [record(child, ctx, gamerTaskId, parent.id, detail(child, parent.applicationId, entry.id, []), false)] : [];
  });
}

/** What the stat rules read of a gamer task besides its state. */
export function definitionOf(t: TaskDefinition): TaskDefinition {
  return {
    id: t.id,
    applicationId: t.applicationId,
    gamerId: t.gamerId,
    taskId: t.taskId,
    parentGamerTaskId: t.parentGamerTaskId,
    children: t.children,
    isAchievement: t.isAchievement,
    statKey: t.statKey,
    targetValue: t.targetValue,
    numberOfGames: t.numberOfGames,
    expiredAt: t.expiredAt,
  };
}

/** 2.6 Gamer task. */
export function gamerTaskView(r: GamerTaskRecord): GamerTask {
  return {
    id: r.id,
    createdAt: r.createdAt.toISOString(),
    expiredAt: r.expiredAt ? r.expiredAt.toISOString() : null,
    progress: r.progress,
    gamesPlayed: r.games,
    completed: r.completed,
    // decided once step 1 ran: the rewards are on their way (a claim answers ALREADY_CLAIMED)
    claimed: r.claimState !== 'none',
    task: r.task,
  };
}

/**
 * The list answer: top-level gamer tasks with their child gamer tasks as `childTasks`,
 * expired ones left out, filtered on `completed` (undefined: all), oldest first.
 */
export function gamerTaskList(records: GamerTaskRecord[], now: Date, completed: boolean | undefined): GamerTaskWithChildren[] {
  const active = records.filter((r) => isActive(r.expiredAt, now));
  const byParent = new Map<string, GamerTaskRecord[]>();
  for (const r of active) {
    if (r.parentGamerTaskId === null) continue;
    const siblings = byParent.get(r.parentGamerTaskId) ?? [];
    siblings.push(r);
    byParent.set(r.parentGamerTaskId, siblings);
  }
  return active
    .filter((r) => r.parentGamerTaskId === null && (completed === undefined || r.completed === completed))
    .sort(byCreation)
    .map((r) => {
      const order = new Map(r.children.map((c, i) => [c.gamerTaskId, i]));
      const childTasks = (byParent.get(r.id) ?? []).sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0)).map(gamerTaskView);
      return { ...gamerTaskView(r), childTasks };
    });
}

function byCreation(a: GamerTaskRecord, b: GamerTaskRecord): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The `completed` query: true or false keeps those only; empty or absent, all. */
export function completedFilter(completed: boolean | '' | undefined): boolean | undefined {
  return completed === '' ? undefined : completed;
}
