import { describe, expect, it } from 'vitest';
import { deliverySettingsOf, LiveConsumerSettings } from '../../src/stats/live-consumer-settings.ts';

const configured = { maxDeliver: 5, ackWaitMs: 30_000 };

describe('deliverySettingsOf', () => {
  it('reads max_deliver as is and ack_wait from nanoseconds', () => {
    expect(deliverySettingsOf({ max_deliver: 3, ack_wait: 2_000_000_000 }, configured)).toEqual({ maxDeliver: 3, ackWaitMs: 2_000 });
  });

  it('takes a max_deliver of -1 or none as no limit, and keeps the last ack_wait when none is given', () => {
    expect(deliverySettingsOf({ max_deliver: -1 }, configured)).toEqual({ maxDeliver: Number.POSITIVE_INFINITY, ackWaitMs: 30_000 });
    expect(deliverySettingsOf({}, configured)).toEqual({ maxDeliver: Number.POSITIVE_INFINITY, ackWaitMs: 30_000 });
  });
});

describe('LiveConsumerSettings', () => {
  function clocked(read: () => Promise<{ max_deliver?: number; ack_wait?: number }>) {
    const clock = { now: 0 };
    const live = new LiveConsumerSettings(configured, read, () => clock.now);
    return { clock, live };
  }

  it('answers the configured settings until a read answered, then the server\'s', async () => {
    const { live } = clocked(async () => ({ max_deliver: 8, ack_wait: 1_000_000_000 }));
    expect(live.current).toEqual(configured);
    expect(await live.fresh(1_000)).toEqual({ maxDeliver: 8, ackWaitMs: 1_000 });
    expect(live.current).toEqual({ maxDeliver: 8, ackWaitMs: 1_000 });
  });

  it('reads again only once its settings are older than asked, one read at a time', async () => {
    let reads = 0;
    const { clock, live } = clocked(async () => ({ max_deliver: ++reads, ack_wait: 1_000_000_000 }));
    live.adopt({ max_deliver: 4, ack_wait: 1_000_000_000 });
    clock.now = 1_000;
    expect((await live.fresh(1_000)).maxDeliver).toBe(4);
    clock.now = 1_001;
    const [a, b] = await Promise.all([live.fresh(1_000), live.fresh(1_000)]);
    expect([a.maxDeliver, b.maxDeliver, reads]).toEqual([1, 1, 1]);
  });

  it('keeps the settings it has when a read fails', async () => {
    const { clock, live } = clocked(async () => {
      throw new Error('no responders');
    });
    live.adopt({ max_deliver: 4, ack_wait: 1_000_000_000 });
    clock.now = 5_000;
    expect(await live.fresh(1_000)).toEqual({ maxDeliver: 4, ackWaitMs: 1_000 });
  });
});

describe('LiveConsumerSettings, waiting at most a while', () => {
  it('answers the settings last read when the read takes longer than asked, and takes the read when it comes', async () => {
    let answer!: (config: { max_deliver: number; ack_wait: number }) => void;
    const live = new LiveConsumerSettings(configured, () => new Promise((resolve) => (answer = resolve)), () => 10_000);
    expect(await live.fresh(1_000, 20)).toEqual(configured);
    answer({ max_deliver: 9, ack_wait: 3_000_000_000 });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(live.current).toEqual({ maxDeliver: 9, ackWaitMs: 3_000 });
  });
});
