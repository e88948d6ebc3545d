import { friendshipAdminRoutes, Role } from '@gfts/contracts';
import { readiness, requireRole, type ReadinessCheck } from '@gfts/platform';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { FriendshipAdminService } from '../admin-service.ts';

/** The console's friendship routes: role admin, the token's application only. */
export async function friendshipAdmin(parent: FastifyInstance, opts: { admin: FriendshipAdminService; checks: Record<string, ReadinessCheck> }): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('onRequest', async (request) => requireRole(request, Role.ADMIN));

  app.route({
    ...friendshipAdminRoutes.searchGamers,
    handler: async (request) => opts.admin.search(request.identity.applicationId, request.query.displayName, request.query.limit),
  });
  app.route({
    ...friendshipAdminRoutes.gamerRelations,
    handler: async (request) => opts.admin.gamer(request.identity.applicationId, request.params.gamerId, request.query.limit),
  });
  app.route({
    ...friendshipAdminRoutes.health,
    handler: async () => ({ service: 'friendship', ...(await readiness(opts.checks)), at: new Date().toISOString() }),
  });
}
