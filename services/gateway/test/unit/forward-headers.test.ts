import { describe, expect, it } from 'vitest';
import { answerHeaders, forwardHeaders } from '../../src/forward-headers.ts';

describe('forwardHeaders', () => {
  const incoming = {
    authorization: 'Bearer caller-token',
    'x-gfts-identity': 'forged-assertion',
    'X-User-Id': 'someone-else',
    'x-gamer-id': 'someone-else',
    'x-application-id': 'other-app',
    'x-forwarded-user': 'admin',
    cookie: 'session=1',
    'x-request-id': 'caller-chosen',
    'content-type': 'application/json',
    accept: 'application/json',
  };

  it('drops every caller-sent identity header and the bearer token', () => {
    const out = forwardHeaders(incoming, 'signed-by-gateway', 'req-1');
    expect(out['authorization']).toBeUndefined();
    expect(out['cookie']).toBeUndefined();
    expect(out['X-User-Id']).toBeUndefined();
    expect(out['x-gamer-id']).toBeUndefined();
    expect(out['x-application-id']).toBeUndefined();
    expect(out['x-forwarded-user']).toBeUndefined();
  });

  it('drops every header of the x-gfts- prefix a caller sends, whatever its name, and the auth proxies\' identity headers', () => {
    const out = forwardHeaders({ ...incoming, 'X-Gfts-Roles': 'admin', 'x-gfts-ticket': 't', 'x-gfts-anything-new': '1', 'x-forwarded-email': 'a@b', 'x-authenticated-user': 'admin', 'remote-user': 'admin' }, 'signed-by-gateway', 'req-1');
    // until 2026-11-28 only the listed names: these reached the services
    expect(Object.keys(out).filter((name) => /^x-gfts-/i.test(name))).toEqual(['x-gfts-identity']);
    expect(out['x-gfts-identity']).toBe('signed-by-gateway');
    expect(out['x-forwarded-email']).toBeUndefined();
    expect(out['x-authenticated-user']).toBeUndefined();
    expect(out['remote-user']).toBeUndefined();
    expect(out['content-type']).toBe('application/json');
  });

  it('drops a caller\'s trace context: the gateway starts the trace and sends its own', () => {
    const out = forwardHeaders({ ...incoming, traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`, tracestate: 'x=1', baggage: 'k=v' }, undefined, 'req-1');
    expect(out['traceparent']).toBeUndefined();
    expect(out['tracestate']).toBeUndefined();
    expect(out['baggage']).toBeUndefined();
    expect(out['accept']).toBe('application/json');
  });

  it('carries the gateway assertion and the request id it chose', () => {
    const out = forwardHeaders(incoming, 'signed-by-gateway', 'req-1');
    expect(out['x-gfts-identity']).toBe('signed-by-gateway');
    expect(out['x-request-id']).toBe('req-1');
  });

  it('sends no assertion at all when there is no verified identity', () => {
    const out = forwardHeaders(incoming, undefined, 'req-2');
    expect(out['x-gfts-identity']).toBeUndefined();
  });

  it('drops the caller\'s chunked framing: the gateway frames what it forwards', () => {
    const out = forwardHeaders({ ...incoming, 'transfer-encoding': 'chunked', 'content-length': '4' }, 'a', 'r');
    expect(out['transfer-encoding']).toBeUndefined();
    expect(out['content-length']).toBe('4');
  });

  it('drops the caller\'s own proxy claims (Forwarded, X-Forwarded-*, X-Real-IP)', () => {
    const out = forwardHeaders({ forwarded: 'for=10.0.0.1;host=evil', 'x-forwarded-for': '10.0.0.1', 'x-forwarded-host': 'evil', 'x-forwarded-proto': 'http', 'x-forwarded-port': '80', 'x-real-ip': '10.0.0.1', accept: 'application/json' }, 'a', 'r');
    expect(Object.keys(out).sort()).toEqual(['accept', 'x-gfts-identity', 'x-request-id'].sort());
  });

  it('keeps ordinary headers', () => {
    const out = forwardHeaders(incoming, 'a', 'r');
    expect(out['content-type']).toBe('application/json');
    expect(out['accept']).toBe('application/json');
  });
});

describe('answerHeaders', () => {
  it('marks an answer not to be stored unless the service said how to cache it, and drops the service connection\'s own headers', () => {
    expect(answerHeaders({ 'content-type': 'application/json', connection: 'close', 'keep-alive': 'timeout=5' })).toEqual({ 'content-type': 'application/json', 'cache-control': 'no-store' });
    expect(answerHeaders({ 'cache-control': 'public, max-age=60' })).toEqual({ 'cache-control': 'public, max-age=60' });
  });
});
