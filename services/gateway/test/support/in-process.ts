import { databaseUrl, infra, listen, natsPrefix, TEST_INTERNAL_SECRET, TEST_JWT_SECRET, testLogLevel } from '@gfts/testkit';
import type { FastifyInstance } from 'fastify';
// The services are siblings in the workspace, not dependencies of the gateway: imported by path.
import { buildFriendshipApp } from '../../../friendship/src/app.ts';
import { readFriendshipConfig } from '../../../friendship/src/config.ts';
import { buildNotificationsApp } from '../../../notifications/src/app.ts';
import { readNotificationsConfig } from '../../../notifications/src/config.ts';
import { buildTasksApp } from '../../../tasks/src/app.ts';
import { readTasksConfig } from '../../../tasks/src/config.ts';
import { buildGateway } from '../../src/app.ts';
import { readGatewayConfig } from '../../src/config.ts';

export interface InProcessStack {
  gateway: FastifyInstance;
  friendship: FastifyInstance;
  tasks: FastifyInstance;
  notifications: FastifyInstance;
  gatewayUrl: string;
  close(): Promise<void>;
}

/** Gateway, friendship, tasks and notifications in this process, on the containers of the global setup. */
export async function startInProcessStack(): Promise<InProcessStack> {
  const { mongoUrl, natsUrl } = infra();
  const common = { NATS_URL: natsUrl, NATS_PREFIX: natsPrefix(), INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: testLogLevel() };
  const friendship = await buildFriendshipApp(readFriendshipConfig({ ...common, MONGO_URL: databaseUrl(mongoUrl, 'friendship') }));
  const tasks = await buildTasksApp(readTasksConfig({ ...common, MONGO_URL: databaseUrl(mongoUrl, 'tasks') }));
  const notifications = await buildNotificationsApp(readNotificationsConfig({ ...common, MONGO_URL: databaseUrl(mongoUrl, 'notifications') }));
  const gateway = await buildGateway(
    readGatewayConfig({
      FRIENDSHIP_URL: await listen(friendship),
      TASKS_URL: await listen(tasks),
      NOTIFICATIONS_URL: await listen(notifications),
      JWT_SECRET: TEST_JWT_SECRET,
      INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET,
      LOG_LEVEL: testLogLevel(),
    }),
  );
  const gatewayUrl = await listen(gateway);
  return {
    gateway, friendship, tasks, notifications, gatewayUrl,
    close: async () => {
      await gateway.close();
      await Promise.all([friendship.close(), tasks.close(), notifications.close()]);
    },
  };
}
