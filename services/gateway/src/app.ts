import { operationsRoutes } from '@gfts/contracts';
import { allRoutes, openApiDocument } from '@gfts/contracts/openapi';
import { createHttpServer, healthPlugin } from '@gfts/platform';
import type { FastifyInstance } from 'fastify';
import { authentication } from './authentication.ts';
import { registerCors } from './cors.ts';
import type { GatewayConfig } from './config.ts';
import { consolePlugin } from './console.ts';
import { rateLimiting } from './rate-limit/plugin.ts';
import { isLiveUpgrade } from './live-proxy.ts';
import { registerRoutes } from './routing.ts';
import { ticketSealer } from './tickets.ts';

async function upstreamReady(baseUrl: string): Promise<void> {
  const response = await fetch(new URL('/readyz', baseUrl), { signal: AbortSignal.timeout(1_500) });
  if (!response.ok) throw new Error(`${baseUrl} not ready`);
}

/** The public entry: authentication, rate limiting, routing; no business logic. */
export async function buildGateway(config: GatewayConfig): Promise<FastifyInstance> {
  const app = createHttpServer({
    service: 'gateway', logLevel: config.LOG_LEVEL, logBufferBytes: config.LOG_BUFFER_BYTES, bodyLimit: config.BODY_LIMIT_BYTES, requestTimeoutMs: config.REQUEST_TIMEOUT_MS, sendTimeoutMs: config.SEND_TIMEOUT_MS,
    // The services' routes, so that a method no /api route takes is a 405 with their Allow.
    upstreamRoutes: allRoutes().filter((route) => route.url.startsWith('/api/')),
    // the edge starts each trace; a client's traceparent is only linked (docs/operations.md)
    trustTraceContext: false,
    // the live channel is the one path that upgrades; elsewhere an Upgrade offer is ignored
    acceptsUpgrade: (request) => config.NOTIFICATIONS_URL !== undefined && isLiveUpgrade(request.method, request.url),
  });
  await app.register(healthPlugin, {
    checks: {
      friendship: () => upstreamReady(config.FRIENDSHIP_URL),
      tasks: () => upstreamReady(config.TASKS_URL),
      ...(config.NOTIFICATIONS_URL ? { notifications: () => upstreamReady(config.NOTIFICATIONS_URL!) } : {}),
    },
  });
  const tickets = ticketSealer(config.INTERNAL_TOKEN_SECRET, config.NOTIFY_TICKET_TTL_MS);
  // before authentication: a preflight carries no token and is answered here
  if (config.CORS_ORIGINS) await registerCors(app, config.CORS_ORIGINS);
  await app.register(authentication, { config, tickets });
  await app.register(rateLimiting, { config });
  // Generated from the contracts once, at start: the same document as docs/openapi.json.
  const document = openApiDocument();
  app.route({ ...operationsRoutes.openapi, logLevel: 'warn', handler: async () => document });
  // encapsulated: its security headers apply to the console's routes only
  await app.register(consolePlugin, { config });
  await registerRoutes(app, config, tickets);
  return app;
}
