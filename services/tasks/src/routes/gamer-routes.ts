import { IDEMPOTENCY_KEY_HEADER, tasksRoutes } from '@gfts/contracts';
import { refuseGameServers } from '@gfts/platform';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AssignService } from '../assign-service.ts';
import type { ClaimService } from '../claim-service.ts';
import { normaliseFamilies } from '../domain/family.ts';
import { completedFilter } from '../domain/gamer-task.ts';
import type { GamerTaskService } from '../gamer-task-service.ts';

/**
 * A game server's token (role server) is no gamer (docs/tasks.md): it may read as a new gamer
 * would, but not assign or claim. Until 2026-11-28 it could, and wrote gamer tasks, a progress
 * document and inventory grants for its `sub`, under the servers' larger rate limit.
 */
const gamersOnly = refuseGameServers('assign or claim tasks');

/** Spec 4.2 endpoints 2, 4, 5, 6 and the inventory: the caller is the token's gamer. */
export async function gamerRoutes(
  parent: FastifyInstance,
  deps: { assign: AssignService; claims: ClaimService; reads: GamerTaskService },
): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();

  app.route({
    ...tasksRoutes.assign,
    onRequest: gamersOnly,
    preValidation: async (request) => normaliseFamilies(request.body),
    handler: async (request) => deps.assign.assign(request.identity, request.body, request.headers[IDEMPOTENCY_KEY_HEADER]),
  });

  app.route({
    ...tasksRoutes.listGamerTasks,
    handler: async (request) => deps.reads.tasks(request.identity, completedFilter(request.query.completed)),
  });

  app.route({
    ...tasksRoutes.claim,
    onRequest: gamersOnly,
    handler: async (request) => deps.claims.claim(request.identity, request.params.taskId),
  });

  app.route({
    ...tasksRoutes.listAchievements,
    handler: async (request) => deps.reads.achievements(request.identity, completedFilter(request.query.completed)),
  });

  app.route({
    ...tasksRoutes.inventory,
    handler: async (request) => deps.reads.items(request.identity),
  });
}
