import { describe, expect, it } from 'vitest';
import { heapOverMemoryLimit } from '../../src/lifecycle.ts';

const MiB = 1_048_576;
const machine = 24 * 1024 * MiB;

describe('heapOverMemoryLimit', () => {
  it('names a heap limit above three quarters of the container\'s memory limit', () => {
    // what Node 24 gives a 256 Mi pod: a 259 MiB heap limit
    expect(heapOverMemoryLimit(259 * MiB, 256 * MiB, machine)).toEqual({ heapLimitMb: 259, memoryLimitMb: 256 });
    expect(heapOverMemoryLimit(300 * MiB, 384 * MiB, machine)).toEqual({ heapLimitMb: 300, memoryLimitMb: 384 });
  });

  it('is quiet when the heap fits the limit', () => {
    expect(heapOverMemoryLimit(259 * MiB, 512 * MiB, machine)).toBeUndefined();
    expect(heapOverMemoryLimit(384 * MiB, 768 * MiB, machine)).toBeUndefined();
    expect(heapOverMemoryLimit(288 * MiB, 384 * MiB, machine)).toBeUndefined();
  });

  it('is quiet when nothing limits the process', () => {
    expect(heapOverMemoryLimit(4288 * MiB, undefined, machine)).toBeUndefined();
    expect(heapOverMemoryLimit(4288 * MiB, 0, machine)).toBeUndefined();
    // cgroup v1 without a limit, raw and as libuv answers it (UINT64_MAX)
    expect(heapOverMemoryLimit(4288 * MiB, 9_223_372_036_854_771_712, machine)).toBeUndefined();
    expect(heapOverMemoryLimit(4288 * MiB, 2 ** 64, machine)).toBeUndefined();
  });
});
