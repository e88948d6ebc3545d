import { connectMongo, connectNats, createHttpServer, healthPlugin, identityPlugin, pingMongo, pingNats } from '@gfts/platform';
import type { FastifyInstance } from 'fastify';
import type { FriendshipConfig } from './config.ts';
import { natsEventPublisher, startCanMessageResponder } from './events.ts';
import { friendshipService } from './friendship-service.ts';
import { registrationCache } from './registration-cache.ts';
import { createRepositories } from './repository/index.ts';
import { friendshipRoutes } from './routes/index.ts';

/** Wires the friendship service: its own database, NATS, identity, routes. */
export async function buildFriendshipApp(config: FriendshipConfig): Promise<FastifyInstance> {
  const app = createHttpServer({ service: 'friendship', logLevel: config.LOG_LEVEL, bodyLimit: config.BODY_LIMIT_BYTES });
  const mongo = await connectMongo(config.MONGO_URL, app.log);
  const nats = await connectNats(config.NATS_URL, 'friendship', app.log, { user: config.NATS_USER, password: config.NATS_PASSWORD });
  const repositories = await createRepositories(mongo);
  const service = friendshipService({
    repositories,
    publish: natsEventPublisher(nats, config.NATS_PREFIX, app.log),
    limits: { maxFriends: config.MAX_FRIENDS, maxPendingOutgoing: config.MAX_PENDING_OUTGOING, maxBlocks: config.MAX_BLOCKS },
    registrations: registrationCache(),
  });
  const canMessage = startCanMessageResponder(nats, config.NATS_PREFIX, repositories.blocks, app.log);
  // HTTP has stopped when onClose runs; answer the NATS questions in flight, then disconnect.
  app.addHook('onClose', async () => {
    await canMessage.stop();
    await nats.drain();
    await mongo.close();
  });
  await app.register(healthPlugin, { checks: { mongodb: () => pingMongo(mongo), nats: () => pingNats(nats) } });
  await app.register(identityPlugin, { secret: config.INTERNAL_TOKEN_SECRET });
  await app.register(friendshipRoutes, { service });
  return app;
}
