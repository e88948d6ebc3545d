import { friendshipRoutes } from '@gfts/contracts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { linkNextPage } from '@gfts/platform';
import type { FriendshipService } from '../friendship-service.ts';

const OK = { ok: true } as const;

/** Friend requests and friendships: schemas come from contracts, logic from the service. */
export function relationRoutes(fastify: FastifyInstance, service: FriendshipService): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.route({
    ...friendshipRoutes.sendRequest,
    handler: async (request) => service.sendRequest(request.identity, request.body.target),
  });
  app.route({
    ...friendshipRoutes.accept,
    handler: async (request) => {
      await service.accept(request.identity, request.params.friendshipId);
      return OK;
    },
  });
  app.route({
    ...friendshipRoutes.reject,
    handler: async (request) => {
      await service.reject(request.identity, request.params.friendshipId);
      return OK;
    },
  });
  app.route({
    ...friendshipRoutes.cancel,
    handler: async (request) => {
      await service.cancel(request.identity, request.params.friendshipId);
      return OK;
    },
  });
  app.route({
    ...friendshipRoutes.unfriend,
    handler: async (request) => {
      await service.unfriend(request.identity, request.params.friendshipId);
      return OK;
    },
  });
  app.route({
    ...friendshipRoutes.listFriends,
    handler: async (request, reply) => {
      const page = await service.listFriends(request.identity, request.query);
      linkNextPage(request, reply, page);
      return page.items;
    },
  });
  app.route({
    ...friendshipRoutes.updateNotes,
    handler: async (request) => service.setNotes(request.identity, request.params.friendshipId, request.body),
  });
  app.route({
    ...friendshipRoutes.listIncoming,
    handler: async (request, reply) => {
      const page = await service.listIncoming(request.identity, request.query);
      linkNextPage(request, reply, page);
      return page.items;
    },
  });
  app.route({
    ...friendshipRoutes.listOutgoing,
    handler: async (request, reply) => {
      const page = await service.listOutgoing(request.identity, request.query);
      linkNextPage(request, reply, page);
      return page.items;
    },
  });
}
