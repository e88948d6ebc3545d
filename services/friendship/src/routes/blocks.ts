import { friendshipRoutes } from '@gfts/contracts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { linkNextPage } from '@gfts/platform';
import type { FriendshipService } from '../friendship-service.ts';

/** Blocking and the caller's block list. */
export function blockRoutes(fastify: FastifyInstance, service: FriendshipService): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.route({
    ...friendshipRoutes.block,
    handler: async (request) => {
      await service.block(request.identity, request.body.target);
      return { ok: true };
    },
  });
  app.route({
    ...friendshipRoutes.unblock,
    handler: async (request) => {
      await service.unblock(request.identity, request.params.friendshipId);
      return { ok: true };
    },
  });
  app.route({
    ...friendshipRoutes.listBlocked,
    handler: async (request, reply) => {
      const page = await service.listBlocked(request.identity, request.query);
      linkNextPage(request, reply, page);
      return page.items;
    },
  });
}
