import { describe, expect, it } from 'vitest';
import { batchSizeBuckets } from '../../src/stats/metrics.ts';

describe('batchSizeBuckets', () => {
  it('ends at CONSUMER_BATCH with a bucket just under it, so a full batch shows as one', () => {
    expect(batchSizeBuckets(500)).toEqual([1, 4, 16, 64, 125, 250, 499, 500]);
    expect(batchSizeBuckets(5000)).toEqual([1, 4, 16, 64, 256, 1024, 1250, 2500, 4999, 5000]);
  });

  it('stays ascending and positive for the smallest batches', () => {
    expect(batchSizeBuckets(1)).toEqual([1]);
    expect(batchSizeBuckets(2)).toEqual([1, 2]);
    expect(batchSizeBuckets(10)).toEqual([1, 2, 5, 9, 10]);
  });
});
