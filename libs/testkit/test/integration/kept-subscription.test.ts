import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keepSubscribed } from '@gfts/platform';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConfiguredNats, type ConfiguredNats } from '../../src/containers.ts';
import { eventually } from '../../src/index.ts';

/** A server whose user `listener` may or may not subscribe to `game.events`. */
const configuration = (allowed: boolean) => `
listen: 0.0.0.0:4222
authorization {
  users = [
    { user: listener, password: listener-password, permissions: { subscribe: { allow: [${allowed ? '"game.events", ' : ''}"_INBOX.>"] } } }
    { user: sender, password: sender-password }
  ]
}
`;

/**
 * A subscription NATS refused (a permission file without the subject, as during a rollout)
 * is made again, and works once the server allows it; stopping it afterwards does not fail.
 */
describe('a kept subscription', () => {
  let server: ConfiguredNats;
  let listener: NatsConnection;
  let sender: NatsConnection;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kept-subscription-'));
    writeFileSync(join(dir, 'nats.conf'), configuration(false));
    server = await startConfiguredNats([{ source: join(dir, 'nats.conf'), name: 'nats.conf' }], {});
    listener = await connect({ servers: server.url, user: 'listener', pass: 'listener-password' });
    sender = await connect({ servers: server.url, user: 'sender', pass: 'sender-password' });
  });
  afterAll(async () => {
    await listener?.close();
    await sender?.close();
    await server?.stop();
  });

  it('is made again after NATS refused it, and hears the subject once NATS allows it', async () => {
    const warnings: string[] = [];
    const heard: string[] = [];
    const log = { warn: (_o: unknown, message?: string) => void warnings.push(message ?? '') } as never;
    const kept = keepSubscribed(listener, 'game.events', { what: 'no game event is heard', log, retryMs: 100 }, (msg) => void heard.push(msg.string()));
    try {
      // refused at once, then again: it keeps trying instead of going quiet
      await eventually(async () => warnings.length >= 2, 10_000);
      expect(warnings[0]).toBe('subscription ended by NATS, subscribing again: no game event is heard meanwhile');
      await server.reload([{ text: configuration(true), name: 'nats.conf' }]);
      // heard once a try after the reload has taken
      await eventually(async () => {
        sender.publish('game.events', 'match-1');
        await sender.flush();
        return heard.length > 0;
      }, 15_000);
      expect(heard[0]).toBe('match-1');
    } finally {
      await kept.drain();
    }
  });

  it('stops without failing while NATS refuses it', async () => {
    const warnings: string[] = [];
    const log = { warn: (_o: unknown, message?: string) => void warnings.push(message ?? '') } as never;
    const kept = keepSubscribed(listener, 'game.secrets', { what: 'nothing', log, retryMs: 100 }, () => undefined);
    await eventually(async () => warnings.length >= 1, 10_000);
    await expect(kept.drain()).resolves.toBeUndefined();
    const after = warnings.length;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(warnings.length).toBe(after);
  });
});
