import { refuseGameServers } from '@gfts/platform';
import type { FastifyInstance } from 'fastify';
import type { FriendshipService } from '../friendship-service.ts';
import { blockRoutes } from './blocks.ts';
import { relationRoutes } from './relations.ts';
import { searchRoutes } from './search.ts';

/**
 * Every friendship endpoint (spec 4.1). Encapsulated, so its hook runs on these routes
 * only: each authenticated call registers or refreshes the caller in the gamer directory
 * (design.md), which is how a gamer becomes someone others can find and befriend. After
 * schema validation (preHandler): a request the schema refuses changes nothing, not even
 * that (one refused by a rule of the service, as targeting oneself, still registers).
 */
export async function friendshipRoutes(app: FastifyInstance, opts: { service: FriendshipService }): Promise<void> {
  // A game server's token (role server) is no gamer (docs/friendship.md): until 2026-11-29 it
  // was registered in the directory, found by search, and sent requests and blocks under the
  // servers' larger rate limit. Refused before its body is read, as the admin routes are.
  app.addHook('onRequest', refuseGameServers('use the friendship API'));
  app.addHook('preHandler', async (request) => {
    await opts.service.registerCaller(request.identity);
  });
  relationRoutes(app, opts.service);
  blockRoutes(app, opts.service);
  searchRoutes(app, opts.service);
}
