import {
  TaskFamily,
  TaskLimits,
  type ApplicationTask,
  type ApplicationTaskChild,
  type ApplicationTaskChildInput,
  type ApplicationTaskInput,
  type ApplicationTaskPatch,
  type RewardItem,
} from '@gfts/contracts';
import { isTaskFamily, normaliseFamily } from './family.ts';
import type { CatalogEntry, CatalogTask, FlatTask } from './model.ts';

export type Validated<T> = { ok: true; value: T } | { ok: false; problems: string[] };

interface BuildContext {
  applicationId: string;
  now: Date;
  newId: () => string;
}

function isIntegerIn(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/**
 * A stat id a request gives must not start or end with white space: ids match events byte
 * for byte, so "kills " would take no "kills" event, silently. Checked on what a request
 * writes only, so an entry stored before the rule can still be edited (and its ids fixed).
 */
function paddedStatIds(tasks: { applicationStatsId?: unknown }[], where: (index: number) => string): string[] {
  return tasks.flatMap((task, index) =>
    typeof task.applicationStatsId === 'string' && task.applicationStatsId.trim() !== task.applicationStatsId && task.applicationStatsId.trim().length > 0
      ? [`${where(index)}applicationStatsId must not start or end with white space`]
      : [],
  );
}

/** The invariants every task must hold, whatever request produced it. */
function taskProblems(task: CatalogTask, where: string): string[] {
  const problems: string[] = [];
  if (typeof task.name !== 'string' || task.name.trim().length === 0) problems.push(`${where}name must not be blank`);
  if (!isTaskFamily(task.family)) problems.push(`${where}family must be one of ${Object.values(TaskFamily).join(', ')}`);
  if (!isIntegerIn(task.targetValue, 1, TaskLimits.TARGET_MAX)) problems.push(`${where}targetValue must be an integer from 1 to ${TaskLimits.TARGET_MAX}`);
  if (!isIntegerIn(task.numberOfGames, 0, TaskLimits.GAMES_MAX)) problems.push(`${where}numberOfGames must be an integer from 0 (no limit) to ${TaskLimits.GAMES_MAX}`);
  if (typeof task.applicationStatsId !== 'string' || task.applicationStatsId.trim().length === 0) {
    problems.push(`${where}applicationStatsId must name exactly one stat`);
  } else if (!task.applicationStatsId.isWellFormed()) {
    // a lone surrogate (a JSON escape like \ud83d alone) is stored as U+FFFD: no event would match it
    problems.push(`${where}applicationStatsId must be well-formed Unicode (it holds a lone surrogate)`);
  }
  if (task.isAchievement && task.family !== TaskFamily.LIFETIME) problems.push(`${where}an achievement belongs to the lifetime family`);
  if (task.rewards.length > TaskLimits.REWARDS_MAX) problems.push(`${where}rewards has at most ${TaskLimits.REWARDS_MAX} entries`);
  const seen = new Set<string>();
  task.rewards.forEach((reward, index) => {
    if (!isIntegerIn(reward.quantity, 1, TaskLimits.QUANTITY_MAX)) problems.push(`${where}rewards[${index}].quantity must be an integer from 1 to ${TaskLimits.QUANTITY_MAX}`);
    const item = reward.inventoryItemId.toLowerCase();
    if (seen.has(item)) problems.push(`${where}rewards[${index}] repeats inventory item ${item}; give one entry with the total quantity`);
    seen.add(item);
  });
  return problems;
}

/** Every invariant of a top-level entry: its own, its children's, and the tree's. */
export function entryProblems(entry: CatalogEntry): string[] {
  const problems = taskProblems(entry, '');
  if (entry.children.length === 1) problems.push(`a composite task has at least ${TaskLimits.CHILDREN_MIN} children`);
  if (entry.children.length > TaskLimits.CHILDREN_MAX) problems.push(`a composite task has at most ${TaskLimits.CHILDREN_MAX} children`);
  entry.children.forEach((child, index) => {
    const where = `children[${index}].`;
    problems.push(...taskProblems(child, where));
    if (child.family !== entry.family) problems.push(`${where}family must be the parent's (${entry.family})`);
    if (child.isAchievement !== entry.isAchievement) problems.push(`${where}isAchievement must be the parent's (${entry.isAchievement})`);
  });
  return problems;
}

function rewardsOf(items: RewardItem[] | undefined, newId: () => string) {
  return (items ?? []).map((r) => ({ id: newId(), inventoryItemId: r.inventoryItemId.toLowerCase(), quantity: r.quantity }));
}

/**
 * Turns a create request into a catalog entry, or names every broken invariant: at least
 * two children, no grandchildren, an achievement is lifetime, a known family, integer
 * ranges, one stat per task, one reward entry per inventory item.
 */
export function buildCatalogEntry(input: ApplicationTaskInput, ctx: BuildContext): Validated<CatalogEntry> {
  const problems: string[] = [];
  const family = normaliseFamily(input.family) as TaskFamily;
  const isAchievement = input.isAchievement ?? false;
  if (input.parentTaskId != null) problems.push('parentTaskId is set by the service: create children inline in their parent\'s children');
  const childInputs: ApplicationTaskChildInput[] = input.children ?? [];
  if (input.children !== undefined && childInputs.length < TaskLimits.CHILDREN_MIN) problems.push(`a composite task has at least ${TaskLimits.CHILDREN_MIN} children`);
  const children: CatalogTask[] = childInputs.map((child, index) => {
    const where = `children[${index}].`;
    if (child.children !== undefined) problems.push(`${where}children: a child task cannot have children`);
    if (child.parentTaskId != null) problems.push(`${where}parentTaskId is set by the service`);
    const childFamily = child.family === undefined ? family : (normaliseFamily(child.family) as TaskFamily);
    return {
      id: ctx.newId(),
      name: child.name,
      description: child.description ?? '',
      targetValue: child.targetValue,
      numberOfGames: child.numberOfGames,
      family: childFamily,
      applicationStatsId: child.applicationStatsId,
      isAchievement: child.isAchievement ?? isAchievement,
      rewards: rewardsOf(child.rewards, ctx.newId),
    };
  });
  const entry: CatalogEntry = {
    id: ctx.newId(),
    applicationId: ctx.applicationId,
    name: input.name,
    description: input.description ?? '',
    targetValue: input.targetValue,
    numberOfGames: input.numberOfGames,
    family,
    applicationStatsId: input.applicationStatsId,
    isAchievement,
    rewards: rewardsOf(input.rewards, ctx.newId),
    children,
    archived: false,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  };
  problems.push(...entryProblems(entry).filter((p) => !problems.includes(p)));
  problems.push(...paddedStatIds([input], () => ''), ...paddedStatIds(childInputs, (index) => `children[${index}].`));
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: entry };
}

