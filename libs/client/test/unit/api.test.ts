import { clientErrorCode } from '@gfts/platform';
import { describe, expect, it } from 'vitest';
import { createApiClient, statusCode } from '../../src/api.ts';

/** An API client whose every call gets `response`. */
const answering = (response: () => Response) => createApiClient({ baseUrl: 'http://gw.test', token: 'tok', fetch: async () => response() });
const search = (api: ReturnType<typeof answering>) => api.GET('/api/v1/friendship/search', { params: { query: { displayName: 'bo' } } });

describe('createApiClient error answers', () => {
  it('makes an answer that is no problem (a load balancer\'s HTML, an empty 503) into one, so `error` is always a Problem', async () => {
    const html = await search(answering(() => new Response('<html><body>502 Bad Gateway</body></html>', { status: 502, statusText: 'Bad Gateway', headers: { 'content-type': 'text/html' } })));
    expect(html.error).toEqual({ type: 'about:blank', title: 'Bad Gateway', status: 502, code: 'UPSTREAM_UNAVAILABLE', detail: '<html><body>502 Bad Gateway</body></html>' });
    expect(html.response.status).toBe(502);
    const empty = await search(answering(() => new Response(null, { status: 503, headers: { 'content-length': '0' } })));
    expect(empty.error).toEqual({ type: 'about:blank', title: 'HTTP 503', status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(empty.data).toBeUndefined();
    const limited = await search(answering(() => new Response('slow down', { status: 429 })));
    expect(limited.error?.code).toBe('RATE_LIMITED');
  });

  it('keeps the services\' problems and successes as they are', async () => {
    const problem = { type: '/problems/validation-failed', title: 'Bad Request', status: 400, code: 'VALIDATION_FAILED', detail: 'displayName', requestId: 'r1' };
    const refused = await search(answering(() => new Response(JSON.stringify(problem), { status: 400, headers: { 'content-type': 'application/problem+json' } })));
    expect(refused.error).toEqual(problem);
    const found = await search(answering(() => new Response('[]', { status: 200, headers: { 'content-type': 'application/json' } })));
    expect([found.data, found.error]).toEqual([[], undefined]);
  });

  it('names a 4xx as the services do (libs/platform clientErrorCode), whatever answered it', () => {
    for (let status = 400; status < 500; status++) expect([status, statusCode(status)]).toEqual([status, clientErrorCode(status)]);
    expect([502, 503, 504, 500, 507].map(statusCode)).toEqual(['UPSTREAM_UNAVAILABLE', 'SERVICE_UNAVAILABLE', 'UPSTREAM_UNAVAILABLE', 'INTERNAL', 'INTERNAL']);
  });
});
