import { describe, expect, it } from 'vitest';
import { ApiProblem } from '../../src/api/client.ts';
import { gatewayState, read } from '../../src/pages/readings.ts';

const answer = read(Promise.resolve({ status: 'ok' }));
const httpError = read(Promise.reject(new ApiProblem(502, { title: 'Bad Gateway', code: 'UPSTREAM_UNAVAILABLE' })));
// what an ingress answers while the gateway is down: a page, no problem of ours
const ingressError = read(Promise.reject(new ApiProblem(502, { title: '<html>502 Bad Gateway</html>' })));
const networkError = read(Promise.reject(new TypeError('Failed to fetch')));

describe('the gateway\'s state on the Health page', () => {
  it('is checking before any reading', () => {
    expect(gatewayState([undefined, undefined])).toBe('checking');
  });

  it('is ready when any call got an answer from it, an HTTP error included', async () => {
    expect(gatewayState([await answer, await networkError])).toBe('ready');
    expect(gatewayState([await httpError, await httpError])).toBe('ready');
    expect(gatewayState([await networkError, await httpError])).toBe('ready');
  });

  it('is unreachable when every call failed without an answer from it', async () => {
    expect(gatewayState([await networkError, await networkError])).toBe('unreachable');
    expect(gatewayState([await ingressError, await networkError])).toBe('unreachable');
    expect(gatewayState([await ingressError, await ingressError])).toBe('unreachable');
  });
});