/**
 * Applies a PATCH to the task `taskId` of an entry (the entry itself or one of its
 * children). A parent's family and isAchievement carry over to its children; a child's must
 * stay its parent's. The result is checked against every invariant again.
 */
export function patchCatalogEntry(entry: CatalogEntry, taskId: string, patch: ApplicationTaskPatch, ctx: { now: Date; newId: () => string }): Validated<CatalogEntry> {
  const problems: string[] = [];
  const change = (task: CatalogTask): CatalogTask => ({
    ...task,
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.description !== undefined ? { description: patch.description } : {}),
    ...(patch.targetValue !== undefined ? { targetValue: patch.targetValue } : {}),
    ...(patch.numberOfGames !== undefined ? { numberOfGames: patch.numberOfGames } : {}),
    ...(patch.applicationStatsId !== undefined ? { applicationStatsId: patch.applicationStatsId } : {}),
    ...(patch.family !== undefined ? { family: normaliseFamily(patch.family) as TaskFamily } : {}),
    ...(patch.isAchievement !== undefined ? { isAchievement: patch.isAchievement } : {}),
    ...(patch.rewards !== undefined ? { rewards: rewardsOf(patch.rewards, ctx.newId) } : {}),
  });
  let next: CatalogEntry;
  if (entry.id === taskId) {
    // Gamers hold a task and an achievement in different records (an assigned copy against a
    // tracked one under the same one-per-period key), so a task cannot become the other kind.
    if (patch.isAchievement !== undefined && patch.isAchievement !== entry.isAchievement) {
      problems.push(`isAchievement is fixed when a task is created (it is ${entry.isAchievement}); archive the task and create it anew`);
    }
    const top = change(entry);
    next = {
      ...entry,
      ...top,
      children: entry.children.map((child) => ({ ...child, family: top.family, isAchievement: top.isAchievement })),
    };
  } else {
    const index = entry.children.findIndex((c) => c.id === taskId);
    if (index < 0) return { ok: false, problems: [`task ${taskId} is not part of entry ${entry.id}`] };
    if (patch.family !== undefined && normaliseFamily(patch.family) !== entry.family) problems.push(`a child's family is its parent's (${entry.family}); change the parent`);
    if (patch.isAchievement !== undefined && patch.isAchievement !== entry.isAchievement) problems.push(`a child's isAchievement is its parent's (${entry.isAchievement}); change the parent`);
    const children = entry.children.slice();
    children[index] = change(children[index]!);
    next = { ...entry, children };
  }
  next = { ...next, updatedAt: ctx.now };
  problems.push(...entryProblems(next), ...paddedStatIds([patch], () => ''));
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: next };
}

