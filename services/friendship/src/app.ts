import { connectMongo, connectNats, createHttpServer, healthPlugin, identityPlugin, pingMongo, pingNats } from '@gfts/platform';
import type { FastifyInstance } from 'fastify';
import type { FriendshipConfig } from './config.ts';

/** Wires the friendship service: its own database, NATS, identity, routes. */
export async function buildFriendshipApp(config: FriendshipConfig): Promise<FastifyInstance> {
  const app = createHttpServer({ service: 'friendship', logLevel: config.LOG_LEVEL, bodyLimit: config.BODY_LIMIT_BYTES });
  const mongo = await connectMongo(config.MONGO_URL, app.log);
  const nats = await connectNats(config.NATS_URL, 'friendship', app.log);
  app.addHook('onClose', async () => {
    await nats.drain();
    await mongo.close();
  });
  await app.register(healthPlugin, { checks: { mongodb: () => pingMongo(mongo), nats: () => pingNats(nats) } });
  await app.register(identityPlugin, { secret: config.INTERNAL_TOKEN_SECRET });
  // TODO(friendship): repository, domain service, routes, NATS events and can-message responder
  return app;
}
