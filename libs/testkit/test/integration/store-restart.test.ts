import { connectMongo, pingMongo } from '@gfts/platform';
import { mongoContainer, outage, startWithRetry, type StartedTestContainer } from '../../src/containers.ts';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freePort } from '../../src/index.ts';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The driver's internals this test reaches into to place the race exactly. */
interface MonitorInternals {
  connection: { socket: { destroy(): void } } | null;
  requestCheck(): void;
}

function monitorOf(connection: Connection): MonitorInternals {
  const servers = (connection.getClient() as unknown as { topology: { s: { servers: Map<string, { monitor: MonitorInternals }> } } }).topology.s.servers;
  const [server] = [...servers.values()];
  return server!.monitor;
}

/**
 * A store restart must never leave a service unable to reach its store again. The driver's
 * server monitor (mongodb 7.8) wedged for good when its heartbeat was written on a socket
 * already destroyed but not yet reported closed: the write waits for a `drain` that never
 * comes, and the close does not end that wait. Once an operation then failed on a closed
 * connection, the server stayed unknown: every later operation failed server selection and
 * /readyz answered 503 until the process was restarted. (A server that reports a topology
 * version, as MongoDB does, gets its monitor restarted on such an error; FerretDB does not
 * report one.) Seen in the tasks chaos test about one run in three after the store came back;
 * patches/mongodb@7.8.0.patch fixes it (docs/operations.md, "Patched dependencies"). The race
 * is placed here on purpose, then the store is restarted under load.
 */
describe('connection to the store', () => {
  let store: StartedTestContainer;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    store = await startWithRetry(() => mongoContainer(port), 'database');
  });
  afterAll(async () => {
    await store?.stop({ timeout: 5_000 });
  });

  it('comes back after a restart even when a heartbeat raced its socket closing', async () => {
    const connection = await connectMongo(`mongodb://127.0.0.1:${port}/reconnect`, silent);
    try {
      await pingMongo(connection);
      const monitor = monitorOf(connection);
      // let the monitor's minimum interval (500 ms) pass, so the check below runs at once
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(monitor.connection).not.toBeNull();
      // the socket goes away and, before its close event is delivered, a check writes on it
      monitor.connection!.socket.destroy();
      monitor.requestCheck();

      // operations in flight when the store stops fail on their closed connections, which
      // marks the server unknown: only a monitor check that completes makes it selectable again
      let storeAway = false;
      const writes = connection.collection('writes');
      const writing = (async () => {
        while (!storeAway) await Promise.all(Array.from({ length: 8 }, () => writes.updateOne({ _id: 'n' as never }, { $inc: { n: 1 } }, { upsert: true }).catch(() => undefined)));
      })();
      await outage(store, 1_000, async () => {
        storeAway = true;
        await writing;
      });
      // a working monitor finds the store within a few of its 500 ms retries; a wedged one never
      await eventually(async () => pingMongo(connection).then(() => true, () => false), 15_000, 250);
    } finally {
      await connection.close();
    }
  });
});
