import { describe, expect, it } from 'vitest';
import { sightingThrottle } from '../../src/presence/throttle.ts';

describe('sightingThrottle', () => {
  it('lets one sighting per gamer through per interval', () => {
    const throttle = sightingThrottle(15_000, 100);
    expect(throttle.take('a', 0)).toBe(true);
    expect(throttle.take('a', 14_999)).toBe(false);
    expect(throttle.take('b', 14_999)).toBe(true);
    expect(throttle.take('a', 15_000)).toBe(true);
    expect(throttle.take('a', 20_000)).toBe(false);
  });

  it('forgets gamers past the interval and stays within its bound', () => {
    const throttle = sightingThrottle(1_000, 3);
    for (let i = 0; i < 10; i++) throttle.take(`g${i}`, i);
    expect(throttle.size).toBe(3);
    // the most recent are still throttled, the evicted one is let through again
    expect(throttle.take('g9', 10)).toBe(false);
    expect(throttle.take('g0', 10)).toBe(true);
    throttle.take('late', 5_000);
    expect(throttle.size).toBe(1);
  });
});
