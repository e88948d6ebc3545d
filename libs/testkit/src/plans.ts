/*
 * Reading a store's query plan, for the plan tests: MongoDB's winningPlan stages, or the
 * local FerretDB build's SQLite plan lines (`queryPlanner.Plan`, a list of strings). A store
 * answering neither fails the plan tests.
 */
import { expect } from 'vitest';
import { storeEngine } from './index.ts';

export type Explain = Record<string, unknown>;
export type Stage = { stage?: string; indexName?: string; inputStage?: Stage; inputStages?: Stage[] };

/** Every stage of MongoDB's winning plan, outermost first. */
export function stagesOf(plan: Stage | undefined): Stage[] {
  if (!plan) return [];
  return [plan, ...stagesOf(plan.inputStage), ...(plan.inputStages ?? []).flatMap(stagesOf)];
}

/** The SQLite plan lines of the local FerretDB build, without their ids; null when `explain` answered no such plan. */
export function sqlitePlan(explain: Explain): string[] | null {
  const lines = (explain.queryPlanner as { Plan?: unknown } | undefined)?.Plan;
  if (!Array.isArray(lines) || !lines.every((l) => typeof l === 'string')) return null;
  return lines.map((l: string) => l.replace(/^id=\d+ parent=\d+ notused=\d+ detail=/, ''));
}

export const isMongoPlan = (explain: Explain) => 'winningPlan' in ((explain.queryPlanner as object | undefined) ?? {});

/** Whether `explain` is MongoDB's, asserting it is the plan of this run's store (storeEngine). */
export function mongoPlanOfThisStore(explain: Explain): boolean {
  const mongo = isMongoPlan(explain);
  expect(mongo ? 'mongodb' : 'ferretdb', 'the plan is not of the store this run configured').toBe(storeEngine());
  return mongo;
}
