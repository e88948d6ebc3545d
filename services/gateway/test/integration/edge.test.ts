import { randomUUID } from 'node:crypto';
import { friendshipRoutes, IDENTITY_HEADER, tasksRoutes, type Role } from '@gfts/contracts';
import { createIdentitySigner } from '@gfts/platform';
import { client, gamer, mintToken, TEST_INTERNAL_SECRET, type ApiResponse, type Call } from '@gfts/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcesses, type ServiceProcesses } from '../support/processes.ts';

/**
 * What the client gets for its own mistakes, from the gateway and from each service, all
 * real processes. No timings are asserted: a body the proxying loses shows up as a 504
 * (the gateway's upstream timeout, shortened here) instead of the service's 400.
 */
const BODY_LIMIT_BYTES = 1024;

/** Every route of the public API that takes a body (from the contracts), its path parameters filled for `app`. */
function bodyRoutes(app: string): Array<{ method: string; url: string; path: string }> {
  return Object.values({ ...friendshipRoutes, ...tasksRoutes })
    .filter((route) => 'body' in route.schema)
    .map((route) => ({ method: route.method, url: route.url, path: route.url.replace(':applicationId', app).replace(/:\w+/g, () => randomUUID()) }));
}

/** Raw JSON texts that are no object: the falsy values, an array, broken JSON. */
const NOT_AN_OBJECT = ['null', 'false', '0', '""', '[]', '{"target":'];

function expectProblem(response: ApiResponse, status: number, code: string): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ type: expect.any(String), title: expect.any(String), status, code });
}

