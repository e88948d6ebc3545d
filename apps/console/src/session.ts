import type { Api } from './api/client.ts';
import type { operations } from '@gfts/client';
import { TASK_FAMILIES, type TaskFamily } from '@gfts/contracts/task-families';
import type { TokenClaims } from './auth/claims.ts';

/** What every page gets: the API client and who is signed in (the token's application). */
export interface Session {
  api: Api;
  claims: TokenClaims;
}

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Ok<O extends keyof operations> = operations[O]['responses'] extends { 200: infer R } ? Json<R> : never;

export type ApplicationTask = Ok<'listApplicationTasks'>[number];
export type CreateTaskBody = NonNullable<operations['createApplicationTask']['requestBody']>['content']['application/json'];
export type UpdateTaskBody = NonNullable<operations['updateApplicationTask']['requestBody']>['content']['application/json'];
export type GamerProgress = Ok<'adminGetGamerProgress'>;
export type GamerTask = GamerProgress['tasks'][number];
export type GamerRelations = Ok<'adminGetGamerRelations'>;
export type UserSummary = Ok<'adminSearchGamers'>[number];
export type DeadLetter = Ok<'adminListDeadLetters'>[number];
export type Season = Ok<'getSeason'>;
export type PipelineHealth = Ok<'adminTasksHealth'>;
export type ServiceHealth = Ok<'adminFriendshipHealth'>;

/** The task families, in the contracts' order: one list, so a new family shows here too. */
export const FAMILIES: readonly Family[] = TASK_FAMILIES;
export type Family = TaskFamily;
