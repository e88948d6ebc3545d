import type { KV } from '@nats-io/kv';
import { describe, expect, it, vi } from 'vitest';
import { Breaker } from '../../src/rate-limit/breaker.ts';
import { InFlight } from '../../src/rate-limit/in-flight.ts';
import { Batcher, waiting, type Waiter } from '../../src/rate-limit/batcher.ts';
import { Leases } from '../../src/rate-limit/leases.ts';
import { LocalCounter } from '../../src/rate-limit/local-counter.ts';
import { bucketName, counterKey, counterTtlMs, decodeCount, encodeCount, grant, windowAt } from '../../src/rate-limit/window.ts';

describe('fixed windows', () => {
  it('aligns windows to the epoch, so every replica numbers them alike', () => {
    expect(windowAt(0, 60_000)).toEqual({ index: 0, resetsInMs: 60_000 });
    expect(windowAt(59_999, 60_000)).toEqual({ index: 0, resetsInMs: 1 });
    expect(windowAt(60_000, 60_000)).toEqual({ index: 1, resetsInMs: 60_000 });
    expect(windowAt(1_700_000_012_345, 1_000)).toEqual({ index: 1_700_000_012, resetsInMs: 655 });
  });

  it('keys a counter by gamer and window, with only characters KV keys accept', () => {
    const key = counterKey('app:gamer', windowAt(120_000, 60_000));
    expect(key).toMatch(/^[-_A-Za-z0-9]{43}\.2$/);
    expect(counterKey('app:gamer', windowAt(179_999, 60_000))).toBe(key);
    expect(counterKey('app:gamer', windowAt(180_000, 60_000))).not.toBe(key);
    expect(counterKey('app:other', windowAt(120_000, 60_000))).not.toBe(key);
    expect(counterKey('weird *.> key with spaces', windowAt(0, 1_000))).toMatch(/^[-_A-Za-z0-9]{43}\.0$/);
  });

  it('gives each window length its own bucket, whose entries outlive a window', () => {
    expect(bucketName(60_000)).toBe('gateway_rate_limit_60000');
    expect(bucketName(60_000)).toMatch(/^[-_A-Za-z0-9]+$/);
    expect(counterTtlMs(60_000)).toBe(120_000);
  });
});

describe('counter values', () => {
  it('round-trips counts as decimal text', () => {
    expect(new TextDecoder().decode(encodeCount(42))).toBe('42');
    expect(decodeCount(encodeCount(42))).toBe(42);
  });

  it('reads an empty or foreign value as zero', () => {
    for (const text of ['', 'abc', '-3', '1.5', '1e400']) expect(decodeCount(new TextEncoder().encode(text)), text).toBe(0);
    expect(decodeCount(undefined)).toBe(0);
  });
});

describe('granting requests that arrive together', () => {
  it('grants all while the budget lasts, and writes the new count', () => {
    expect(grant(0, 3, 1)).toEqual({ granted: 1, next: 1 });
    expect(grant(0, 3, 3)).toEqual({ granted: 3, next: 3 });
  });

  it('grants the first ones up to the budget and refuses the rest', () => {
    expect(grant(1, 3, 5)).toEqual({ granted: 2, next: 3 });
  });

  it('grants nothing, and writes nothing new, once the budget is spent', () => {
    expect(grant(3, 3, 1)).toEqual({ granted: 0, next: 3 });
    expect(grant(3, 3, 4)).toEqual({ granted: 0, next: 3 });
  });
});

