import { natsInboxPrefix, natsNames, presenceBeatKey, presenceHolderFilter, presenceHoldKey, rateLimitBucket } from '@gfts/contracts';
import { composeNatsPassword, startComposeNats, type ConfiguredNats } from '@gfts/testkit';
import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
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
const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
// compose's RATE_LIMIT_WINDOW_MS: the one bucket the generated permissions name
const WINDOW_MS = 60_000;

describe('the gateway NATS user (deploy/compose/nats-auth.conf)', () => {
  let server: ConfiguredNats;
  const opened: SharedKv[] = [];
  const shared = async (windowMs: number, password = composeNatsPassword('NATS_GATEWAY_PASSWORD')) => {
    const kv = connectSharedKv({ servers: server.url, credentials: { user: 'gateway', password }, windowMs, replicas: 1, timeoutMs: 2_000, log });
    opened.push(kv);
    await kv.firstAttempt;
    return kv;
  };

  beforeAll(async () => {
    server = await startComposeNats();
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

  it('hears its bucket deleted, and makes it again at once', async () => {
    const heard: string[] = [];
    const listening = { ...log, info: (o: unknown, message?: string) => void heard.push(`${message ?? o} ${JSON.stringify(o)}`), warn: (o: unknown, message?: string) => void heard.push(`warn: ${message ?? o}`) };
    const kv = connectSharedKv({ servers: server.url, credentials: { user: 'gateway', password: composeNatsPassword('NATS_GATEWAY_PASSWORD') }, windowMs: WINDOW_MS, replicas: 1, timeoutMs: 2_000, log: listening });
    opened.push(kv);
    await kv.firstAttempt;
    expect(kv.current()).toBeDefined();
    // an operator deletes it (docs/operations.md, Operator access)
    const ops = await connect({ servers: server.url, user: 'ops', pass: composeNatsPassword('NATS_OPS_PASSWORD'), inboxPrefix: natsInboxPrefix('ops') });
    try {
      await (await jetstreamManager(ops)).streams.delete(`KV_${rateLimitBucket(WINDOW_MS)}`);
      await expect.poll(() => heard.some((line) => line.includes('bound again') && line.includes('bucket deleted')), { timeout: 10_000, interval: 50 }).toBe(true);
      expect((await (await jetstreamManager(ops)).streams.info(`KV_${rateLimitBucket(WINDOW_MS)}`)).config.name).toBe(`KV_${rateLimitBucket(WINDOW_MS)}`);
      expect(heard.filter((line) => line.startsWith('warn'))).toEqual([]);
    } finally {
      await ops.close();
    }
  });

  it('is refused a bucket of another window length, and a wrong password', async () => {
    expect((await shared(30_000)).current()).toBeUndefined();
    expect((await shared(WINDOW_MS, 'not-the-password')).current()).toBeUndefined();
  });

  it('writes no presence: the notifications user puts and purges its keys in the bucket the friendship user created and purges, and cannot create, purge or delete it', async () => {
    const names = natsNames('gfts');
    const user = (name: string) => connect({ servers: server.url, user: name, pass: composeNatsPassword(`NATS_${name.toUpperCase()}_PASSWORD`), inboxPrefix: natsInboxPrefix(name) });
    const [friendship, notifications, gateway] = await Promise.all([user('friendship'), user('notifications'), user('gateway')]);
    try {
      // as the notifications service's presence holder: bind, then put and purge; the friendship service owns the bucket
      const limits = { history: 1, storage: StorageType.Memory, markerTTL: 60_000 };
      await expect(new Kvm(jetstream(notifications, { timeout: 2_000 })).create(names.presenceBucket, limits)).rejects.toThrow();
      const owned = await new Kvm(jetstream(friendship)).create(names.presenceBucket, limits);
      // the friendship side reads the bucket only through its watch, as the service does
      const updates = await owned.watch();
      const writer = await new Kvm(jetstream(notifications, { timeout: 2_000 })).open(names.presenceBucket);
      await writer.status();
      const [app, gamer] = ['00000000-0000-0000-0000-00000000000a', '00000000-0000-0000-0000-00000000000b'];
      const entries = updates[Symbol.asyncIterator]();
      const next = async () => {
        const { value: entry } = await entries.next();
        return `${entry.operation} ${entry.key} ${entry.string()}`;
      };
      // The watch's consumer may start after `watch()` resolves, and it begins with the last
      // value of each key; and a purge rolls the key's earlier messages out of the stream, so
      // a put the watch has not delivered yet is gone once the purge lands (a put and a purge
      // written back to back came as the purge alone now and then, and the test waited for
      // the put until its timeout). So each write is awaited through the watch before the next.
      await writer.put(presenceBeatKey('holder-1'), '1700000000000');
      expect(await next()).toBe('PUT holder-1.alive 1700000000000');
      await writer.put(presenceHoldKey('holder-1', app, gamer), '1700000000000');
      expect(await next()).toBe(`PUT holder-1.${app}.${gamer} 1700000000000`);
      await writer.purge(presenceHoldKey('holder-1', app, gamer), { ttl: '60s' });
      expect(await next()).toBe(`PURGE holder-1.${app}.${gamer} `);
      updates.stop();
      await expect(writer.destroy()).rejects.toThrow();
      await expect((await jetstreamManager(notifications, { timeout: 2_000 })).streams.purge(names.presenceStream)).rejects.toThrow();
      // the friendship service purges a stopped replica's keys with one filtered purge
      const owner = await jetstreamManager(friendship);
      expect((await owner.streams.info(names.presenceStream)).state.messages).toBe(2);
      await owner.streams.purge(names.presenceStream, { filter: `$KV.${names.presenceBucket}.${presenceHolderFilter('holder-1')}` });
      expect((await owner.streams.info(names.presenceStream)).state.messages).toBe(0);
      // the gateway no longer writes presence (docs/friendship.md, Presence)
      const bound = await new Kvm(jetstream(gateway, { timeout: 2_000 })).open(names.presenceBucket);
      await expect(bound.status()).rejects.toThrow();
      await expect(bound.put('holder-2.alive', '1700000000000')).rejects.toThrow();
    } finally {
      await Promise.allSettled([gateway.close(), notifications.close(), friendship.close()]);
    }
  });

  it('cannot publish stat events or read the stats stream', async () => {
    const nc = await connect({ servers: server.url, user: 'gateway', pass: composeNatsPassword('NATS_GATEWAY_PASSWORD'), inboxPrefix: natsInboxPrefix('gateway') });
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
