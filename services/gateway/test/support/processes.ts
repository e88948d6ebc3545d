import { fileURLToPath } from 'node:url';
import { databaseUrl, infra, natsPrefix, spawnService, TEST_INTERNAL_SECRET, TEST_JWT_SECRET, TRACING_IMPORT, type ServiceProcess } from '@gfts/testkit';

const serverOf = (service: string) => fileURLToPath(new URL(`../../../${service}/src/server.ts`, import.meta.url));

export interface ServiceProcesses {
  gatewayUrl: string;
  friendshipUrl: string;
  tasksUrl: string;
  notificationsUrl: string;
  /** what each process printed so far (its log lines) */
  output(service: 'gateway' | 'friendship' | 'tasks' | 'notifications'): string;
  /** the NATS server and subject prefix the services use */
  natsUrl: string;
  natsPrefix: string;
  close(): Promise<void>;
}

async function stop(process: ServiceProcess): Promise<void> {
  if (process.child.exitCode !== null) return;
  process.child.kill('SIGTERM');
  const stopped = await Promise.race([process.exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  if (!stopped) process.child.kill('SIGKILL');
}

/**
 * The gateway, friendship, tasks and notifications services as real processes (their src/server.ts, their
 * configuration from the environment), on the database and NATS containers of the global
 * setup, each service with its own database and all on one fresh NATS prefix. Started as
 * the images start them: with the tracing register module (off unless `env` sets OTEL_*).
 */
export async function startServiceProcesses(env: { gateway?: Record<string, string>; services?: Record<string, string> } = {}): Promise<ServiceProcesses> {
  const { mongoUrl, natsUrl } = infra();
  const common = { PORT: '0', HOST: '127.0.0.1', INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: 'info' };
  const services = { ...common, NATS_URL: natsUrl, NATS_PREFIX: natsPrefix(), ...env.services };
  const prefix = services.NATS_PREFIX;
  const started: ServiceProcess[] = [];
  try {
    const friendship = spawnService(serverOf('friendship'), { ...services, MONGO_URL: databaseUrl(mongoUrl, 'friendship') }, TRACING_IMPORT);
    started.push(friendship);
    const tasks = spawnService(serverOf('tasks'), { ...services, MONGO_URL: databaseUrl(mongoUrl, 'tasks') }, TRACING_IMPORT);
    started.push(tasks);
    const notifications = spawnService(serverOf('notifications'), { ...services, MONGO_URL: databaseUrl(mongoUrl, 'notifications') }, TRACING_IMPORT);
    started.push(notifications);
    const [friendshipUrl, tasksUrl, notificationsUrl] = await Promise.all([friendship.listening(60_000), tasks.listening(60_000), notifications.listening(60_000)]);
    const gateway = spawnService(serverOf('gateway'), {
      ...common, FRIENDSHIP_URL: friendshipUrl, TASKS_URL: tasksUrl, NOTIFICATIONS_URL: notificationsUrl, JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_MAX: '1000000', RATE_LIMIT_IN_FLIGHT_MAX: '10000', ...env.gateway,
    }, TRACING_IMPORT);
    started.push(gateway);
    const gatewayUrl = await gateway.listening(60_000);
    const outputs = { friendship, tasks, notifications, gateway };
    return {
      gatewayUrl, friendshipUrl, tasksUrl, notificationsUrl, natsUrl, natsPrefix: prefix,
      output: (service) => outputs[service].output(),
      close: async () => void (await Promise.all(started.map(stop))),
    };
  } catch (error) {
    await Promise.all(started.map(stop));
    throw error;
  }
}