describe('leasing slots ahead of requests', () => {
  it('takes the slots wanted while a quarter of what is left covers them', () => {
    expect(grant(0, 600, 1, 64)).toEqual({ granted: 64, next: 64 });
    expect(grant(100, 600, 3, 64)).toEqual({ granted: 64, next: 164 });
  });

  it('shrinks the lease to a quarter of what is left, down to the waiting requests alone', () => {
    expect(grant(500, 600, 1, 64)).toEqual({ granted: 25, next: 525 });
    expect(grant(590, 600, 1, 64)).toEqual({ granted: 2, next: 592 });
    expect(grant(597, 600, 1, 64)).toEqual({ granted: 1, next: 598 });
    expect(grant(597, 600, 2, 64)).toEqual({ granted: 2, next: 599 });
  });

  it('never takes more than is left, and nothing once it is spent', () => {
    expect(grant(598, 600, 5, 64)).toEqual({ granted: 2, next: 600 });
    expect(grant(600, 600, 1, 64)).toEqual({ granted: 0, next: 600 });
  });

  it('hands out a lease\'s slots in order, then nothing', () => {
    const leases = new Leases(64, 1, 10_000);
    leases.keep('a', 5, 4, 11, 13);
    expect(leases.take('a', 1_000, 5_100)).toEqual({ current: 11, ttl: 900 });
    expect(leases.take('a', 1_000, 5_200)).toEqual({ current: 12, ttl: 800 });
    expect(leases.take('a', 1_000, 5_300)).toEqual({ current: 13, ttl: 700 });
    expect(leases.take('a', 1_000, 5_400)).toBeUndefined();
    expect(leases.take('b', 1_000, 5_400)).toBeUndefined();
  });

  it('forgets the counters it remembered when the bucket is made again, and keeps the slots leased', () => {
    const leases = new Leases(64, 1, 10_000);
    leases.keep('a', 5, 4, 1, 4, { window: 5, count: 4, revision: 9 });
    expect(leases.known('a')).toEqual({ window: 5, count: 4, revision: 9 });
    leases.forgetKnown();
    expect(leases.known('a')).toBeUndefined();
    expect(leases.take('a', 1_000, 5_500)?.current).toBe(1);
  });

  it('drops a lease when its window ends', () => {
    const leases = new Leases(64, 1, 10_000);
    leases.keep('a', 5, 4, 11, 13);
    expect(leases.take('a', 1_000, 6_000)).toBeUndefined();
  });

  it('keeps an empty lease when nothing beyond the requests was granted', () => {
    const leases = new Leases(64, 1, 10_000);
    leases.keep('a', 5, 2, 11, 10);
    expect(leases.take('a', 1_000, 5_000)).toBeUndefined();
    expect(leases.size('a', 5)).toBe(4);
  });

  it('doubles a gamer\'s lease within a window up to the cap, and starts at the first size in the next', () => {
    const leases = new Leases(32, 4, 10_000);
    expect(leases.size('a', 5)).toBe(4);
    let size = 4;
    const sizes = [];
    for (let i = 0; i < 5; i++) {
      leases.keep('a', 5, size, 1, 0);
      size = leases.size('a', 5);
      sizes.push(size);
    }
    expect(sizes).toEqual([8, 16, 32, 32, 32]);
    expect(leases.size('a', 6)).toBe(4);
    expect(leases.size('b', 5)).toBe(4);
  });

  it('starts no larger than the cap, and at one slot when asked to', () => {
    expect(new Leases(1, 4, 10_000).size('a', 5)).toBe(1);
    expect(new Leases(2, 4, 10_000).size('a', 5)).toBe(2);
    const single = new Leases(8, 1, 10_000);
    expect(single.size('a', 5)).toBe(1);
    single.keep('a', 5, 1, 1, 0);
    expect(single.size('a', 5)).toBe(2);
  });

  it('gives no slot to a request the replica already decided alone (its wait for the store timed out)', () => {
    const waiter = (answerBy: number): Waiter => ({ resolve: () => undefined, reject: () => undefined, answerBy });
    const [late, onTime] = [waiter(1_000), waiter(1_100)];
    expect(waiting([late, onTime], 1_000)).toEqual([onTime]);
    expect(waiting([late, onTime], 999)).toEqual([late, onTime]);
  });

  it('forgets the least recently leased gamer past its capacity', () => {
    const leases = new Leases(64, 1, 2);
    leases.keep('a', 5, 4, 1, 3);
    leases.keep('b', 5, 4, 1, 3);
    leases.keep('a', 5, 8, 4, 10);
    leases.keep('c', 5, 4, 1, 3);
    expect(leases.take('b', 1_000, 5_000)).toBeUndefined();
    expect(leases.take('a', 1_000, 5_000)?.current).toBe(4);
  });
});

