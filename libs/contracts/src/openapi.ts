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
  '200': 'OK', '201': 'Created', '202': 'Accepted', '204': 'No Content', '400': 'Invalid input', '401': 'Missing or invalid bearer token',
  '403': 'Not allowed', '404': 'Unknown, or not the caller\'s', '409': 'Conflict with the current state', '413': 'Body too large', '429': 'Rate limited',
};

/** The OpenAPI 3.1 document of the public API, generated from the route tables. */
export function openApiDocument(version = '1.0.0') {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of allRoutes()) {
    const path = route.url.replace(/:(\w+)/g, '{$1}');
    const { schema } = route;
    const responses: Record<string, unknown> = {};
    for (const [status, body] of Object.entries(schema.response ?? {})) {
      const problem = Number(status) >= 400;
      responses[status] = {
        description: STATUS_TEXT[status] ?? 'Response',
        content: { [problem ? 'application/problem+json' : 'application/json']: { schema: problem ? { $ref: '#/components/schemas/Problem' } : clean(body) } },
      };
    }
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      ...(schema.operationId ? { operationId: schema.operationId } : {}),
      ...(schema.summary ? { summary: schema.summary } : {}),
      ...(schema.description ? { description: schema.description } : {}),
      ...(schema.tags ? { tags: [...schema.tags] } : {}),
      ...(route.public ? { security: [] } : {}),
      parameters: [...parameters(schema.params, 'path'), ...parameters(schema.querystring, 'query'), ...parameters(schema.headers, 'header')],
      ...(schema.body ? { requestBody: { required: true, content: { 'application/json': { schema: clean(schema.body) } } } } : {}),
      responses,
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
        '(METHOD_NOT_ALLOWED) with an Allow header.',
    },
    servers: [{ url: 'http://localhost:8080', description: 'local stack (scripts/stack.sh)' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: { Problem: clean(contracts.Problem) },
    },
    paths,
  };
}
