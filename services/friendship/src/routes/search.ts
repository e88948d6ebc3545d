import { friendshipRoutes } from '@gfts/contracts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { FriendshipService } from '../friendship-service.ts';

/** Finding gamers: by name, among friends of friends, and friends in common. */
export function searchRoutes(fastify: FastifyInstance, service: FriendshipService): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.route({
    ...friendshipRoutes.search,
    handler: async (request) => service.search(request.identity, request.query.displayName, request.query.limit),
  });
  app.route({
    ...friendshipRoutes.suggestions,
    handler: async (request) => service.suggestions(request.identity, request.query.limit),
  });
  app.route({
    ...friendshipRoutes.mutualFriends,
    handler: async (request) => service.mutualFriends(request.identity, request.params.gamerId),
  });
}