describe('the local counter', () => {
  it('counts per key within a window and starts again in the next', () => {
    const counter = new LocalCounter();
    expect(counter.count('a', 1_000, 5_000)).toEqual({ current: 1, ttl: 1_000 });
    expect(counter.count('a', 1_000, 5_400)).toEqual({ current: 2, ttl: 600 });
    expect(counter.count('b', 1_000, 5_500)).toEqual({ current: 1, ttl: 500 });
    expect(counter.count('a', 1_000, 6_000)).toEqual({ current: 1, ttl: 1_000 });
  });

  it('drops the key whose window began first past its capacity', () => {
    const counter = new LocalCounter(2);
    counter.count('a', 1_000, 0);
    counter.count('b', 1_000, 0);
    counter.count('a', 1_000, 0);
    counter.count('c', 1_000, 0);
    expect(counter.count('a', 1_000, 0).current).toBe(1);
  });
});

describe('the breaker', () => {
  it('pauses the shared store after a failure and reports only the start and end of an outage', () => {
    const breaker = new Breaker(1_000);
    expect(breaker.allows(0)).toBe(true);
    expect(breaker.trip(100)).toBe(true);
    expect(breaker.allows(500)).toBe(false);
    expect(breaker.allows(1_100)).toBe(true);
    expect(breaker.trip(1_100)).toBe(false);
    expect(breaker.allows(2_000)).toBe(false);
    expect(breaker.recover()).toBe(true);
    expect(breaker.allows(2_000)).toBe(true);
    expect(breaker.recover()).toBe(false);
  });

  it('lets one probe through per pause during an outage; the rest skip the store until it answers', () => {
    const breaker = new Breaker(1_000);
    breaker.trip(0);
    expect([1_000, 1_001, 1_500].map((ms) => breaker.allows(ms))).toEqual([true, false, false]);
    // the probe failed: another pause, another single probe
    breaker.trip(1_600);
    expect([2_000, 2_600, 2_601].map((ms) => breaker.allows(ms))).toEqual([false, true, false]);
    // the probe answered: everyone goes to the store again
    breaker.recover();
    expect([2_700, 2_700, 2_700].map((ms) => breaker.allows(ms))).toEqual([true, true, true]);
  });
});

describe('requests a gamer holds at once', () => {
  it('gives each gamer up to max slots, and a slot given back serves again', () => {
    const inFlight = new InFlight(2);
    expect([inFlight.take('a'), inFlight.take('a'), inFlight.take('a')]).toEqual([true, true, false]);
    expect(inFlight.take('b')).toBe(true);
    inFlight.give('a');
    expect(inFlight.take('a')).toBe(true);
    expect(inFlight.take('a')).toBe(false);
  });

  it('forgets a gamer who holds nothing', () => {
    const inFlight = new InFlight(1);
    inFlight.take('a');
    inFlight.take('b');
    inFlight.give('a');
    expect(inFlight.gamers).toBe(1);
    inFlight.give('b');
    expect(inFlight.gamers).toBe(0);
  });
});

describe('counter updates across a bucket made again', () => {
  /** A bucket whose writes answer when the test says: what incrementShared calls of a KV handle. */
  function bucket() {
    const answers: (() => void)[] = [];
    let revision = 0;
    const kv = {
      put: () => new Promise<number>((resolve) => answers.push(() => resolve(++revision))),
      get: async () => null,
    };
    return { kv: kv as unknown as KV, answerAll: () => answers.splice(0).forEach((answer) => answer()), pending: () => answers.length };
  }

  it('does not remember the count of an update that ran on the old bucket when it ends after the new one was used', async () => {
    const [old, fresh] = [bucket(), bucket()];
    let current = old.kv;
    const leases = new Leases(64, 4, 100);
    const batcher = new Batcher(() => current, leases);
    const answerBy = performance.now() + 60_000;
    // a first update, on the old bucket, remembers its count
    const first = batcher.increment('ann', 60_000, 100, answerBy);
    old.answerAll();
    await first;
    expect(leases.known('ann')).toBeDefined();
    // Bob's update is in flight on the old bucket when it is made again and Cid's update uses the new one
    const bob = batcher.increment('bob', 60_000, 100, answerBy);
    await vi.waitFor(() => expect(old.pending()).toBe(1));
    current = fresh.kv;
    const cid = batcher.increment('cid', 60_000, 100, answerBy);
    await vi.waitFor(() => expect(fresh.pending()).toBe(1));
    fresh.answerAll();
    await cid;
    old.answerAll();
    await bob;
    // the old bucket's counts are forgotten, the one that ended late too; the new one's kept
    expect(leases.known('ann')).toBeUndefined();
    expect(leases.known('bob')).toBeUndefined();
    expect(leases.known('cid')).toBeDefined();
  });
});
