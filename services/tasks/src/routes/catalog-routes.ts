import { Role, tasksRoutes } from '@gfts/contracts';
import { requirePathAccess } from '@gfts/platform';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { CatalogService } from '../catalog-service.ts';
import { normaliseFamilies } from '../domain/family.ts';

/** Catalog reads (any token of the application) and writes (its admins). */
export async function catalogRoutes(parent: FastifyInstance, { catalog }: { catalog: CatalogService }): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const familyAnyCase = async (request: { body: unknown }) => normaliseFamilies(request.body);

  app.route({
    ...tasksRoutes.listCatalog,
    onRequest: requirePathAccess(),
    handler: async (request) => {
      return catalog.list(request.params.applicationId.toLowerCase(), request.query.isAchievement === true);
    },
  });

  app.route({
    ...tasksRoutes.getCatalogTask,
    onRequest: requirePathAccess(),
    handler: async (request) => {
      return catalog.get(request.params.applicationId.toLowerCase(), request.params.taskId.toLowerCase());
    },
  });

  app.route({
    ...tasksRoutes.createCatalogTask,
    onRequest: requirePathAccess(Role.ADMIN),
    preValidation: familyAnyCase,
    handler: async (request, reply) => {
      const created = await catalog.create(request.params.applicationId.toLowerCase(), request.body);
      return reply.code(201).send(created);
    },
  });

  app.route({
    ...tasksRoutes.updateCatalogTask,
    onRequest: requirePathAccess(Role.ADMIN),
    preValidation: familyAnyCase,
    handler: async (request) => {
      return catalog.update(request.params.applicationId.toLowerCase(), request.params.taskId.toLowerCase(), request.body);
    },
  });

  app.route({
    ...tasksRoutes.archiveCatalogTask,
    onRequest: requirePathAccess(Role.ADMIN),
    handler: async (request, reply) => {
      await catalog.archive(request.params.applicationId.toLowerCase(), request.params.taskId.toLowerCase());
      return reply.code(204).send(null);
    },
  });

  app.route({
    ...tasksRoutes.getSeason,
    onRequest: requirePathAccess(),
    handler: async (request) => {
      return catalog.season(request.params.applicationId.toLowerCase());
    },
  });

  app.route({
    ...tasksRoutes.setSeason,
    onRequest: requirePathAccess(Role.ADMIN),
    handler: async (request) => {
      return catalog.setSeason(request.params.applicationId.toLowerCase(), request.body.endsAt);
    },
  });
}
