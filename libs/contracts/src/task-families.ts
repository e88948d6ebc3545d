/**
 * Task families (spec 1.3). Responses always carry the lower-case value; requests may use
 * any casing ("DAILY", "Daily"): the service lower-cases `family` before validating it.
 *
 * A module of its own, without dependencies, so the admin console (a browser bundle) takes
 * the one list from here (`@gfts/contracts/task-families`) rather than a copy: a family added
 * here shows in its catalog and its task form.
 */
export const TaskFamily = {
  DAILY: 'daily',
  WEEKLY: 'weekly',
  MONTHLY: 'monthly',
  SEASONAL: 'seasonal',
  LIFETIME: 'lifetime',
} as const;
export type TaskFamily = (typeof TaskFamily)[keyof typeof TaskFamily];
/** Every family, in the order the spec lists them (the console shows its catalog in it). */
export const TASK_FAMILIES: readonly TaskFamily[] = Object.values(TaskFamily);
