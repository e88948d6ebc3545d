import { ConfigError } from '@gfts/platform';
import { describe, expect, it } from 'vitest';
import { definitionCacheOverHeap, readTasksConfig } from '../../src/config.ts';

const MB = 1_048_576;

describe('the task definition cache against the heap', () => {
  const { TASK_DEFINITION_CACHE_SIZE } = readTasksConfig({ MONGO_URL: 'mongodb://localhost/tasks', NATS_URL: 'nats://localhost', INTERNAL_TOKEN_SECRET: 'x'.repeat(32) });

  it('says so when the default cache, full, would take more than half a small heap', () => {
    // a heap bounded at 128 MiB (--max-old-space-size=128)
    expect(definitionCacheOverHeap(TASK_DEFINITION_CACHE_SIZE, 128 * MB)).toEqual({ cacheMb: 114, heapLimitMb: 128 });
    expect(definitionCacheOverHeap(TASK_DEFINITION_CACHE_SIZE, 200 * MB)).toEqual({ cacheMb: 114, heapLimitMb: 200 });
  });

  it('is quiet when it fits in half, and for no cache', () => {
    expect(definitionCacheOverHeap(TASK_DEFINITION_CACHE_SIZE, 384 * MB)).toBeUndefined();
    expect(definitionCacheOverHeap(TASK_DEFINITION_CACHE_SIZE, 229 * MB)).toBeUndefined();
    expect(definitionCacheOverHeap(0, 16 * MB)).toBeUndefined();
  });
});

describe('how long processed events are remembered', () => {
  const base = { MONGO_URL: 'mongodb://localhost/tasks', NATS_URL: 'nats://localhost', INTERNAL_TOKEN_SECRET: 'x'.repeat(32) };

  it('is at least as long as the stats stream keeps events, so a replayed event never counts twice', () => {
    const problems = (() => {
      try {
        readTasksConfig({ ...base, PROCESSED_EVENT_RETENTION_MS: String(86_400_000), STATS_STREAM_MAX_AGE_MS: String(2 * 86_400_000) });
      } catch (error) {
        if (error instanceof ConfigError) return error.problems;
        throw error;
      }
      return [];
    })();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^PROCESSED_EVENT_RETENTION_MS \(86400000\) must be at least STATS_STREAM_MAX_AGE_MS \(172800000\)/);
    // equal is enough, and so are the defaults
    expect(readTasksConfig({ ...base, PROCESSED_EVENT_RETENTION_MS: String(86_400_000), STATS_STREAM_MAX_AGE_MS: String(86_400_000) }).PROCESSED_EVENT_RETENTION_MS).toBe(86_400_000);
    expect(readTasksConfig(base).PROCESSED_EVENT_RETENTION_MS).toBe(7 * 86_400_000);
  });
});

describe('settings that would break the stream or the retries', () => {
  const base = { MONGO_URL: 'mongodb://localhost/tasks', NATS_URL: 'nats://localhost', INTERNAL_TOKEN_SECRET: 'x'.repeat(32) };

  it('refuses a duplicate window longer than the stream keeps events (JetStream refuses the stream)', () => {
    expect(() => readTasksConfig({ ...base, STATS_DUPLICATE_WINDOW_MS: String(3 * 60_000), STATS_STREAM_MAX_AGE_MS: String(2 * 60_000) })).toThrow(/STATS_DUPLICATE_WINDOW_MS \(180000\) must be at most STATS_STREAM_MAX_AGE_MS \(120000\)/);
    expect(readTasksConfig({ ...base, STATS_DUPLICATE_WINDOW_MS: String(2 * 60_000), STATS_STREAM_MAX_AGE_MS: String(2 * 60_000) }).STATS_DUPLICATE_WINDOW_MS).toBe(120_000);
  });

  it('refuses a retry base of 0 (every delivery of a failing event at once) and a sweep interval past what a timer takes', () => {
    for (const env of [{ STATS_RETRY_BASE_MS: '0' }, { ERASURE_RETRY_BASE_MS: '0' }, { EXPIRY_SWEEP_INTERVAL_MS: '2592000000' }, { SHUTDOWN_GRACE_MS: '0' }]) {
      expect(() => readTasksConfig({ ...base, ...env }), JSON.stringify(env)).toThrow(ConfigError);
    }
  });
});

describe('ack waits', () => {
  const base = { MONGO_URL: 'mongodb://localhost/tasks', NATS_URL: 'nats://localhost', INTERNAL_TOKEN_SECRET: 'x'.repeat(32) };

  it('are at most an hour: a third of one paces the keep-alives, and past ~74 days that timer fired every millisecond', () => {
    for (const key of ['STATS_ACK_WAIT_MS', 'ERASURE_ACK_WAIT_MS']) {
      expect(readTasksConfig({ ...base, [key]: '3600000' })[key as 'STATS_ACK_WAIT_MS']).toBe(3_600_000);
      expect(() => readTasksConfig({ ...base, [key]: '3600001' })).toThrow(new RegExp(`${key} must be <= 3600000`));
    }
  });
});
