import { FAMILIES, type ApplicationTask, type CreateTaskBody, type Family, type UpdateTaskBody } from '../session.ts';

/** The catalog form's fields as typed (text), one row per child and per reward. */
export interface RewardRow {
  inventoryItemId: string;
  quantity: string;
}
export interface ChildRow {
  name: string;
  applicationStatsId: string;
  targetValue: string;
  numberOfGames: string;
}
export interface TaskForm {
  name: string;
  description: string;
  family: Family;
  isAchievement: boolean;
  applicationStatsId: string;
  targetValue: string;
  numberOfGames: string;
  rewards: RewardRow[];
  children: ChildRow[];
}

export const emptyForm = (): TaskForm => ({
  name: '', description: '', family: 'daily', isAchievement: false, applicationStatsId: '', targetValue: '1', numberOfGames: '0', rewards: [], children: [],
});

export const emptyChild = (): ChildRow => ({ name: '', applicationStatsId: '', targetValue: '1', numberOfGames: '0' });

/** A number field as the API takes it: the integer typed, or the text itself so the API's validation names it. */
function integer(text: string): number {
  const trimmed = text.trim();
  return /^-?\d+$/.test(trimmed) ? Number(trimmed) : (trimmed as unknown as number);
}

/**
 * The create request for the form. The console checks nothing the API checks: what is
 * wrong (a composite of one child, an achievement outside lifetime) comes back as the API's
 * problem details, so the console and the API can never disagree about the rules.
 */
export function createBody(form: TaskForm): CreateTaskBody {
  const rewards = form.rewards.map((r) => ({ inventoryItemId: r.inventoryItemId.trim(), quantity: integer(r.quantity) }));
  return {
    name: form.name,
    description: form.description,
    family: form.family,
    isAchievement: form.isAchievement,
    applicationStatsId: form.applicationStatsId,
    targetValue: integer(form.targetValue),
    numberOfGames: integer(form.numberOfGames),
    rewards,
    ...(form.children.length > 0
      ? { children: form.children.map((c) => ({ name: c.name, applicationStatsId: c.applicationStatsId, targetValue: integer(c.targetValue), numberOfGames: integer(c.numberOfGames) })) }
      : {}),
  };
}

/**
 * The patch for an edited task: the fields that changed. Children and isAchievement never
 * change (the service refuses it): archive and recreate.
 */
export function patchBody(task: ApplicationTask, form: TaskForm): UpdateTaskBody {
  const next = createBody({ ...form, children: [] });
  const patch: Record<string, unknown> = {};
  for (const key of ['name', 'description', 'family', 'applicationStatsId', 'targetValue', 'numberOfGames'] as const) {
    if (next[key] !== task[key]) patch[key] = next[key];
  }
  const currentRewards = JSON.stringify(task.rewards.map((r) => ({ inventoryItemId: r.inventoryItemId, quantity: r.quantity })));
  if (JSON.stringify(next.rewards) !== currentRewards) patch.rewards = next.rewards;
  return patch as UpdateTaskBody;
}

/** The form filled with a stored task, to edit it. */
export function formOf(task: ApplicationTask): TaskForm {
  return {
    name: task.name,
    description: task.description,
    family: task.family,
    isAchievement: task.isAchievement,
    applicationStatsId: task.applicationStatsId,
    targetValue: String(task.targetValue),
    numberOfGames: String(task.numberOfGames),
    rewards: task.rewards.map((r) => ({ inventoryItemId: r.inventoryItemId, quantity: String(r.quantity) })),
    children: [],
  };
}

/** Top-level catalog entries by family, in the families' order; children stay nested in their parent. */
export function byFamily(tasks: readonly ApplicationTask[]): [Family, ApplicationTask[]][] {
  const top = tasks.filter((t) => t.parentTaskId === null);
  return FAMILIES
    .map((family) => [family, top.filter((t) => t.family === family).sort((a, b) => a.name.localeCompare(b.name))] as [Family, ApplicationTask[]])
    .filter(([, list]) => list.length > 0);
}
