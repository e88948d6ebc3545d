import { Role, tasksRoutes } from '@gfts/contracts';
import { requirePathAccess } from '@gfts/platform';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { SettingsService } from '../settings-service.ts';
import type { UnlockRateService } from '../unlock-rate-service.ts';

/** Application-wide reads (any token of the application) and settings (admins write). */
export async function applicationRoutes(parent: FastifyInstance, deps: { settings: SettingsService; unlockRates: UnlockRateService }): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();

  app.route({
    ...tasksRoutes.getSettings,
    onRequest: requirePathAccess(),
    handler: async (request) => {
      return deps.settings.get(request.params.applicationId.toLowerCase());
    },
  });

  app.route({
    ...tasksRoutes.putSettings,
    onRequest: requirePathAccess(Role.ADMIN),
    handler: async (request) => {
      return deps.settings.put(request.params.applicationId.toLowerCase(), request.body);
    },
  });

  app.route({
    ...tasksRoutes.achievementStats,
    onRequest: requirePathAccess(),
    handler: async (request) => {
      return deps.unlockRates.list(request.params.applicationId.toLowerCase());
    },
  });
}
