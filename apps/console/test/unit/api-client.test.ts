import { describe, expect, it } from 'vitest';
import { answerLost, ApiProblem, createApi, ok } from '../../src/api/client.ts';

describe('the console\'s API client', () => {
  it('ends a call that gets no answer within its timeout, instead of waiting for ever', async () => {
    const seen: Request[] = [];
    // a dead path: nothing answers until the call is aborted
    const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
      seen.push(input as Request);
      return new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)));
    };
    const api = createApi(() => 'tok', () => {}, { baseUrl: 'http://gw.test', fetch: fetch as typeof globalThis.fetch, timeoutMs: 50 });
    await expect(ok(api.GET('/api/v1/admin/health'))).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer tok');
  });

  it('takes a 504 or its own timeout for an answer lost (the work may still run), nothing else', () => {
    expect(answerLost(new ApiProblem(504, { code: 'UPSTREAM_UNAVAILABLE' }))).toBe(true);
    expect(answerLost(new DOMException('signal timed out', 'TimeoutError'))).toBe(true);
    expect(answerLost(new ApiProblem(502, { code: 'UPSTREAM_UNAVAILABLE' }))).toBe(false);
    expect(answerLost(new TypeError('Failed to fetch'))).toBe(false);
    expect(answerLost(null)).toBe(false);
  });
});
