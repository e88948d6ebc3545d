import { fileURLToPath } from 'node:url';
import { databaseUrl, infra, natsPrefix, spawnService, TEST_INTERNAL_SECRET, TEST_JWT_SECRET, type ServiceProcess } from '@gfts/testkit';

const serverOf = (service: string) => fileURLToPath(new URL(`../../../${service}/src/server.ts`, import.meta.url));

export interface ServiceProcesses {
  gatewayUrl: string;
  friendshipUrl: string;
  tasksUrl: string;
  close(): Promise<void>;
}

async function stop(process: ServiceProcess): Promise<void> {
  if (process.child.exitCode !== null) return;
  process.child.kill('SIGTERM');
  const stopped = await Promise.race([process.exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  if (!stopped) process.child.kill('SIGKILL');
}

/**
 * The gateway, friendship and tasks services as real processes (their src/server.ts, their
 * configuration from the environment), on the database and NATS containers of the global
 * setup, each service with its own database and all on one fresh NATS prefix.
 */
export async function startServiceProcesses(env: { gateway?: Record<string, string>; services?: Record<string, string> } = {}): Promise<ServiceProcesses> {
  const { mongoUrl, natsUrl } = infra();
  const common = { PORT: '0', HOST: '127.0.0.1', INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: 'info' };
  const services = { ...common, NATS_URL: natsUrl, NATS_PREFIX: natsPrefix(), ...env.services };
  const started: ServiceProcess[] = [];
  try {
    const friendship = spawnService(serverOf('friendship'), { ...services, MONGO_URL: databaseUrl(mongoUrl, 'friendship') });
    started.push(friendship);
    const tasks = spawnService(serverOf('tasks'), { ...services, MONGO_URL: databaseUrl(mongoUrl, 'tasks') });
    started.push(tasks);
    const [friendshipUrl, tasksUrl] = await Promise.all([friendship.listening(60_000), tasks.listening(60_000)]);
    const gateway = spawnService(serverOf('gateway'), {
      ...common, FRIENDSHIP_URL: friendshipUrl, TASKS_URL: tasksUrl, JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_MAX: '1000000', ...env.gateway,
    });
    started.push(gateway);
    const gatewayUrl = await gateway.listening(60_000);
    return { gatewayUrl, friendshipUrl, tasksUrl, close: async () => void (await Promise.all(started.map(stop))) };
  } catch (error) {
    await Promise.all(started.map(stop));
    throw error;
  }
}
