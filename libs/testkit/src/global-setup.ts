import type { StartedTestContainer } from 'testcontainers';
import type { TestProject } from 'vitest/node';
import { mongoContainer, natsContainer, startWithRetry } from './containers.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    mongoUrl: string;
    natsUrl: string;
  }
}

/**
 * One MongoDB-compatible server and one NATS server for the whole integration run; test
 * files isolate themselves with their own database names and NATS prefix. Images are
 * configuration: official images by default, local FerretDB/NATS builds where
 * scripts/provision.sh set MONGO_IMAGE and NATS_IMAGE.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started: StartedTestContainer[] = [];
  const stopAll = async () => {
    // Ryuk is disabled where its image cannot be pulled, so the containers are ours to stop.
    await Promise.allSettled(started.map((c) => c.stop({ timeout: 5_000 })));
  };
  try {
    // One after the other: parallel starts make the Podman port race (see startWithRetry) likelier.
    const mongo = await startWithRetry(() => mongoContainer(), 'database');
    started.push(mongo);
    const nats = await startWithRetry(() => natsContainer(), 'NATS');
    started.push(nats);
    project.provide('mongoUrl', `mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}`);
    project.provide('natsUrl', `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`);
  } catch (error) {
    await stopAll();
    throw error;
  }
  return stopAll;
}
