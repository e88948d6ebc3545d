import { natsNames, type NatsNames } from '@gfts/contracts';
import { buildGateway } from '@gfts/gateway/app';
import { readGatewayConfig } from '@gfts/gateway/config';
import { client, databaseUrl, infra, listen, natsPrefix, TEST_INTERNAL_SECRET, TEST_JWT_SECRET, type Call, testLogLevel } from '@gfts/testkit';
import type { FastifyInstance } from 'fastify';
import mongoose, { type mongo } from 'mongoose';
// A sibling service, not a dependency of tasks: imported by path, as the gateway's tests do.
import { buildFriendshipApp } from '../../../friendship/src/app.ts';
import { readFriendshipConfig } from '../../../friendship/src/config.ts';
import { buildNotificationsApp } from '../../../notifications/src/app.ts';
import { readNotificationsConfig } from '../../../notifications/src/config.ts';
import { buildTasksApp } from '../../src/app.ts';
import { readTasksConfig } from '../../src/config.ts';
import type { TasksStack } from './stack.ts';

export interface FullStack {
  api: Call;
  names: NatsNames;
  /** the test's own handles on each service's database */
  tasksDb(): Promise<mongo.Db>;
  friendshipDb(): Promise<mongo.Db>;
  /** what World needs of a stack */
  asTasksStack(): TasksStack;
  close(): Promise<void>;
}

/** Gateway, friendship, tasks and notifications on one NATS prefix (cross-service flows: gamer erasure). */
export async function startFullStack(): Promise<FullStack> {
  const { mongoUrl, natsUrl } = infra();
  const prefix = natsPrefix();
  const common = { NATS_URL: natsUrl, NATS_PREFIX: prefix, INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: testLogLevel(), ERASURE_RETRY_BASE_MS: '100' };
  const friendshipUrl = databaseUrl(mongoUrl, 'friendship');
  const tasksUrl = databaseUrl(mongoUrl, 'tasks');
  const friendship: FastifyInstance = await buildFriendshipApp(readFriendshipConfig({ ...common, MONGO_URL: friendshipUrl }));
  const tasks: FastifyInstance = await buildTasksApp(readTasksConfig({ ...common, MONGO_URL: tasksUrl, STATS_RETRY_BASE_MS: '100' }));
  // erasure jobs wait for notifications too (ERASURE_SERVICES' default)
  const notifications: FastifyInstance = await buildNotificationsApp(readNotificationsConfig({ ...common, MONGO_URL: databaseUrl(mongoUrl, 'notifications') }));
  const gateway = await buildGateway(
    readGatewayConfig({
      FRIENDSHIP_URL: await listen(friendship),
      TASKS_URL: await listen(tasks),
      NOTIFICATIONS_URL: await listen(notifications),
      JWT_SECRET: TEST_JWT_SECRET,
      INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET,
      LOG_LEVEL: testLogLevel(),
      RATE_LIMIT_MAX: '1000000', RATE_LIMIT_IN_FLIGHT_MAX: '10000',
    }),
  );
  const api = client(await listen(gateway));
  const connections: mongoose.Connection[] = [];
  const dbOf = async (url: string) => {
    const connection = await mongoose.createConnection(url).asPromise();
    connections.push(connection);
    return connection.db as unknown as mongo.Db;
  };
  let tasksDb: Promise<mongo.Db> | undefined;
  let friendshipDb: Promise<mongo.Db> | undefined;
  const names = natsNames(prefix);
  const nc = await (await import('@nats-io/transport-node')).connect({ servers: natsUrl });
  const stack: FullStack = {
    api,
    names,
    tasksDb: () => (tasksDb ??= dbOf(tasksUrl)),
    friendshipDb: () => (friendshipDb ??= dbOf(friendshipUrl)),
    asTasksStack: () => ({ api, names, nats: async () => nc }) as unknown as TasksStack,
    async close() {
      await gateway.close();
      await Promise.allSettled([friendship.close(), tasks.close(), notifications.close()]);
      await Promise.allSettled(connections.map((c) => c.close()));
      await nc.drain();
    },
  };
  return stack;
}
