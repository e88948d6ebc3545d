import { NotificationCloseCode } from '@gfts/contracts';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CLOSE_REASONS, liveMetrics } from '../../src/live/metrics.ts';

describe('gfts_notifications_closed_total', () => {
  it('names the reason of every close code the server sends, 1013 (a catch-up that overflowed) included', async () => {
    const registry = new Registry();
    const metrics = liveMetrics(registry, () => 0, () => 0);
    for (const code of Object.values(NotificationCloseCode)) metrics.closed(code);
    const text = await registry.getSingleMetricAsString('gfts_notifications_closed_total');
    expect(text).toContain('gfts_notifications_closed_total{reason="catch_up_overflow"} 1');
    // no reason is a bare number
    expect(text).not.toMatch(/reason="\d+"/);
    expect(Object.values(CLOSE_REASONS)).toHaveLength(new Set(Object.values(CLOSE_REASONS)).size);
  });
});
