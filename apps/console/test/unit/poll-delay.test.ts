import { describe, expect, it } from 'vitest';
import { ApiProblem } from '../../src/api/client.ts';
import { failureKind, nextPollDelay } from '../../src/api/poll-delay.ts';

describe('the pace of a page\'s polls', () => {
  it('stays at the usual interval after a success or an ordinary failure', () => {
    expect(nextPollDelay(2_000, 2_000, 'ok')).toBe(2_000);
    expect(nextPollDelay(2_000, 2_000, 'failed')).toBe(2_000);
    // back to the usual pace at the first success
    expect(nextPollDelay(16_000, 2_000, 'ok')).toBe(2_000);
  });

  it('doubles after an API that asks for room or does not answer, up to 30 s', () => {
    const waits = [2_000];
    for (let i = 0; i < 6; i++) waits.push(nextPollDelay(waits.at(-1)!, 2_000, 'unavailable'));
    expect(waits).toEqual([2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
    expect(nextPollDelay(5_000, 5_000, 'unavailable')).toBe(10_000);
  });

  it('takes 429, 503 and no answer at all or in time as unavailable, other answers as ordinary failures', () => {
    expect(failureKind(new ApiProblem(429, { title: 'Too Many Requests' }))).toBe('unavailable');
    expect(failureKind(new ApiProblem(503, { title: 'Service Unavailable' }))).toBe('unavailable');
    expect(failureKind(new TypeError('Failed to fetch'))).toBe('unavailable');
    // no answer in time: the client's own timeout, the gateway's
    expect(failureKind(new DOMException('signal timed out', 'TimeoutError'))).toBe('unavailable');
    expect(failureKind(new ApiProblem(504, { title: 'Gateway Timeout' }))).toBe('unavailable');
    expect(failureKind(new ApiProblem(502, { title: 'Bad Gateway' }))).toBe('failed');
    expect(failureKind(new ApiProblem(404, { title: 'Not Found' }))).toBe('failed');
    expect(failureKind(new SyntaxError('not JSON'))).toBe('failed');
  });
});
