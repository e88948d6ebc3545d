import type { FastifyCorsOptions } from '@fastify/cors';

/**
 * Cross-origin calls from browser games served elsewhere than the gateway (CORS_ORIGINS).
 * Tokens travel in Authorization, never in cookies, so no credentials mode: a page of
 * another origin reads answers only with a token of its own. A preflight is answered before
 * authentication (it carries no token) and is not forwarded.
 */
export function corsOptions(setting: string): FastifyCorsOptions {
  return {
    origin: setting === '*' ? '*' : setting.split(','),
    credentials: false,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type', 'idempotency-key', 'x-request-id', 'traceparent', 'tracestate'],
    // what a client reads: the next page, when to retry, its budget, the id to quote
    exposedHeaders: ['link', 'retry-after', 'x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'allow'],
    maxAge: 600,
    // a plain OPTIONS (no Access-Control-Request-Method) gets the same 204, not the plugin's
    // text/plain 400: every error of the API is problem+json
    strictPreflight: false,
  };
}
