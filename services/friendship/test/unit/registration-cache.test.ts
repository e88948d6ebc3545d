import { describe, expect, it } from 'vitest';
import { registrationCache } from '../../src/registration-cache.ts';

const ann = { displayName: 'Ann', avatar: '' };

describe('registration cache', () => {
  it('is fresh only for the same values within the time to live', () => {
    let now = 0;
    const cache = registrationCache(10, 1_000, () => now);
    expect(cache.isFresh('app:a', 'x')).toBe(false);
    cache.remember(cache.begin('app:a', 'x'), ann);
    expect(cache.isFresh('app:a', 'x')).toBe(true);
    expect(cache.isFresh('app:a', 'renamed')).toBe(false);
    now = 999;
    expect(cache.isFresh('app:a', 'x')).toBe(true);
    now = 1_000;
    expect(cache.isFresh('app:a', 'x')).toBe(false);
  });

  it('answers what the directory held after the registration, only while it is fresh for the same claims', () => {
    let now = 0;
    const cache = registrationCache(10, 1_000, () => now);
    expect(cache.storedSummary('app:a', 'x')).toBeUndefined();
    cache.remember(cache.begin('app:a', 'x'), { displayName: 'Ann', avatar: 'https://cdn.example/ann.png' });
    expect(cache.storedSummary('app:a', 'x')).toEqual({ displayName: 'Ann', avatar: 'https://cdn.example/ann.png' });
    expect(cache.storedSummary('app:a', 'other claims')).toBeUndefined();
    now = 1_000;
    expect(cache.storedSummary('app:a', 'x')).toBeUndefined();
  });

  it('forgets the least recently registered gamer beyond its size', () => {
    const cache = registrationCache(2, 60_000, () => 0);
    cache.remember(cache.begin('a', '1'), ann);
    cache.remember(cache.begin('b', '1'), ann);
    cache.remember(cache.begin('a', '1'), ann);
    cache.remember(cache.begin('c', '1'), ann);
    expect(cache.size).toBe(2);
    expect(cache.isFresh('b', '1')).toBe(false);
    expect(cache.isFresh('a', '1')).toBe(true);
    expect(cache.isFresh('c', '1')).toBe(true);
  });

  it('forgets an erased gamer, and does not remember a registration whose write began before an erasure was heard', () => {
    const cache = registrationCache(10, 1_000, () => 0);
    cache.remember(cache.begin('app:a', 'x'), ann);
    cache.forget('app', 'a');
    expect(cache.isFresh('app:a', 'x')).toBe(false);
    // a write that started before the erasure's report may have landed before its delete
    const before = cache.begin('app:a', 'x');
    cache.forget('app', 'b');
    cache.remember(before, ann);
    expect(cache.isFresh('app:a', 'x')).toBe(false);
    cache.remember(cache.begin('app:a', 'x'), ann);
    expect(cache.isFresh('app:a', 'x')).toBe(true);
  });

  it('does not remember registrations of one gamer with other values that overlapped: which write landed last is not known', () => {
    const cache = registrationCache(10, 60_000, () => 0);
    const renamed = { displayName: 'New', avatar: '' };
    // an old token's call and the renamed token's, in flight at once; the new one answers first
    const old = cache.begin('app:a', 'old');
    const fresh = cache.begin('app:a', 'new');
    cache.remember(fresh, renamed);
    expect(cache.isFresh('app:a', 'new')).toBe(false);
    cache.remember(old, ann);
    expect(cache.isFresh('app:a', 'old')).toBe(false);
    // the next call writes again, alone this time, and is remembered
    cache.remember(cache.begin('app:a', 'new'), renamed);
    expect(cache.isFresh('app:a', 'new')).toBe(true);
    // a failed write of other values running beside a good one: what was remembered goes too
    const failing = cache.begin('app:a', 'old');
    const other = cache.begin('app:a', 'new');
    cache.end(failing);
    expect(cache.isFresh('app:a', 'new')).toBe(false);
    cache.remember(other, renamed);
    expect(cache.isFresh('app:a', 'new')).toBe(false);
  });

  it('remembers writes of the same values at once (a client\'s parallel calls): they store the same thing', () => {
    const cache = registrationCache(10, 60_000, () => 0);
    const first = cache.begin('app:a', 'x');
    const second = cache.begin('app:a', 'x');
    cache.remember(second, ann);
    cache.remember(first, ann);
    expect(cache.isFresh('app:a', 'x')).toBe(true);
  });

  it('registers through the directory write unless fresh, and not after a failed write', async () => {
    const cache = registrationCache(10, 60_000, () => 0);
    let writes = 0;
    const write = async () => (writes++, ann);
    await cache.register('app:a', 'x', write);
    await cache.register('app:a', 'x', write);
    expect(writes).toBe(1);
    await expect(cache.register('app:b', 'x', async () => Promise.reject(new Error('store away')))).rejects.toThrow('store away');
    await cache.register('app:b', 'x', write);
    expect(writes).toBe(2);
  });
});
