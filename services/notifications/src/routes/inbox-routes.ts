import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { notificationsRoutes } from '@gfts/contracts';
import { linkNextPage } from '@gfts/platform';
import type { FastifyInstance } from 'fastify';
import type { InboxService } from '../inbox-service.ts';

/** GET /api/v1/notifications (newest first, Link rel="next") and DELETE /api/v1/notifications/{id}. */
export function inboxRoutes(fastify: FastifyInstance, service: InboxService): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.route({
    ...notificationsRoutes.list,
    handler: async (request, reply) => {
      const page = await service.page(request.identity, request.query);
      linkNextPage(request, reply, page);
      return page.items;
    },
  });
  app.route({
    ...notificationsRoutes.remove,
    handler: async (request) => {
      await service.remove(request.identity, request.params.id);
      return { ok: true } as const;
    },
  });
}
