import { describe, expect, it } from 'vitest';
import { readNotificationsConfig } from '../../src/config.ts';

const base = { MONGO_URL: 'mongodb://localhost/notifications', NATS_URL: 'nats://localhost', INTERNAL_TOKEN_SECRET: 'x'.repeat(32) };

describe('the notifications settings', () => {
  it('refuses a socket drain that does not fit in the shutdown grace (the process would exit with its gamers still online)', () => {
    expect(() => readNotificationsConfig({ ...base, NOTIFY_DRAIN_MS: '10000', SHUTDOWN_GRACE_MS: '10000' })).toThrow(/NOTIFY_DRAIN_MS \(10000\) must be less than SHUTDOWN_GRACE_MS \(10000\)/);
    expect(readNotificationsConfig({ ...base, NOTIFY_DRAIN_MS: '9000', SHUTDOWN_GRACE_MS: '10000' }).NOTIFY_DRAIN_MS).toBe(9000);
    expect(readNotificationsConfig(base).NOTIFY_DRAIN_MS).toBe(2000);
  });
});
