import * as contracts from './index.ts';

interface RouteDefinition {
  method: string;
  url: string;
  schema: {
    operationId?: string;
    summary?: string;
    description?: string;
    tags?: readonly string[];
    params?: JsonSchema;
    querystring?: JsonSchema;
    headers?: JsonSchema;
    body?: JsonSchema;
    response?: Record<string | number, JsonSchema>;
  };
  /** routes reachable without a bearer token */
  public?: boolean;
  /** media type of the success body when not JSON */
  produces?: string;
  /** OpenAPI links of the success response: operationId to its parameters (runtime expressions) */
  links?: Record<string, Record<string, string>>;
  /** a WebSocket upgrade: documented with a 101 answer and its message schema */
  websocket?: boolean;
  /** the route's own body limit in bytes, in place of BODY_LIMIT_BYTES (the gateway applies it too) */
  bodyLimit?: number;
}
type JsonSchema = { properties?: Record<string, JsonSchema>; required?: readonly string[]; description?: string; [key: string]: unknown };

function isRoute(value: unknown): value is RouteDefinition {
  const v = value as RouteDefinition;
  return typeof v === 'object' && v !== null && typeof v.method === 'string' && typeof v.url === 'string' && typeof v.schema === 'object';
}

/** Every route table exported by the contracts: any object whose values are all routes. */
export function allRoutes(): RouteDefinition[] {
  const routes: RouteDefinition[] = [];
  for (const value of Object.values(contracts)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const entries = Object.values(value);
    if (entries.length > 0 && entries.every(isRoute)) routes.push(...(entries as RouteDefinition[]));
  }
  return routes;
}

/** Plain JSON Schema without the symbols and $ids TypeBox may carry. */
function clean(schema: unknown): JsonSchema {
  return JSON.parse(JSON.stringify(schema, (key, value) => (key === '$id' ? undefined : value))) as JsonSchema;
}

function parameters(schema: JsonSchema | undefined, where: 'path' | 'query' | 'header') {
  if (!schema?.properties) return [];
  return Object.entries(schema.properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (schema.required ?? []).includes(name),
    ...(property.description ? { description: property.description } : {}),
    schema: clean(property),
  }));
}

const STATUS_TEXT: Record<string, string> = {
  '101': 'Switching Protocols: the WebSocket is open; each text frame is one Notification (components.schemas.Notification)',
  '200': 'OK', '201': 'Created', '202': 'Accepted', '204': 'No Content', '400': 'Invalid input', '401': 'Missing or invalid bearer token',
  '403': 'Not allowed', '404': 'Unknown, or not the caller\'s', '405': 'Method not allowed on this path (see Allow)', '408': 'The request did not arrive within REQUEST_TIMEOUT_MS (REQUEST_TIMEOUT); the connection is closed', '409': 'Conflict with the current state',
  '413': 'Body over the size limit (BODY_LIMIT_BYTES)', '415': 'Body of another media type than application/json', '426': 'A WebSocket upgrade is required on this path', '429': 'Rate limited (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS)', '431': 'Request headers too large (HEADERS_TOO_LARGE); the connection is closed',
  '500': 'Internal error', '502': 'Upstream service unavailable', '503': 'Unavailable (shutting down, or a dependency down)', '504': 'Upstream service timed out',
};

/**
 * Answers no handler gives but the platform (libs/platform createHttpServer) or the gateway
 * does, for every operation they apply to. Kept here so the route tables list only what
 * their handlers decide.
 */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function edgeStatuses(route: RouteDefinition): string[] {
  // what Node's parser refuses before any route: bytes that are not HTTP (400
  // MALFORMED_REQUEST), a request slower than REQUEST_TIMEOUT_MS, headers too large; and
  // what any route answers on an instance that is closing (503, Retry-After: 1)
  const statuses = ['400', '405', '408', '431', '503'];
  // Fastify reads a body on these methods whatever the route (one without a body schema
  // too: the ticket, accept, claim, a DELETE), so an oversize or non-JSON one is a 413/415.
  if (route.schema.body || BODY_METHODS.has(route.method)) statuses.push('413', '415');
  // /api is behind authentication, the per-gamer rate limit and the proxy to a service.
  if (route.url.startsWith('/api/')) statuses.push('401', '429', '500', '502', '504');
  return statuses;
}

