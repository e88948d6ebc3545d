import { gamerAdminRoutes, Role, tasksRoutes } from '@gfts/contracts';
import { requireApplication, requireRole } from '@gfts/platform';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ErasureService } from '../erasure/erasure-service.ts';
import type { ProgressResetService } from '../progress-reset-service.ts';

/** An admin of the path's application, acting on its gamers. */
function requireAdminOf(request: FastifyRequest, applicationId: string): void {
  requireApplication(request, applicationId);
  requireRole(request, Role.ADMIN);
}

/** Support and privacy operations on one gamer: reset progress, erase (role admin, own application). */
export async function gamerAdministrationRoutes(parent: FastifyInstance, deps: { resets: ProgressResetService; erasures: ErasureService }): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();

  app.route({
    ...tasksRoutes.resetProgress,
    handler: async (request) => {
      requireAdminOf(request, request.params.applicationId);
      return deps.resets.reset(request.params.applicationId.toLowerCase(), request.params.gamerId.toLowerCase(), request.body.scope);
    },
  });

  app.route({
    ...gamerAdminRoutes.eraseGamer,
    handler: async (request, reply) => {
      requireAdminOf(request, request.params.applicationId);
      const job = await deps.erasures.request(request.params.applicationId.toLowerCase(), request.params.gamerId.toLowerCase());
      return reply.code(202).send(job);
    },
  });

  app.route({
    ...gamerAdminRoutes.getErasure,
    handler: async (request) => {
      requireAdminOf(request, request.params.applicationId);
      return deps.erasures.get(request.params.applicationId.toLowerCase(), request.params.jobId.toLowerCase());
    },
  });
}
