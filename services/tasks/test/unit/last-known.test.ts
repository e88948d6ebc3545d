import { describe, expect, it } from 'vitest';
import { LastKnown, NATS_GAUGE_STALE_MS } from '../../src/stats/last-known.ts';

describe('LastKnown (gauges read from NATS)', () => {
  it('is unknown before a read, keeps a read through failed ones for a minute, then is unknown again', () => {
    const known = new LastKnown();
    expect(known.now(0)).toBeNaN();
    known.read(1_500, 1_000);
    expect(known.now(1_000)).toBe(1_500);
    expect(known.now(1_000 + NATS_GAUGE_STALE_MS)).toBe(1_500);
    expect(known.now(1_001 + NATS_GAUGE_STALE_MS)).toBeNaN();
    // a new read stands again
    known.read(0, 2_000 + NATS_GAUGE_STALE_MS);
    expect(known.now(2_000 + NATS_GAUGE_STALE_MS)).toBe(0);
  });
});
