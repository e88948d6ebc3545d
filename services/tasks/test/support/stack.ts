import { natsNames, type NatsNames } from '@gfts/contracts';
import { buildGateway } from '@gfts/gateway/app';
import { readGatewayConfig } from '@gfts/gateway/config';
import { client, databaseUrl, eventually, infra, listen, natsPrefix, TEST_INTERNAL_SECRET, TEST_JWT_SECRET, type Call, type CallOptions, testLogLevel } from '@gfts/testkit';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { FastifyInstance } from 'fastify';
import mongoose, { type mongo } from 'mongoose';
import { buildTasksApp, type TasksAppOptions } from '../../src/app.ts';
import { readTasksConfig } from '../../src/config.ts';

export interface TasksStack {
  /** calls through the real gateway (which follows `restartTasks`) */
  api: Call;
  tasks: FastifyInstance;
  tasksUrl: string;
  mongoUrl: string;
  natsUrl: string;
  prefix: string;
  names: NatsNames;
  /** another tasks replica on the same database and NATS prefix (not behind the gateway) */
  startReplica(env?: Record<string, string>, options?: TasksAppOptions): Promise<FastifyInstance>;
  /** stops the tasks service behind the gateway (graceful close) and starts a new one */
  restartTasks(env?: Record<string, string>, options?: TasksAppOptions): Promise<void>;
  /** stops the tasks service behind the gateway without starting another */
  stopTasks(): Promise<void>;
  /** the test's own handle on the service's database */
  db(): Promise<mongo.Db>;
  /** the test's own NATS connection */
  nats(): Promise<NatsConnection>;
  close(): Promise<void>;
}

/**
 * The tasks service behind the real gateway, on its own database and NATS prefix, against
 * the FerretDB (or MongoDB) and NATS containers of the global setup. The gateway's
 * friendship upstream points nowhere.
 */
export async function startTasksStack(env: Record<string, string> = {}, options: TasksAppOptions = {}): Promise<TasksStack> {
  const { mongoUrl: serverUrl, natsUrl } = infra();
  const prefix = natsPrefix();
  const mongoUrl = databaseUrl(serverUrl, 'tasks');
  const baseEnv = {
    MONGO_URL: mongoUrl,
    NATS_URL: natsUrl,
    NATS_PREFIX: prefix,
    INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET,
    LOG_LEVEL: testLogLevel(),
    STATS_RETRY_BASE_MS: '100',
    ...env,
  };
  const build = (extra: Record<string, string> = {}, opts: TasksAppOptions = options) => buildTasksApp(readTasksConfig({ ...baseEnv, ...extra }), opts);

  const replicas: FastifyInstance[] = [];
  let tasks: FastifyInstance | undefined = await build();
  let tasksUrl = await listen(tasks);
  let gateway: FastifyInstance | undefined;
  let gatewayUrl = '';
  const startGateway = async () => {
    gateway = await buildGateway(
      readGatewayConfig({
        FRIENDSHIP_URL: 'http://127.0.0.1:9',
        TASKS_URL: tasksUrl,
        JWT_SECRET: TEST_JWT_SECRET,
        INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET,
        LOG_LEVEL: testLogLevel(),
        RATE_LIMIT_MAX: '1000000', RATE_LIMIT_IN_FLIGHT_MAX: '10000',
      }),
    );
    gatewayUrl = await listen(gateway);
  };
  await startGateway();

  let connection: mongoose.Connection | undefined;
  let nc: NatsConnection | undefined;
  const stopTasks = async () => {
    await gateway?.close();
    gateway = undefined;
    await tasks?.close();
    tasks = undefined;
  };

  const stack: TasksStack = {
    api: (method: string, path: string, opts?: CallOptions) => client(gatewayUrl)(method, path, opts),
    get tasks() {
      if (!tasks) throw new Error('tasks service is stopped');
      return tasks;
    },
    get tasksUrl() {
      return tasksUrl;
    },
    mongoUrl,
    natsUrl,
    prefix,
    names: natsNames(prefix),
    async startReplica(extra = {}, opts = {}) {
      const replica = await build(extra, opts);
      replicas.push(replica);
      return replica;
    },
    async restartTasks(extra = {}, opts = {}) {
      await stopTasks();
      tasks = await build(extra, opts);
      tasksUrl = await listen(tasks);
      await startGateway();
    },
    stopTasks,
    async db() {
      connection ??= await mongoose.createConnection(mongoUrl).asPromise();
      return connection.db as unknown as mongo.Db;
    },
    async nats() {
      nc ??= await connect({ servers: natsUrl });
      return nc;
    },
    async close() {
      await stopTasks();
      await Promise.allSettled(replicas.map((r) => r.close()));
      await connection?.close();
      await nc?.drain();
    },
  } as TasksStack;
  return stack;
}

/**
 * Waits until the stat consumer acknowledged the stream's events up to its `events`-th (by
 * default, every event the stream held when called) and holds none pending or unacknowledged:
 * after it, an event published before has been applied, or dropped, for good.
 */
export async function untilAcknowledged(stack: Pick<TasksStack, 'nats' | 'names'>, events?: number, timeoutMs = 10_000): Promise<void> {
  const jsm = await jetstreamManager(await stack.nats());
  const upTo = events ?? (await jsm.streams.info(stack.names.statsStream)).state.last_seq;
  await eventually(async () => {
    const info = await jsm.consumers.info(stack.names.statsStream, stack.names.statsConsumer);
    return info.num_pending === 0 && info.num_ack_pending === 0 && info.ack_floor.stream_seq >= upTo ? true : undefined;
  }, timeoutMs, 50);
}