/** Every task of an entry on its own: the entry first, then its children. */
export function flatten(entry: CatalogEntry): FlatTask[] {
  return [
    { ...pickTask(entry), applicationId: entry.applicationId, parentTaskId: null, entry },
    ...entry.children.map((child) => ({ ...pickTask(child), applicationId: entry.applicationId, parentTaskId: entry.id, entry })),
  ];
}

function pickTask(task: CatalogTask): CatalogTask {
  return {
    id: task.id,
    name: task.name,
    description: task.description,
    targetValue: task.targetValue,
    numberOfGames: task.numberOfGames,
    family: task.family,
    applicationStatsId: task.applicationStatsId,
    isAchievement: task.isAchievement,
    rewards: task.rewards,
  };
}

function childView(task: CatalogTask, applicationId: string, parentTaskId: string | null): ApplicationTaskChild {
  return {
    id: task.id,
    applicationId,
    name: task.name,
    description: task.description,
    targetValue: task.targetValue,
    numberOfGames: task.numberOfGames,
    family: task.family,
    parentTaskId,
    applicationStatsId: task.applicationStatsId,
    isAchievement: task.isAchievement,
    rewards: task.rewards.map((r) => ({ id: r.id, inventoryItemId: r.inventoryItemId, quantity: r.quantity })),
  };
}

/** 2.4 Application task of `taskId` within an entry (the entry itself or a child). */
export function applicationTaskView(entry: CatalogEntry, taskId: string = entry.id): ApplicationTask | undefined {
  if (taskId === entry.id) {
    return { ...childView(entry, entry.applicationId, null), children: entry.children.map((c) => childView(c, entry.applicationId, entry.id)) };
  }
  const child = entry.children.find((c) => c.id === taskId);
  return child ? { ...childView(child, entry.applicationId, entry.id), children: [] } : undefined;
}

/** The catalog list: every task (parents with their children nested, children also on their own). */
export function catalogListView(entries: CatalogEntry[], achievements: boolean): ApplicationTask[] {
  const out: ApplicationTask[] = [];
  for (const entry of entries) {
    if (entry.archived || entry.isAchievement !== achievements) continue;
    out.push(applicationTaskView(entry)!);
    for (const child of entry.children) out.push(applicationTaskView(entry, child.id)!);
  }
  return out;
}