/** Headers many answers carry, declared once (components.headers). */
const SHARED_HEADERS = {
  'X-Request-Id': { description: 'the request\'s id: the caller\'s own `x-request-id` when it is 1–128 characters of `[A-Za-z0-9._:-]`, else one the server made; in every log line about the request', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'requests a gamer (before authentication: an address) may make per window (RATE_LIMIT_MAX); on the /api answers the gateway counted', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'requests left in the current window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'seconds until the current window ends', schema: { type: 'integer' } },
};
const sharedHeader = (name: keyof typeof SHARED_HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** The shared headers of any answer of this route. */
const answerHeaders = (route: RouteDefinition) => ({
  'X-Request-Id': sharedHeader('X-Request-Id'),
  ...(route.url.startsWith('/api/') ? { 'X-RateLimit-Limit': sharedHeader('X-RateLimit-Limit'), 'X-RateLimit-Remaining': sharedHeader('X-RateLimit-Remaining'), 'X-RateLimit-Reset': sharedHeader('X-RateLimit-Reset') } : {}),
});

/** Headers of a problem answer with this status, beside the shared ones. */
function problemHeaders(status: string): Record<string, unknown> {
  if (status === '405') return { Allow: { description: 'the methods this path takes', required: true, schema: { type: 'string' } } };
  if (status === '429') return { 'Retry-After': { description: 'seconds until the window resets', schema: { type: 'string' } } };
  if (status === '409') return { 'Retry-After': { description: 'only on a conflict that passes by itself (a request with the same Idempotency-Key still running): seconds after which to retry', schema: { type: 'string' } } };
  if (status === '503') return { 'Retry-After': { description: 'seconds after which to retry: 1 on an instance that is shutting down (another instance answers), 5 when the service\'s database is away', schema: { type: 'string' } } };
  return {};
}

// The shared headers are declared on the successful answers only: on every problem too
// they would double the document for what info.description says once.
const problemResponse = (status: string) => {
  const headers = problemHeaders(status);
  return {
    description: STATUS_TEXT[status] ?? 'Error',
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
};

const isProblem = (schema: JsonSchema) => schema.$id === 'Problem';

/** A paged list (a GET whose query takes a `cursor` or an `after`) says where the next page is in a Link header; replay-all's `after` is where a POST goes on, no page. */
const NEXT_PAGE_LINK = {
  Link: {
    description: 'RFC 8288 `<path?query>; rel="next"` when there is a next page (the same query with its cursor); absent on the last page. Follow it: a page holds at most `limit` entries (default 50)',
    schema: { type: 'string' },
  },
};
const isPaged = (query: JsonSchema | undefined) => ['cursor', 'after'].some((name) => name in ((query?.properties as Record<string, unknown> | undefined) ?? {}));

/** The OpenAPI 3.1 document of the public API, generated from the route tables. */
export function openApiDocument(version = '1.0.0') {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of allRoutes()) {
    const path = route.url.replace(/:(\w+)/g, '{$1}');
    const { schema } = route;
    const responses: Record<string, unknown> = {};
    for (const [status, body] of Object.entries(schema.response ?? {})) {
      if (isProblem(body)) responses[status] = problemResponse(status);
      else if (status === '204') responses[status] = { description: STATUS_TEXT[status], headers: answerHeaders(route) };
      else {
        const links = Number(status) < 300 && route.links
          ? { links: Object.fromEntries(Object.entries(route.links).map(([operationId, parameters]) => [operationId, { operationId, parameters }])) }
          : {};
        const headers = { ...answerHeaders(route), ...(Number(status) < 300 && route.method === 'GET' && isPaged(schema.querystring) ? NEXT_PAGE_LINK : {}) };
        responses[status] = { description: STATUS_TEXT[status] ?? 'Response', headers, content: { [route.produces ?? 'application/json']: { schema: clean(body) } }, ...links };
      }
    }
    for (const status of edgeStatuses(route)) responses[status] ??= problemResponse(status);
    if (route.bodyLimit !== undefined && responses['413']) {
      responses['413'] = { ...(responses['413'] as object), description: `Body over ${route.bodyLimit} bytes, this route's size limit (in place of BODY_LIMIT_BYTES)` };
    }
    // OpenAPI has no WebSocket messages: the 101 points at their schema, an extension names it.
    if (route.websocket) responses['101'] = { description: STATUS_TEXT['101'] };
    const sorted = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      ...(schema.operationId ? { operationId: schema.operationId } : {}),
      ...(schema.summary ? { summary: schema.summary } : {}),
      ...(schema.description ? { description: schema.description } : {}),
      ...(schema.tags ? { tags: [...schema.tags] } : {}),
      ...(route.public ? { security: [] } : {}),
      ...(route.websocket
        ? {
            'x-websocket-messages': { $ref: '#/components/schemas/Notification' },
            // the heartbeat: what a client may send, and the server's answer to it
            'x-websocket-client-messages': { $ref: '#/components/schemas/LivePing' },
            'x-websocket-replies': { $ref: '#/components/schemas/LivePong' },
          }
        : {}),
      parameters: [...parameters(schema.params, 'path'), ...parameters(schema.querystring, 'query'), ...parameters(schema.headers, 'header')],
      ...(schema.body ? { requestBody: { required: true, content: { 'application/json': { schema: clean(schema.body) } } } } : {}),
      responses: sorted,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gamer Friendship and Task Service',
      version,
      description:
        'Public API behind the gateway. Errors are RFC 9457 problem+json with a stable `code`. ' +
        'A body that is not the JSON object a route takes is a 400 (VALIDATION_FAILED), one over the size limit a 413, ' +
        'another media type than application/json a 415; a known path asked with a method it does not take is a 405 ' +
        '(METHOD_NOT_ALLOWED) with an Allow header; over RATE_LIMIT_MAX requests per gamer per window (RATE_LIMIT_SERVER_MAX for a game server), or over ' +
        'RATE_LIMIT_IN_FLIGHT_MAX requests of one gamer at once, a 429 (RATE_LIMITED) with Retry-After. ' +
        'Every answer of a route carries X-Request-Id (not the 400/408/431 a server gives a request it could not read), and every /api answer the gateway counted X-RateLimit-Limit, -Remaining and -Reset ' +
        '(components.headers; declared on the successful answers). ' +
        'The gateway serves this document at GET /openapi.json.',
    },
    servers: [{ url: 'http://localhost:8080', description: 'local stack (scripts/stack.sh)' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: { Problem: clean(contracts.Problem), Notification: clean(contracts.Notification), LivePing: clean(contracts.LivePing), LivePong: clean(contracts.LivePong) },
      headers: SHARED_HEADERS,
    },
    paths,
  };
}
