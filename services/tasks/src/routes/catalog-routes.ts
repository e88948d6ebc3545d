import { Role, tasksRoutes } from '@gfts/contracts';
import { requireApplication, requireRole } from '@gfts/platform';
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
    handler: async (request) => {
      requireApplication(request, request.params.applicationId);
      return catalog.list(request.params.applicationId.toLowerCase(), request.query.isAchievement === true);
    },
  });

  app.route({
    ...tasksRoutes.getCatalogTask,
    handler: async (request) => {
      requireApplication(request, request.params.applicationId);
      return catalog.get(request.params.applicationId.toLowerCase(), request.params.taskId.toLowerCase());
    },
  });

  app.route({
    ...tasksRoutes.createCatalogTask,
    preValidation: familyAnyCase,
    handler: async (request, reply) => {
      requireApplication(request, request.params.applicationId);
      requireRole(request, Role.ADMIN);
      const created = await catalog.create(request.params.applicationId.toLowerCase(), request.body);
      return reply.code(201).send(created);
    },
  });

  app.route({
    ...tasksRoutes.updateCatalogTask,
    preValidation: familyAnyCase,
    handler: async (request) => {
      requireApplication(request, request.params.applicationId);
      requireRole(request, Role.ADMIN);
      return catalog.update(request.params.applicationId.toLowerCase(), request.params.taskId.toLowerCase(), request.body);
    },
  });

  app.route({
    ...tasksRoutes.archiveCatalogTask,
    handler: async (request, reply) => {
      requireApplication(request, request.params.applicationId);
      requireRole(request, Role.ADMIN);
      await catalog.archive(request.params.applicationId.toLowerCase(), request.params.taskId.toLowerCase());
      return reply.code(204).send(null);
    },
  });

  app.route({
    ...tasksRoutes.getSeason,
    handler: async (request) => {
      requireApplication(request, request.params.applicationId);
      return catalog.season(request.params.applicationId.toLowerCase());
    },
  });

  app.route({
    ...tasksRoutes.setSeason,
    handler: async (request) => {
      requireApplication(request, request.params.applicationId);
      requireRole(request, Role.ADMIN);
      return catalog.setSeason(request.params.applicationId.toLowerCase(), request.body.endsAt);
    },
  });
}
