import { friendshipRoutes } from '@gfts/contracts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { FriendshipService } from '../friendship-service.ts';

export function searchRoutes(fastify: FastifyInstance, service: FriendshipService): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.route({
    ...friendshipRoutes.search,
    handler: async (request) => service.search(request.identity, request.query.displayName, request.query.limit),
  });
}
