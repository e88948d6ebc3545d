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
