import { describe, expect, it } from 'vitest';
import { backoffCeiling, backoffDelay, backoffOptions, DEFAULT_BACKOFF } from '../../src/notifications/backoff.ts';

const options = backoffOptions({ initialDelayMs: 100, multiplier: 2, maxDelayMs: 1_000, jitter: 0.5 });

describe('reconnect backoff', () => {
  it('doubles from the first delay up to the bound, then stays there', () => {
    expect(Array.from({ length: 8 }, (_, attempt) => backoffCeiling(attempt, options))).toEqual([100, 200, 400, 800, 1000, 1000, 1000, 1000]);
  });

  it('stays bounded however many attempts failed', () => {
    expect(backoffCeiling(10_000, options)).toBe(1_000);
    expect(backoffCeiling(10_000, DEFAULT_BACKOFF)).toBe(DEFAULT_BACKOFF.maxDelayMs);
    expect(backoffDelay(10_000, options, () => 0)).toBe(1_000);
  });

  it('draws each delay from [ceiling × (1 − jitter), ceiling]', () => {
    expect(backoffDelay(2, options, () => 0)).toBe(400);
    expect(backoffDelay(2, options, () => 0.5)).toBe(300);
    expect(backoffDelay(2, options, () => 0.999999)).toBe(200);
  });

  it('spreads a crowd of clients over the window instead of one instant', () => {
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const delays = Array.from({ length: 1000 }, () => backoffDelay(3, options, random)!);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(400);
    expect(Math.max(...delays)).toBeLessThanOrEqual(800);
    expect(new Set(delays).size).toBeGreaterThan(300);
  });

  it('full jitter may retry at once; no jitter is the plain schedule', () => {
    const full = backoffOptions({ initialDelayMs: 100, maxDelayMs: 1_000, jitter: 1 });
    expect(backoffDelay(0, full, () => 0.999999)).toBe(0);
    const none = backoffOptions({ initialDelayMs: 100, maxDelayMs: 1_000, jitter: 0 });
    expect(backoffDelay(1, none, () => 0.7)).toBe(200);
  });

  it('gives up after maxAttempts failed connects in a row, never by default', () => {
    // retry n follows n + 1 failed connects: with 3, two retries, then none after the third
    const three = backoffOptions({ maxAttempts: 3 });
    expect(backoffDelay(1, three, () => 0)).toBeDefined();
    expect(backoffDelay(2, three, () => 0)).toBeUndefined();
    expect(backoffDelay(0, backoffOptions({ maxAttempts: 1 }), () => 0)).toBeUndefined();
    expect(backoffDelay(1_000_000, DEFAULT_BACKOFF, () => 0)).toBe(DEFAULT_BACKOFF.maxDelayMs);
  });

  it('refuses settings that make no schedule', () => {
    expect(() => backoffOptions({ initialDelayMs: -1 })).toThrow(/initialDelayMs/);
    // 0 would retry as fast as the network refuses
    expect(() => backoffOptions({ initialDelayMs: 0 })).toThrow(/initialDelayMs/);
    expect(() => backoffOptions({ multiplier: 0.5 })).toThrow(/multiplier/);
    expect(() => backoffOptions({ initialDelayMs: 1_000, maxDelayMs: 10 })).toThrow(/maxDelayMs/);
    expect(() => backoffOptions({ maxDelayMs: Infinity })).toThrow(/maxDelayMs/);
    expect(() => backoffOptions({ jitter: 2 })).toThrow(/jitter/);
    expect(() => backoffOptions({ maxAttempts: 0 })).toThrow(/maxAttempts/);
  });
});