describe('answers at the edge (gateway and services as processes)', () => {
  const player = gamer(randomUUID(), 'Edge');
  const routes = bodyRoutes(player.app);
  let processes: ServiceProcesses;
  let gateway: Call;
  /** Straight to the service that owns `path`, with the identity assertion the gateway would add. */
  let service: Call;
  /** The same, for a caller holding `roles`. */
  let serviceAs: (roles: string[]) => Call;
  /** Through the gateway, for the player holding `roles`. */
  const gatewayAs = (roles: string[]): Call => (method, path, opts = {}) =>
    gateway(method, path, { ...opts, headers: { ...opts.headers, authorization: `Bearer ${mintToken({ sub: player.id, app: player.app, name: player.name, roles })}` } });

  beforeAll(async () => {
    processes = await startServiceProcesses({
      gateway: { UPSTREAM_TIMEOUT_MS: '5000', BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES) },
      services: { BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES) },
    });
    gateway = client(processes.gatewayUrl);
    const sign = createIdentitySigner(TEST_INTERNAL_SECRET);
    const friendship = client(processes.friendshipUrl);
    const tasks = client(processes.tasksUrl);
    // Signed per call, as the gateway does: an assertion lives a minute, less than a run of this file.
    serviceAs = (roles) => (method, path, opts = {}) => {
      const assertion = sign({ gamerId: player.id, applicationId: player.app, displayName: player.name, roles: roles as Role[] });
      return (path.startsWith('/api/v1/friendship') ? friendship : tasks)(method, path, { ...opts, headers: { ...opts.headers, [IDENTITY_HEADER]: assertion } });
    };
    service = serviceAs([]);
  });
  afterAll(async () => {
    await processes?.close();
  });

  it('covers the body routes the issue names', () => {
    const paths = routes.map((route) => `${route.method} ${route.path}`);
    for (const named of ['POST /api/v1/friendship', 'POST /api/v1/friendship/block', 'POST /api/v1/tasks/assign', 'POST /api/v1/stats', `POST /api/v1/${player.app}/tasks`]) {
      expect(paths).toContain(named);
    }
  });

  for (const [where, call] of [['gateway', () => gateway], ['service', () => service]] as const) {
    describe(`at the ${where}`, () => {
      const auth = where === 'gateway' ? player.auth : {};

      describe('a body that is not a JSON object is a 400 problem', () => {
        for (const { method, url, path } of routes) {
          // with the role the route needs: without it the answer is a 403, before the body is read
          const roles = url === '/api/v1/stats' ? ['server'] : url.includes(':applicationId') ? ['admin'] : [];
          for (const raw of NOT_AN_OBJECT) {
            it(`${method} ${url} ${raw}`, async () => {
              const response = await (where === 'gateway' ? gatewayAs : serviceAs)(roles)(method, path, {
                headers: { 'content-type': 'application/json' },
                rawBody: raw,
              });
              expectProblem(response, 400, 'VALIDATION_FAILED');
            });
          }
        }
      });

      it('a body over the limit is a 413 problem', async () => {
        const response = await call()('POST', '/api/v1/friendship/block', { headers: auth, body: { target: 'x'.repeat(BODY_LIMIT_BYTES) } });
        expectProblem(response, 413, 'PAYLOAD_TOO_LARGE');
      });

      for (const type of ['text/plain', 'application/xml']) {
        it(`a ${type} body is a 415 problem`, async () => {
          // as a game server: the player's token is refused 403 before the body is read
          const response = await (where === 'gateway' ? gatewayAs : serviceAs)(['server'])('POST', '/api/v1/stats', { headers: { 'content-type': type }, rawBody: '{}' });
          expectProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
        });
      }

      // routes without a body schema read a body too: the document declares 415 on them (and 413)
      const bodyless = [['POST', `/api/v1/tasks/${randomUUID()}/claim`], ['DELETE', `/api/v1/friendship/${randomUUID()}`]];
      if (where === 'gateway') bodyless.push(['POST', '/api/v1/notifications/ticket']);
      for (const [method, path] of bodyless as [string, string][]) {
        it(`a text/plain body on ${method} ${path.replace(/[0-9a-f-]{36}/, '{id}')} (no body schema) is a 415 problem`, async () => {
          const response = await call()(method, path, { headers: { ...auth, 'content-type': 'text/plain' }, rawBody: 'hello' });
          expectProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
        });
      }

      describe('an empty body sent with a Content-Type is no body (Unity\'s UnityWebRequest.Post(url, ""), SDKs with a default JSON type)', () => {
        for (const type of ['application/json', 'application/x-www-form-urlencoded', 'text/plain']) {
          it(`POST claim of an unknown task, ${type}: the route's 404, not a 400 or 415`, async () => {
            const response = await call()('POST', `/api/v1/tasks/${randomUUID()}/claim`, { headers: { ...auth, 'content-type': type }, rawBody: '' });
            expectProblem(response, 404, 'NOT_FOUND');
          });
        }
        it('DELETE of an unknown friendship, application/json: the route\'s 404', async () => {
          const response = await call()('DELETE', `/api/v1/friendship/${randomUUID()}`, { headers: { ...auth, 'content-type': 'application/json' }, rawBody: '' });
          expectProblem(response, 404, 'NOT_FOUND');
        });
        it('a route that needs a body still refuses none: 400', async () => {
          const response = await call()('POST', '/api/v1/friendship', { headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' }, rawBody: '' });
          expectProblem(response, 400, 'VALIDATION_FAILED');
        });
      });

      describe('a known path asked with a method it does not take is a 405 with Allow', () => {
        const cases: Array<[string, string, string]> = [
          // not DELETE: the router would take /blocked as a :friendshipId, which must be a UUID
          ['PUT', '/api/v1/friendship/blocked', 'GET, HEAD'],
          // reaches DELETE /:friendshipId, whose params refuse it, on a path GET takes
          ['DELETE', '/api/v1/friendship/search', 'GET, HEAD'],
          // no route takes QUERY; Fastify would answer 400 for its missing Content-Type
          ['QUERY', '/api/v1/inventory', 'GET, HEAD'],
          ['PATCH', '/api/v1/inventory', 'GET, HEAD'],
          ['DELETE', '/api/v1/achievements', 'GET, HEAD'],
          ['GET', '/api/v1/stats', 'POST'],
        ];
        for (const [method, path, allow] of cases) {
          it(`${method} ${path}`, async () => {
            const response = await call()(method, path, { headers: auth });
            expectProblem(response, 405, 'METHOD_NOT_ALLOWED');
            expect(response.headers.get('allow')).toBe(allow);
          });
        }
      });

      it('takes the spec\'s `GET /` and `POST /` under the friendship base with a trailing slash', async () => {
        const listed = await call()('GET', '/api/v1/friendship/?limit=5', { headers: auth });
        expect(listed.status, JSON.stringify(listed.body)).toBe(200);
        expect(listed.body).toEqual([]);
        // the caller as target: the route's own 400, so the request reached the handler
        expectProblem(await call()('POST', '/api/v1/friendship/', { headers: auth, body: { target: player.id } }), 400, 'CANNOT_TARGET_SELF');
        expect((await call()('PUT', '/api/v1/friendship/', { headers: auth })).headers.get('allow')).toBe('GET, HEAD, POST');
      });

      it('an unknown path stays a 404', async () => {
        const response = await call()('GET', '/api/v1/friendship/requests/sideways/1', { headers: auth });
        expectProblem(response, 404, 'NOT_FOUND');
        expect(response.headers.get('allow')).toBeNull();
      });
    });
  }

  it('answers 405 with Allow for its own paths too', async () => {
    const response = await gateway('POST', '/readyz');
    expectProblem(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });
});
