import Type from 'typebox';
import { HealthResponse } from './common.ts';

/** The OpenAPI document as GET /openapi.json serves it: an object (the document itself is its own schema). */
// additionalProperties: the serializer would otherwise drop every field not listed here.
export const OpenApiDocumentResponse = Type.Object(
  { openapi: Type.String(), info: Type.Object({}, { additionalProperties: true }), paths: Type.Object({}, { additionalProperties: true }) },
  { additionalProperties: true },
);

/**
 * Routes every process answers without a token: probes, metrics, and on the gateway the API
 * description. Documented so the document holds every path the gateway answers.
 */
export const operationsRoutes = {
  healthz: {
    method: 'GET', url: '/healthz', public: true,
    schema: { operationId: 'healthz', summary: 'Liveness: the process answers', tags: ['operations'], response: { 200: HealthResponse } },
  },
  readyz: {
    method: 'GET', url: '/readyz', public: true,
    schema: {
      operationId: 'readyz', summary: 'Readiness: the process and every dependency answer (the gateway: both services)', tags: ['operations'],
      // 503 is the same health body, not a problem: probes read `checks`.
      response: { 200: HealthResponse, 503: HealthResponse },
    },
  },
  metrics: {
    method: 'GET', url: '/metrics', public: true, produces: 'text/plain',
    schema: { operationId: 'metrics', summary: 'Prometheus metrics (text exposition format)', tags: ['operations'], response: { 200: Type.String() } },
  },
  openapi: {
    method: 'GET', url: '/openapi.json', public: true,
    schema: { operationId: 'openapi', summary: 'This OpenAPI document (gateway only)', tags: ['operations'], response: { 200: OpenApiDocumentResponse } },
  },
} as const;
