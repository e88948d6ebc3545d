import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { allRoutes, openApiDocument } from '../../src/openapi.ts';

describe('OpenAPI document', () => {
  it('has every friendship endpoint of the specification', () => {
    const paths = openApiDocument().paths;
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/friendship/search', '/api/v1/friendship', '/api/v1/friendship/{friendshipId}/accept',
        '/api/v1/friendship/requests/incoming', '/api/v1/friendship/requests/outgoing',
        '/api/v1/friendship/requests/incoming/{friendshipId}', '/api/v1/friendship/requests/outgoing/{friendshipId}',
        '/api/v1/friendship/blocked/{friendshipId}', '/api/v1/friendship/block', '/api/v1/friendship/{friendshipId}',
        '/api/v1/friendship/blocked',
      ]),
    );
  });

  it('gives every operation a unique id, a summary and documented errors', () => {
    const ids = allRoutes().map((r) => r.schema.operationId);
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const route of allRoutes()) {
      expect(route.schema.summary, route.url).toBeTruthy();
      // Probes, metrics and the document take no input; every API operation may be refused one.
      if (route.url.startsWith('/api/')) expect(Object.keys(route.schema.response ?? {}), route.url).toContain('400');
    }
  });

  it('declares the Link header of every paged list, where a client generated from it learns of the next page', () => {
    const paths = openApiDocument().paths as Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
    const linked = Object.entries(paths).flatMap(([path, ops]) => Object.entries(ops).filter(([, op]) => op.responses['200']?.headers?.Link).map(([method]) => `${method} ${path}`));
    expect(linked.sort()).toEqual([
      'get /api/v1/admin/dead-letters', 'get /api/v1/friendship', 'get /api/v1/friendship/blocked',
      'get /api/v1/friendship/requests/incoming', 'get /api/v1/friendship/requests/outgoing', 'get /api/v1/notifications',
    ]);
  });

  it('declares 413 and 415 on every operation whose method carries a body, one without a body schema too', () => {
    const paths = openApiDocument().paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    const operations = Object.entries(paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ at: `${method} ${path}`, method, op })));
    const withBody = operations.filter(({ method }) => ['post', 'put', 'patch', 'delete'].includes(method));
    expect(withBody.map(({ at }) => at)).toContain('post /api/v1/notifications/ticket');
    for (const { at, op } of withBody) expect(Object.keys(op.responses), at).toEqual(expect.arrayContaining(['413', '415']));
  });

  it('declares the 503 every operation answers on an instance that is closing, and the console config\'s 404 when the console is off', () => {
    const paths = openApiDocument().paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    for (const [path, operations] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(operations)) expect(Object.keys(operation.responses), `${method} ${path}`).toContain('503');
    }
    expect(Object.keys(paths['/console/config.json']!.get!.responses)).toContain('404');
  });

  it('is committed as generated (run `pnpm openapi` after changing a contract)', () => {
    const committed = readFileSync(fileURLToPath(new URL('../../../../docs/openapi.json', import.meta.url)), 'utf8');
    expect(JSON.parse(committed)).toEqual(openApiDocument());
  });
});
