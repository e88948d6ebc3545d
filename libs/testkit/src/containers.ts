import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GenericContainer, getContainerRuntimeClient, Wait, type StartedTestContainer } from 'testcontainers';

const START_ATTEMPTS = 3;

export const mongoImage = (): string => process.env.MONGO_IMAGE ?? 'mongo:7';
/** Which store the image is: tests that branch on what the store can do assert the branch is this one's. */
export const storeEngineOf = (image: string): 'mongodb' | 'ferretdb' => (/ferretdb/i.test(image) ? 'ferretdb' : 'mongodb');
export const natsImage = (): string => process.env.NATS_IMAGE ?? 'nats:2.11';

/**
 * Podman 4.3 sometimes reports a fresh container's ports unbound when other containers start
 * at the same moment (another test run, a stack); a second try then works.
 */
export async function startWithRetry(build: () => GenericContainer, what: string): Promise<StartedTestContainer> {
  for (let attempt = 1; ; attempt++) {
    const attemptId = randomUUID();
    try {
      // gfts.test-run: scripts/test.sh removes the run's containers on Ctrl-C, when no teardown runs
      const run = process.env.GFTS_TEST_RUN;
      return await build().withLabels({ 'gfts.test-attempt': attemptId, ...(run ? { 'gfts.test-run': run } : {}) }).start();
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

/** Which host port to publish on: random (0) unless a test needs the address to survive a restart. */
const port = (container: number, host?: number) => (host ? { container, host } : container);

/** A MongoDB-compatible server (mongo, or FerretDB keeping its SQLite files in the container). */
export function mongoContainer(hostPort?: number): GenericContainer {
  return new GenericContainer(mongoImage())
    .withExposedPorts(port(27017, hostPort))
    // mongo says "Waiting for connections", FerretDB "Listening on"
    .withWaitStrategy(Wait.forLogMessage(/Waiting for connections|Listening on/))
    .withStartupTimeout(120_000);
}

/**
 * JetStream of the test servers. A stream reserves its max_bytes in the server's store when
 * created (STATS_STREAM_MAX_BYTES and the others: about 3 GiB for one tasks service), and
 * every test stack creates its own under its own prefix, so the store's default, 75 % of the
 * free disk, would refuse streams after a few dozen stacks. Nothing near it is written.
 */
const TEST_JETSTREAM_CONF = 'jetstream { store_dir: "/data", max_file_store: 64TB }\n';

/** A NATS server with JetStream, its store in the container's /data. */
export function natsContainer(hostPort?: number): GenericContainer {
  return new GenericContainer(natsImage())
    .withCopyContentToContainer([{ content: TEST_JETSTREAM_CONF, target: '/etc/nats/test.conf' }])
    .withCommand(['--config', '/etc/nats/test.conf'])
    .withExposedPorts(port(4222, hostPort))
    .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
    .withStartupTimeout(60_000);
}

/**
 * Stops a container (SIGTERM, its filesystem kept) and starts it again `downMs` later, on the
 * same fixed host ports: an outage of a dependency whose data survives. `whileDown` runs
 * once the container is stopped.
 */
export async function outage(container: StartedTestContainer, downMs: number, whileDown?: () => Promise<void>): Promise<void> {
  const client = await getContainerRuntimeClient();
  const handle = client.container.getById(container.getId());
  await client.container.stop(handle, { timeout: 10_000 });
  const up = Date.now() + downMs;
  await whileDown?.();
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, up - Date.now())));
  await client.container.start(handle);
}

/**
 * A NATS server of a test's own, for tests that stop it (an outage) without taking the
 * shared one from every other test file.
 */
export async function startNats(): Promise<{ url: string; stop: () => Promise<void> }> {
  const started = await startWithRetry(() => natsContainer(), 'NATS');
  return { url: `nats://${started.getHost()}:${started.getMappedPort(4222)}`, stop: async () => void (await started.stop({ timeout: 5_000 })) };
}

export interface ConfiguredNats {
  url: string;
  stop(): Promise<void>;
  /** Writes these files' new text into /etc/nats and has the server reload its configuration (as `nats-server --signal reload`). */
  reload(files: { text: string; name: string }[]): Promise<void>;
}

/**
 * A NATS server of its own, started from configuration files (copied to /etc/nats, the
 * first one is the server's --config) and environment (passwords the files reference),
 * for tests of a configuration rather than of the services.
 */
export async function startConfiguredNats(files: { source: string; name: string }[], environment: Record<string, string>): Promise<ConfiguredNats> {
  const [main] = files;
  if (!main) throw new Error('a NATS configuration file is needed');
  const container = await startWithRetry(
    () =>
      new GenericContainer(natsImage())
        .withCopyFilesToContainer(files.map((f) => ({ source: f.source, target: `/etc/nats/${f.name}` })))
        .withEnvironment(environment)
        .withCommand(['--config', `/etc/nats/${main.name}`])
        .withExposedPorts(4222)
        .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
        .withStartupTimeout(60_000),
    'configured NATS',
  );
  return {
    url: `nats://${container.getHost()}:${container.getMappedPort(4222)}`,
    stop: async () => {
      await container.stop({ timeout: 5_000 });
    },
    reload: async (changed) => {
      await container.copyContentToContainer(changed.map((f) => ({ content: f.text, target: `/etc/nats/${f.name}` })));
      // the server is the container's process 1: /nats-server in ours and the official scratch
      // image, on the PATH in the alpine one
      let signalled = await container.exec(['/nats-server', '--signal', 'reload=1']).catch(() => undefined);
      if (signalled?.exitCode !== 0) signalled = await container.exec(['nats-server', '--signal', 'reload=1']);
      if (signalled.exitCode !== 0) throw new Error(`nats-server reload failed: ${signalled.output}`);
    },
  };
}

const composeFile = (name: string) => fileURLToPath(new URL(`../../../deploy/compose/${name}`, import.meta.url));

/**
 * A test password for every NATS user deploy/compose/nats-auth.conf names (`$NATS_<USER>_PASSWORD`),
 * so a user added to the generated file cannot leave a test's server without its variable.
 */
export function composeNatsPasswords(): Record<string, string> {
  const names = readFileSync(composeFile('nats-auth.conf'), 'utf8').match(/\$NATS_[A-Z0-9_]+_PASSWORD/g) ?? [];
  return Object.fromEntries(names.map((name) => [name.slice(1), `test-${name.slice(1).toLowerCase()}`]));
}

/** The test password of one `NATS_<USER>_PASSWORD` of compose's users; throws for a user the file does not have. */
export function composeNatsPassword(variable: string): string {
  const password = composeNatsPasswords()[variable];
  if (password === undefined) throw new Error(`deploy/compose/nats-auth.conf has no ${variable}`);
  return password;
}

/** A NATS server with compose's configuration and users (deploy/compose/nats*.conf), passwords from composeNatsPasswords(). */
export function startComposeNats(): Promise<ConfiguredNats> {
  return startConfiguredNats(
    [
      { source: composeFile('nats.conf'), name: 'nats.conf' },
      { source: composeFile('nats-auth.conf'), name: 'nats-auth.conf' },
    ],
    composeNatsPasswords(),
  );
}

export type { StartedTestContainer } from 'testcontainers';
