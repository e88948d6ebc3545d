import { connectMongo, connectNats, createHttpServer, healthPlugin, identityPlugin, pingMongo, pingNats } from '@gfts/platform';
import type { FastifyInstance } from 'fastify';
import type { TasksConfig } from './config.ts';

/** Wires the tasks service: its own database, NATS, identity, routes. */
export async function buildTasksApp(config: TasksConfig): Promise<FastifyInstance> {
  const app = createHttpServer({ service: 'tasks', logLevel: config.LOG_LEVEL, bodyLimit: config.BODY_LIMIT_BYTES });
  const mongo = await connectMongo(config.MONGO_URL, app.log);
  const nats = await connectNats(config.NATS_URL, 'tasks', app.log);
  app.addHook('onClose', async () => {
    await nats.drain();
    await mongo.close();
  });
  await app.register(healthPlugin, { checks: { mongodb: () => pingMongo(mongo), nats: () => pingNats(nats) } });
  await app.register(identityPlugin, { secret: config.INTERNAL_TOKEN_SECRET });
  // TODO(tasks): catalog, gamer tasks, stat consumer, claims, inventory, expiry sweep
  return app;
}
