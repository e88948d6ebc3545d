import { randomUUID } from 'node:crypto';
import { GenericContainer, getContainerRuntimeClient, Wait, type StartedTestContainer } from 'testcontainers';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    mongoUrl: string;
    natsUrl: string;
  }
}

const START_ATTEMPTS = 3;

/**
 * Podman 4.3 sometimes reports a fresh container's ports unbound when other containers start
 * at the same moment (another test run, a stack); a second try then works.
 */
async function startWithRetry(build: () => GenericContainer, what: string): Promise<StartedTestContainer> {
  for (let attempt = 1; ; attempt++) {
    const attemptId = randomUUID();
    try {
      return await build().withLabels({ 'gfts.test-attempt': attemptId }).start();
    } catch (error) {
      await removeAttempt(attemptId);
      if (attempt >= START_ATTEMPTS || !/ports to be bound/.test(String(error))) throw error;
      console.error(`${what} container: ${String(error)}; retrying (${attempt}/${START_ATTEMPTS})`);
    }
  }
}

/** A start that failed half-way leaves its container running; nothing else would stop it. */
async function removeAttempt(attemptId: string): Promise<void> {
  try {
    const client = await getContainerRuntimeClient();
    const container = await client.container.fetchByLabel('gfts.test-attempt', attemptId);
    if (container) await container.remove({ force: true });
  } catch (error) {
    console.error(`could not remove a failed test container: ${String(error)}`);
  }
}

/**
 * One MongoDB-compatible server and one NATS server for the whole integration run; test
 * files isolate themselves with their own database names and NATS prefix. Images are
 * configuration: official images by default, local FerretDB/NATS builds where
 * scripts/provision.sh set MONGO_IMAGE and NATS_IMAGE.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const mongoImage = process.env.MONGO_IMAGE ?? 'mongo:7';
  const natsImage = process.env.NATS_IMAGE ?? 'nats:2.11';
  const started: StartedTestContainer[] = [];
  const stopAll = async () => {
    // Ryuk is disabled where its image cannot be pulled, so the containers are ours to stop.
    await Promise.allSettled(started.map((c) => c.stop({ timeout: 5_000 })));
  };
  try {
    // One after the other: parallel starts make the Podman port race above likelier.
    const mongo = await startWithRetry(
      () =>
        new GenericContainer(mongoImage)
          .withExposedPorts(27017)
          // mongo says "Waiting for connections", FerretDB "Listening on"
          .withWaitStrategy(Wait.forLogMessage(/Waiting for connections|Listening on/))
          .withStartupTimeout(120_000),
      'database',
    );
    started.push(mongo);
    const nats = await startWithRetry(
      () =>
        new GenericContainer(natsImage)
          .withCommand(['-js', '-sd', '/data'])
          .withExposedPorts(4222)
          .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
          .withStartupTimeout(60_000),
      'NATS',
    );
    started.push(nats);
    project.provide('mongoUrl', `mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}`);
    project.provide('natsUrl', `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`);
  } catch (error) {
    await stopAll();
    throw error;
  }
  return stopAll;
}
