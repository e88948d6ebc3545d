import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessStack, type InProcessStack } from '../support/in-process.ts';

/** The gateway's forwarding prefixes (services/gateway/src/routing.ts). */
// the stats path has a proxy of its own (its body limit, routing.ts)
// the gateway's forwarding routes: its proxies' prefixes, and the catalog writes' paths, which
// it forwards with a body limit of their own (routing.ts) for any method
const PROXY_PREFIXES = new Set(['/api/v1/friendship', '/api/v1/notifications', '/api/v1/stats', '/api/v1', '/api/v1/:applicationId/tasks', '/api/v1/:applicationId/tasks/:taskId']);
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** "GET /api/v1/{applicationId}/tasks" for each operation of an OpenAPI document. */
function documentedOperations(document: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item).filter((key) => METHODS.includes(key)).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

describe('GET /openapi.json', () => {
  let stack: InProcessStack;
  beforeAll(async () => {
    stack = await startInProcessStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('serves docs/openapi.json without a token', async () => {
    const response = await fetch(new URL('/openapi.json', stack.gatewayUrl));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const committed = readFileSync(fileURLToPath(new URL('../../../../docs/openapi.json', import.meta.url)), 'utf8');
    expect(await response.json()).toEqual(JSON.parse(committed));
  });

  it('documents every route the gateway and the services declare, and no other', async () => {
    const declared = [
      // Under /api the gateway forwards (prefix and wildcard proxy routes: the services own
      // those paths), except for what it answers itself (the notification ticket and the
      // live channel's upgrade), which the document must hold too.
      ...stack.gateway.declaredRoutes().filter((route) => !route.url.startsWith('/api') || !(route.url.includes('*') || PROXY_PREFIXES.has(route.url))),
      ...stack.friendship.declaredRoutes(),
      ...stack.tasks.declaredRoutes(),
      ...stack.notifications.declaredRoutes(),
    ]
      // Fastify answers HEAD for every GET by itself; the document lists the GETs.
      .filter((route) => route.method !== 'HEAD')
      .map((route) => `${route.method} ${route.url.replace(/:(\w+)/g, '{$1}')}`);
    const response = await fetch(new URL('/openapi.json', stack.gatewayUrl));
    const documented = documentedOperations((await response.json()) as { paths: Record<string, Record<string, unknown>> });
    expect(new Set(documented).size).toBe(documented.length);
    expect([...new Set(declared)].sort()).toEqual([...documented].sort());
  });
});
