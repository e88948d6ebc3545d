import { operationsRoutes } from '@gfts/contracts';
import { allRoutes, openApiDocument } from '@gfts/contracts/openapi';
import { createHttpServer, healthPlugin } from '@gfts/platform';
import type { FastifyInstance } from 'fastify';
import { authentication } from './authentication.ts';
import type { GatewayConfig } from './config.ts';
import { rateLimiting } from './rate-limit/plugin.ts';
import { registerRoutes } from './routing.ts';

async function upstreamReady(baseUrl: string): Promise<void> {
  const response = await fetch(new URL('/readyz', baseUrl), { signal: AbortSignal.timeout(1_500) });
  if (!response.ok) throw new Error(`${baseUrl} not ready`);
}

/** The public entry: authentication, rate limiting, routing; no business logic. */
export async function buildGateway(config: GatewayConfig): Promise<FastifyInstance> {
  const app = createHttpServer({
    service: 'gateway', logLevel: config.LOG_LEVEL, bodyLimit: config.BODY_LIMIT_BYTES,
    // The services' routes, so that a method no /api route takes is a 405 with their Allow.
    upstreamRoutes: allRoutes().filter((route) => route.url.startsWith('/api/')),
  });
  await app.register(healthPlugin, {
    checks: { friendship: () => upstreamReady(config.FRIENDSHIP_URL), tasks: () => upstreamReady(config.TASKS_URL) },
  });
  await app.register(authentication, { config });
  await app.register(rateLimiting, { config });
  // Generated from the contracts once, at start: the same document as docs/openapi.json.
  const document = openApiDocument();
  app.route({ ...operationsRoutes.openapi, logLevel: 'warn', handler: async () => document });
  await registerRoutes(app, config);
  return app;
}
