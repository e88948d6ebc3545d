import { fileURLToPath } from 'node:url';
import { natsInboxPrefix, natsNames } from '@gfts/contracts';
import { startConfiguredNats, type ConfiguredNats } from '@gfts/testkit';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSharedKv, type SharedKv } from '../../src/rate-limit/nats-kv.ts';
import { encodeCount } from '../../src/rate-limit/window.ts';

/**
 * The gateway's NATS user of deploy/compose (nats.conf and its generated nats-auth.conf, the
 * same permissions as Kubernetes) against a real server: with it the rate limiter reaches
 * its shared bucket (before this user existed, an authenticated server refused the gateway
 * and every replica silently limited on its own), and it can do nothing else.
 */
const compose = (file: string) => fileURLToPath(new URL(`../../../../deploy/compose/${file}`, import.meta.url));
const passwords = {
  NATS_TASKS_PASSWORD: 'test-tasks-password',
  NATS_FRIENDSHIP_PASSWORD: 'test-friendship-password',
  NATS_GATEWAY_PASSWORD: 'test-gateway-password',
  NATS_GS_6F1C2A9E_0D4B_4C8E_9F3A_1B2C3D4E5F60_PASSWORD: 'test-game-server-password',
};
const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
// compose's RATE_LIMIT_WINDOW_MS: the one bucket the generated permissions name
const WINDOW_MS = 60_000;

describe('the gateway NATS user (deploy/compose/nats-auth.conf)', () => {
  let server: ConfiguredNats;
  const opened: SharedKv[] = [];
  const shared = async (windowMs: number, password = passwords.NATS_GATEWAY_PASSWORD) => {
    const kv = connectSharedKv({ servers: server.url, credentials: { user: 'gateway', password }, windowMs, replicas: 1, timeoutMs: 2_000, log });
    opened.push(kv);
    await kv.firstAttempt;
    return kv;
  };

  beforeAll(async () => {
    server = await startConfiguredNats(
      [
        { source: compose('nats.conf'), name: 'nats.conf' },
        { source: compose('nats-auth.conf'), name: 'nats-auth.conf' },
      ],
      passwords,
    );
  });
  afterAll(async () => {
    await Promise.allSettled(opened.map((kv) => kv.close()));
    await server?.stop();
  });

  it('creates, reads and raises counters in its rate-limit bucket', async () => {
    const kv = (await shared(WINDOW_MS)).current();
    expect(kv, 'the shared bucket must be reachable as user gateway').toBeDefined();
    const revision = await kv!.create('gamer.1', encodeCount(1));
    await kv!.update('gamer.1', encodeCount(2), revision);
    expect(new TextDecoder().decode((await kv!.get('gamer.1'))?.value)).toBe('2');
  });

  it('is refused a bucket of another window length, and a wrong password', async () => {
    expect((await shared(30_000)).current()).toBeUndefined();
    expect((await shared(WINDOW_MS, 'not-the-password')).current()).toBeUndefined();
  });

  it('cannot publish stat events or read the stats stream', async () => {
    const nc = await connect({ servers: server.url, user: 'gateway', pass: passwords.NATS_GATEWAY_PASSWORD, inboxPrefix: natsInboxPrefix('gateway') });
    try {
      const names = natsNames('gfts');
      const errors: string[] = [];
      void (async () => {
        for await (const s of nc.status()) if (s.type === 'error') errors.push(String(s.error));
      })();
      nc.publish(names.statsSubject('6f1c2a9e-0d4b-4c8e-9f3a-1b2c3d4e5f60'), '{}');
      await nc.flush();
      const jsm = await jetstreamManager(nc, { timeout: 2_000 });
      await expect(jsm.streams.info(names.statsStream)).rejects.toThrow();
      expect(errors.join('\n')).toMatch(/Permissions Violation for Publish/i);
    } finally {
      await nc.close();
    }
  });
});
