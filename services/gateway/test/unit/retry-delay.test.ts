import { describe, expect, it } from 'vitest';
import { proxyRetryDelay, RETRY_503_WINDOW_MS, retryWindow, tryAnotherReplica } from '../../src/retry-delay.ts';

describe('proxyRetryDelay (a 503 GET tried again)', () => {
  it('grows with each attempt, at random below 42 ms × the attempt count', () => {
    expect([0, 1, 9].map((attempt) => proxyRetryDelay(attempt, () => 1))).toEqual([42, 84, 420]);
    expect(proxyRetryDelay(3, () => 0.5)).toBe(84);
    // 0 would end the retries: reply-from retries only on a delay that is truthy
    expect(proxyRetryDelay(0, () => 0)).toBe(1);
  });

  it('waits about a second in all over the 10 tries, whatever Retry-After said', () => {
    const total = Array.from({ length: 10 }, (_, attempt) => proxyRetryDelay(attempt, () => 0.5)).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(1_000);
    expect(total).toBeLessThan(1_300);
  });
});

describe('retryWindow (how long a 503 GET is tried again)', () => {
  it('tries a request again within the window from its first 503, and not after; each request has its own', () => {
    const within = retryWindow();
    const [a, b] = [{}, {}];
    expect(within(a, 1_000)).toBe(true);
    expect(within(a, 1_000 + RETRY_503_WINDOW_MS)).toBe(true);
    expect(within(b, 1_000 + RETRY_503_WINDOW_MS + 1)).toBe(true);
    expect(within(a, 1_000 + RETRY_503_WINDOW_MS + 1)).toBe(false);
  });
});

describe('tryAnotherReplica', () => {
  it('tries again a 503 of a replica that is stopping (Retry-After of a second at most), not one that asks for longer or says nothing', () => {
    expect(tryAnotherReplica('1')).toBe(true);
    expect(tryAnotherReplica('0')).toBe(true);
    expect(tryAnotherReplica(['1'])).toBe(true);
    expect(tryAnotherReplica('5')).toBe(false);
    expect(tryAnotherReplica('Wed, 21 Oct 2026 07:28:00 GMT')).toBe(false);
    expect(tryAnotherReplica(undefined)).toBe(false);
    expect(tryAnotherReplica('')).toBe(false);
  });
});
