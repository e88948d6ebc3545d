import { gamerAdminRoutes, Role, tasksRoutes } from '@gfts/contracts';
import { requirePathAccess } from '@gfts/platform';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { ErasureService } from '../erasure/erasure-service.ts';
import type { ProgressResetService } from '../progress-reset-service.ts';

/** Support and privacy operations on one gamer: reset progress, erase (role admin, own application). */
export async function gamerAdministrationRoutes(parent: FastifyInstance, deps: { resets: ProgressResetService; erasures: ErasureService }): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();

  app.route({
    ...tasksRoutes.resetProgress,
    onRequest: requirePathAccess(Role.ADMIN),
    handler: async (request) => {
      return deps.resets.reset(request.params.applicationId.toLowerCase(), request.params.gamerId.toLowerCase(), request.body.scope);
    },
  });

  app.route({
    ...gamerAdminRoutes.eraseGamer,
    onRequest: requirePathAccess(Role.ADMIN),
    handler: async (request, reply) => {
      const job = await deps.erasures.request(request.params.applicationId.toLowerCase(), request.params.gamerId.toLowerCase());
      return reply.code(202).send(job);
    },
  });

  app.route({
    ...gamerAdminRoutes.getErasure,
    onRequest: requirePathAccess(Role.ADMIN),
    handler: async (request) => {
      return deps.erasures.get(request.params.applicationId.toLowerCase(), request.params.jobId.toLowerCase());
    },
  });
}
