import { describe, expect, it } from 'vitest';
import { registrationCache } from '../../src/registration-cache.ts';

const ann = { displayName: 'Ann', avatar: '' };

describe('registration cache', () => {
  it('is fresh only for the same values within the time to live', () => {
    let now = 0;
    const cache = registrationCache(10, 1_000, () => now);
    expect(cache.isFresh('app:a', 'x')).toBe(false);
    cache.remember('app:a', 'x', ann, cache.asOf);
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
    cache.remember('app:a', 'x', { displayName: 'Ann', avatar: 'https://cdn.example/ann.png' }, cache.asOf);
    expect(cache.storedSummary('app:a', 'x')).toEqual({ displayName: 'Ann', avatar: 'https://cdn.example/ann.png' });
    expect(cache.storedSummary('app:a', 'other claims')).toBeUndefined();
    now = 1_000;
    expect(cache.storedSummary('app:a', 'x')).toBeUndefined();
  });

  it('forgets the least recently registered gamer beyond its size', () => {
    const cache = registrationCache(2, 60_000, () => 0);
    cache.remember('a', '1', ann, cache.asOf);
    cache.remember('b', '1', ann, cache.asOf);
    cache.remember('a', '1', ann, cache.asOf);
    cache.remember('c', '1', ann, cache.asOf);
    expect(cache.size).toBe(2);
    expect(cache.isFresh('b', '1')).toBe(false);
    expect(cache.isFresh('a', '1')).toBe(true);
    expect(cache.isFresh('c', '1')).toBe(true);
  });

  it('forgets an erased gamer, and does not remember a registration whose write began before an erasure was heard', () => {
    const cache = registrationCache(10, 1_000, () => 0);
    cache.remember('app:a', 'x', ann, cache.asOf);
    cache.forget('app', 'a');
    expect(cache.isFresh('app:a', 'x')).toBe(false);
    // a write that started before the erasure's report may have landed before its delete
    const before = cache.asOf;
    cache.forget('app', 'b');
    cache.remember('app:a', 'x', ann, before);
    expect(cache.isFresh('app:a', 'x')).toBe(false);
    cache.remember('app:a', 'x', ann, cache.asOf);
    expect(cache.isFresh('app:a', 'x')).toBe(true);
  });
});
