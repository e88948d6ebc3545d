import { describe, expect, it } from 'vitest';
import { bytesPerConnection, DeliveryAudit, dueCount, gamerOfEvent, kneeOf, sourceAddresses, stormTimes } from '../../src/notifications-model.ts';

describe('dueCount (open-loop pacing)', () => {
  it('is the rate times the elapsed time, rounded down', () => {
    expect(dueCount(0, 1000, 10_000)).toBe(0);
    expect(dueCount(1, 1000, 10_000)).toBe(1);
    expect(dueCount(1.9, 1000, 10_000)).toBe(1);
    expect(dueCount(2_500, 1000, 10_000)).toBe(2_500);
    expect(dueCount(333, 300, 10_000)).toBe(99);
  });

  it('catches up after a late tick instead of slowing the offered rate', () => {
    // a tick 50 ms late owes 50 events at 1,000/s at once
    expect(dueCount(150, 1000, 10_000) - dueCount(100, 1000, 10_000)).toBe(50);
  });

  it('never exceeds the total, and nothing is due at a zero rate or before the start', () => {
    expect(dueCount(60_000, 1000, 10_000)).toBe(10_000);
    expect(dueCount(1_000, 0, 10)).toBe(0);
    expect(dueCount(-5, 1000, 10)).toBe(0);
  });
});

describe('gamerOfEvent', () => {
  it('goes round every gamer before any gets a second event', () => {
    const firstRound = Array.from({ length: 5 }, (_, i) => gamerOfEvent(i, 5));
    expect(new Set(firstRound).size).toBe(5);
    expect(gamerOfEvent(5, 5)).toBe(0);
    expect(gamerOfEvent(12, 5)).toBe(2);
  });
});

describe('bytesPerConnection', () => {
  it('divides the growth of RSS by the connections', () => {
    expect(bytesPerConnection(100 * 2 ** 20, 150 * 2 ** 20, 10_000)).toBeCloseTo((50 * 2 ** 20) / 10_000);
  });

  it('has no figure without connections or samples', () => {
    expect(bytesPerConnection(1, 2, 0)).toBeNaN();
    expect(bytesPerConnection(Number.NaN, 2, 10)).toBeNaN();
  });
});

describe('DeliveryAudit', () => {
  it('counts every event received once by its own gamer', () => {
    const audit = new DeliveryAudit();
    audit.expect('a', 1);
    audit.expect('b', 2);
    expect(audit.receive('a', 'n1', 1)).toBe(true);
    expect(audit.receive('b', 'n2', 2)).toBe(true);
    expect(audit.result()).toEqual({ expected: 2, received: 2, missing: 0, duplicates: 0, misrouted: 0 });
  });

  it('finds a gap', () => {
    const audit = new DeliveryAudit();
    audit.expect('a', 1);
    audit.expect('b', 1);
    audit.receive('a', 'n1', 1);
    expect(audit.result()).toMatchObject({ expected: 2, received: 1, missing: 1 });
    expect(audit.has('b')).toBe(false);
  });

  it('finds a duplicate, by event and by notification id', () => {
    const audit = new DeliveryAudit();
    audit.expect('a', 1);
    audit.expect('b', 1);
    audit.receive('a', 'n1', 1);
    expect(audit.receive('a', 'n9', 1)).toBe(false); // the same event again (a replay of a live one)
    expect(audit.receive('b', 'n1', 1)).toBe(false); // an id the client already had
    expect(audit.result()).toMatchObject({ duplicates: 2 });
  });

  it('finds a notification delivered to another gamer, or one nobody published', () => {
    const audit = new DeliveryAudit();
    audit.expect('a', 1);
    expect(audit.receive('a', 'n1', 2)).toBe(false);
    expect(audit.receive('zzz', 'n2', 1)).toBe(false);
    expect(audit.result()).toMatchObject({ received: 0, missing: 1, misrouted: 2 });
  });

  it('audits a subset of the events (one phase)', () => {
    const audit = new DeliveryAudit();
    audit.expect('a', 1);
    audit.expect('b', 1);
    audit.expect('c', 1);
    audit.receive('c', 'n3', 1);
    expect(audit.result(['b', 'c'])).toMatchObject({ expected: 2, received: 1, missing: 1 });
  });
});

describe('kneeOf', () => {
  const phase = (rate: number, p99: number, missing = 0, offeredPerS = rate) => ({ rate, p99, missing, offeredPerS });

  it('is the highest rate within the aim and the lowest beyond it', () => {
    expect(kneeOf([phase(4000, 120), phase(1000, 10), phase(2000, 30)], 50)).toEqual({ highestMet: 2000, lowestMissed: 4000 });
  });

  it('counts a rate with missing events, or not offered in full, as missed', () => {
    expect(kneeOf([phase(1000, 10), phase(2000, 10, 3)], 50)).toEqual({ highestMet: 1000, lowestMissed: 2000 });
    expect(kneeOf([phase(1000, 10), phase(2000, 10, 0, 1500)], 50)).toEqual({ highestMet: 1000, lowestMissed: 2000 });
  });

  it('has no knee when every rate met the aim, or none did', () => {
    expect(kneeOf([phase(1000, 10), phase(2000, 20)], 50)).toEqual({ highestMet: 2000, lowestMissed: undefined });
    expect(kneeOf([phase(1000, 80)], 50)).toEqual({ highestMet: undefined, lowestMissed: 1000 });
  });

  it('does not count a lucky higher rate after a missed lower one', () => {
    expect(kneeOf([phase(1000, 10), phase(2000, 90), phase(4000, 40)], 50)).toEqual({ highestMet: 1000, lowestMissed: 2000 });
  });
});

describe('stormTimes', () => {
  it('measures from the cut: first, percentiles and last socket back', () => {
    const cut = 1_000;
    const back = [1_300, 1_500, 2_000, 3_000];
    expect(stormTimes(cut, back, 4)).toEqual({ back: 4, first: 300, p50: 500, p99: 2_000, last: 2_000, allBack: true });
  });

  it('says when not every socket came back', () => {
    const t = stormTimes(0, [100], 3);
    expect(t.allBack).toBe(false);
    expect(t.back).toBe(1);
  });

  it('has no times when nothing came back', () => {
    expect(stormTimes(0, [], 2).last).toBeNaN();
  });
});

describe('sourceAddresses', () => {
  it('lists loopback addresses from 127.0.0.1', () => {
    expect(sourceAddresses(3)).toEqual(['127.0.0.1', '127.0.0.2', '127.0.0.3']);
    expect(sourceAddresses(0)).toEqual(['127.0.0.1']);
  });
});
