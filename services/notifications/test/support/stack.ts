import { natsNames, type NatsNames } from '@gfts/contracts';
import { buildGateway } from '@gfts/gateway/app';
import { readGatewayConfig } from '@gfts/gateway/config';
import { fileURLToPath } from 'node:url';
import { client, databaseUrl, infra, listen, natsPrefix, spawnService, TEST_INTERNAL_SECRET, TEST_JWT_SECRET, type Call, type ServiceProcess, testLogLevel } from '@gfts/testkit';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { FastifyInstance } from 'fastify';
import mongoose, { type mongo } from 'mongoose';
// The producing services are siblings in the workspace: imported by path, as the gateway's tests do.
import { buildFriendshipApp } from '../../../friendship/src/app.ts';
import { readFriendshipConfig } from '../../../friendship/src/config.ts';
import { buildTasksApp } from '../../../tasks/src/app.ts';
import { readTasksConfig } from '../../../tasks/src/config.ts';
import { buildNotificationsApp } from '../../src/app.ts';
import { readNotificationsConfig } from '../../src/config.ts';

/** One notifications replica with a gateway of its own in front of it. */
export interface Replica {
  app: FastifyInstance;
  url: string;
  gateway: FastifyInstance;
  gatewayUrl: string;
  /** gateway URL with ws: */
  wsUrl: string;
  api: Call;
  close(): Promise<void>;
}

export interface NotificationsStack {
  /** the first replica's gateway: friendship, tasks and notifications behind one entry */
  api: Call;
  replicas: Replica[];
  names: NatsNames;
  /**
   * starts one more notifications replica (same database and NATS prefix) behind a gateway of
   * its own; `prepare` may add hooks to the replica before it listens
   */
  addReplica(env?: Record<string, string>, prepare?: (app: FastifyInstance) => void): Promise<Replica>;
  /**
   * starts one more notifications replica as a real process (its src/server.ts), behind a
   * gateway of its own in this process (with `gatewayEnv` on top of the stack's): a test can
   * SIGKILL or SIGSTOP it (`process.child`)
   */
  spawnReplica(env?: Record<string, string>, gatewayEnv?: Record<string, string>): Promise<Omit<Replica, 'app'> & { process: ServiceProcess }>;
  /** starts one more friendship replica (same database and NATS prefix), not behind any gateway */
  addFriendshipReplica(): Promise<FastifyInstance>;
  db(): Promise<mongo.Db>;
  nats(): Promise<NatsConnection>;
  close(): Promise<void>;
}

/**
 * The whole product in this process, on the containers of the global setup: friendship and
 * tasks (the event producers), notifications replicas on one database and NATS prefix, and
 * a real gateway in front of each replica.
 */
export async function startNotificationsStack(env: Record<string, string> = {}, gatewayEnv: Record<string, string> = {}, friendshipEnv: Record<string, string> = {}): Promise<NotificationsStack> {
  const { mongoUrl, natsUrl } = infra();
  const prefix = natsPrefix();
  const common = { NATS_URL: natsUrl, NATS_PREFIX: prefix, INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: testLogLevel(), ERASURE_RETRY_BASE_MS: '100' };
  const friendshipDb = databaseUrl(mongoUrl, 'friendship');
  const friendshipConfig = () => readFriendshipConfig({ ...common, MONGO_URL: friendshipDb, ...friendshipEnv });
  const friendship = await buildFriendshipApp(friendshipConfig());
  const moreFriendship: FastifyInstance[] = [];
  const tasks = await buildTasksApp(readTasksConfig({ ...common, MONGO_URL: databaseUrl(mongoUrl, 'tasks'), STATS_RETRY_BASE_MS: '100' }));
  const [friendshipUrl, tasksUrl] = [await listen(friendship), await listen(tasks)];
  const notificationsDb = databaseUrl(mongoUrl, 'notifications');
  const replicas: Replica[] = [];

  const gatewayTo = (url: string, extraGatewayEnv: Record<string, string> = {}) =>
    buildGateway(
      readGatewayConfig({
        FRIENDSHIP_URL: friendshipUrl, TASKS_URL: tasksUrl, NOTIFICATIONS_URL: url,
        JWT_SECRET: TEST_JWT_SECRET, INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: testLogLevel(), RATE_LIMIT_MAX: '1000000', RATE_LIMIT_IN_FLIGHT_MAX: '10000', ...gatewayEnv, ...extraGatewayEnv,
      }),
    );
  const spawned: ServiceProcess[] = [];

  async function addReplica(extra: Record<string, string> = {}, prepare?: (app: FastifyInstance) => void): Promise<Replica> {
    const app = await buildNotificationsApp(readNotificationsConfig({ ...common, MONGO_URL: notificationsDb, ...env, ...extra }));
    prepare?.(app);
    const url = await listen(app);
    const gateway = await gatewayTo(url);
    const gatewayUrl = await listen(gateway);
    let closed = false;
    const replica: Replica = {
      app, url, gateway, gatewayUrl, wsUrl: gatewayUrl.replace(/^http/, 'ws'), api: client(gatewayUrl),
      close: async () => {
        if (closed) return;
        closed = true;
        await app.close();
        await gateway.close();
      },
    };
    replicas.push(replica);
    return replica;
  }

  const first = await addReplica();
  let connection: mongoose.Connection | undefined;
  let nc: NatsConnection | undefined;
  return {
    api: first.api,
    replicas,
    names: natsNames(prefix),
    addReplica,
    async spawnReplica(extra: Record<string, string> = {}, extraGatewayEnv: Record<string, string> = {}) {
      const server = fileURLToPath(new URL('../../src/server.ts', import.meta.url));
      const child = spawnService(server, { ...common, LOG_LEVEL: 'info', PORT: '0', HOST: '127.0.0.1', MONGO_URL: notificationsDb, ...env, ...extra });
      spawned.push(child);
      const url = await child.listening(60_000);
      const gateway = await gatewayTo(url, extraGatewayEnv);
      const gatewayUrl = await listen(gateway);
      return {
        process: child, url, gateway, gatewayUrl, wsUrl: gatewayUrl.replace(/^http/, 'ws'), api: client(gatewayUrl),
        close: async () => {
          if (child.child.exitCode === null && child.child.signalCode === null) {
            child.child.kill('SIGTERM');
            await child.exited;
          }
          await gateway.close();
        },
      };
    },
    async addFriendshipReplica() {
      const app = await buildFriendshipApp(friendshipConfig());
      moreFriendship.push(app);
      return app;
    },
    async db() {
      connection ??= await mongoose.createConnection(notificationsDb).asPromise();
      return connection.db as unknown as mongo.Db;
    },
    async nats() {
      nc ??= await connect({ servers: natsUrl });
      return nc;
    },
    async close() {
      for (const child of spawned) if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGKILL');
      await Promise.allSettled(replicas.map((r) => r.close()));
      await Promise.allSettled([friendship.close(), tasks.close(), ...moreFriendship.map((f) => f.close())]);
      await connection?.close();
      await nc?.drain();
    },
  };
}
