import { describe, expect, it } from 'vitest';
import { natsConnectionOptions } from '../../src/connections.ts';

describe('natsConnectionOptions', () => {
  it('turns off the stack nats.js captures up front for every request (CPU on every call)', () => {
    expect(natsConnectionOptions('nats://a:4222', 'gateway').noAsyncTraces).toBe(true);
  });

  it('keeps reconnecting for ever, with an inbox prefix of its own and the credentials given', () => {
    const options = natsConnectionOptions('nats://a:4222, nats://b:4222', 'tasks', { user: 'tasks', password: 'secret' });
    expect(options).toMatchObject({ servers: ['nats://a:4222', 'nats://b:4222'], name: 'tasks', maxReconnectAttempts: -1, user: 'tasks', pass: 'secret' });
    expect(options.inboxPrefix).toMatch(/tasks/);
    expect(() => natsConnectionOptions('nats://a:4222', 'tasks', { user: 'tasks' })).toThrow(/together/);
  });

  it('takes no empty server from a trailing or doubled comma', () => {
    expect(natsConnectionOptions('nats://a:4222,, nats://b:4222,', 'tasks').servers).toEqual(['nats://a:4222', 'nats://b:4222']);
  });

  it('keeps reconnecting through authorization errors (a password rotated out of order) instead of closing for good', () => {
    expect(natsConnectionOptions('nats://a:4222', 'tasks', { user: 'tasks', password: 'secret' }).ignoreAuthErrorAbort).toBe(true);
  });

  it('takes a server that answers no ping for 20–30 s for dead (nats.js waits 4–6 minutes by default)', () => {
    const { pingInterval, maxPingOut } = natsConnectionOptions('nats://a:4222', 'tasks');
    expect(pingInterval! * (maxPingOut! + 1)).toBeLessThanOrEqual(30_000);
    expect(pingInterval).toBeGreaterThanOrEqual(5_000);
  });
});
