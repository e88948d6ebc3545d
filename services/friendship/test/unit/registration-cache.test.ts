import { describe, expect, it } from 'vitest';
import { registrationCache } from '../../src/registration-cache.ts';

describe('registration cache', () => {
  it('is fresh only for the same values within the time to live', () => {
    let now = 0;
    const cache = registrationCache(10, 1_000, () => now);
    expect(cache.isFresh('app:a', 'x')).toBe(false);
    cache.remember('app:a', 'x');
    expect(cache.isFresh('app:a', 'x')).toBe(true);
    expect(cache.isFresh('app:a', 'renamed')).toBe(false);
    now = 999;
    expect(cache.isFresh('app:a', 'x')).toBe(true);
    now = 1_000;
    expect(cache.isFresh('app:a', 'x')).toBe(false);
  });

  it('forgets the least recently registered gamer beyond its size', () => {
    const cache = registrationCache(2, 60_000, () => 0);
    cache.remember('a', '1');
    cache.remember('b', '1');
    cache.remember('a', '1');
    cache.remember('c', '1');
    expect(cache.size).toBe(2);
    expect(cache.isFresh('b', '1')).toBe(false);
    expect(cache.isFresh('a', '1')).toBe(true);
    expect(cache.isFresh('c', '1')).toBe(true);
  });
});
