import { Role, tasksRoutes } from '@gfts/contracts';
import { requireApplication, requireRole } from '@gfts/platform';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { SettingsService } from '../settings-service.ts';
import type { UnlockRateService } from '../unlock-rate-service.ts';

/** Application-wide reads (any token of the application) and settings (admins write). */
export async function applicationRoutes(parent: FastifyInstance, deps: { settings: SettingsService; unlockRates: UnlockRateService }): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();

  app.route({
    ...tasksRoutes.getSettings,
    handler: async (request) => {
      requireApplication(request, request.params.applicationId);
      return deps.settings.get(request.params.applicationId.toLowerCase());
    },
  });

  app.route({
    ...tasksRoutes.putSettings,
    handler: async (request) => {
      requireApplication(request, request.params.applicationId);
      requireRole(request, Role.ADMIN);
      return deps.settings.put(request.params.applicationId.toLowerCase(), request.body);
    },
  });

  app.route({
    ...tasksRoutes.achievementStats,
    handler: async (request) => {
      requireApplication(request, request.params.applicationId);
      return deps.unlockRates.list(request.params.applicationId.toLowerCase());
    },
  });
}
