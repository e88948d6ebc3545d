import type { StartedTestContainer } from 'testcontainers';
import type { TestProject } from 'vitest/node';
import { mongoContainer, mongoImage, natsContainer, startWithRetry, storeEngineOf } from './containers.ts';
import { keepContainers } from './debug.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    mongoUrl: string;
    natsUrl: string;
    storeEngine: 'mongodb' | 'ferretdb';
  }
}

/**
 * One MongoDB-compatible server and one NATS server for the whole integration run; test
 * files isolate themselves with their own database names and NATS prefix. Images are
 * configuration: official images by default, local FerretDB/NATS builds where
 * scripts/provision.sh set MONGO_IMAGE and NATS_IMAGE. With GFTS_KEEP_CONTAINERS=1 the
 * teardown leaves both running, to look at what the tests left, and says how to remove them.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started: StartedTestContainer[] = [];
  const stopAll = async () => {
    // Ryuk is disabled where its image cannot be pulled, so the containers are ours to stop.
    await Promise.allSettled(started.map((c) => c.stop({ timeout: 5_000 })));
  };
  // Ryuk (testcontainers' reaper, on with Docker) would remove them when the run ends.
  if (keepContainers()) process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  try {
    // One after the other: parallel starts make the Podman port race (see startWithRetry) likelier.
    const mongo = await startWithRetry(() => mongoContainer(), 'database');
    started.push(mongo);
    const nats = await startWithRetry(() => natsContainer(), 'NATS');
    started.push(nats);
    project.provide('mongoUrl', `mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}`);
    project.provide('natsUrl', `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`);
    project.provide('storeEngine', storeEngineOf(mongoImage()));
  } catch (error) {
    await stopAll();
    throw error;
  }
  if (!keepContainers()) return stopAll;
  const [mongo, nats] = started as [StartedTestContainer, StartedTestContainer];
  return async () => {
    const name = (c: StartedTestContainer) => c.getName().replace(/^\//, '');
    const engine = process.env.GFTS_ENGINE ?? (process.env.DOCKER_HOST?.includes('podman') ? 'podman' : 'docker');
    console.error([
      'GFTS_KEEP_CONTAINERS=1: the test containers keep running (each test file used its own database and NATS prefix)',
      `  database  ${name(mongo)}  mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}`,
      `  NATS      ${name(nats)}  nats://${nats.getHost()}:${nats.getMappedPort(4222)}`,
      `  remove them: ${engine} rm -f ${name(mongo)} ${name(nats)}`,
    ].join('\n'));
  };
}
