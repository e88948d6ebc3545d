import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** What a page of another origin may read: the next page, when to retry, its budget, the id to quote. */
const EXPOSED_HEADERS = ['link', 'retry-after', 'x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'allow'];

export function corsOptions(setting: string): FastifyCorsOptions {
  return {
    origin: setting === '*' ? '*' : setting.split(','),
    credentials: false,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type', 'idempotency-key', 'x-request-id', 'traceparent', 'tracestate'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
    // a plain OPTIONS (no Access-Control-Request-Method) gets the same 204, not the plugin's
    // text/plain 400: every error of the API is problem+json
    strictPreflight: false,
  };
}

/**
 * Cross-origin calls from browser games served elsewhere than the gateway (CORS_ORIGINS).
 * Tokens travel in Authorization, never in cookies, so no credentials mode: a page of
 * another origin reads answers only with a token of its own. A preflight is answered before
 * authentication (it carries no token) and is not forwarded. The answers that hooks before
 * the plugin's give (a 404 or 405 of an unknown path, a 503 while closing) get its headers
 * on the way out, so the page sees the problem instead of an opaque CORS error.
 */
export async function registerCors(app: FastifyInstance, setting: string): Promise<void> {
  await app.register(cors, corsOptions(setting));
  const origins = new Set(setting.split(','));
  app.addHook('onSend', async (request, reply) => {
    // an answer that depends on the origin says so to caches, whoever asked (as the plugin does)
    if (setting !== '*') {
      const vary = String(reply.getHeader('vary') ?? '');
      if (!/(^|,)\s*origin\s*(,|$)/i.test(vary)) reply.header('vary', vary ? `${vary}, Origin` : 'Origin');
    }
    const origin = request.headers.origin;
    if (origin === undefined || reply.hasHeader('access-control-allow-origin')) return;
    if (setting !== '*' && !origins.has(origin)) return;
    reply.header('access-control-allow-origin', setting === '*' ? '*' : origin);
    reply.header('access-control-expose-headers', EXPOSED_HEADERS.join(','));
  });
}
