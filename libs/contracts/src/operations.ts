import Type, { type Static } from 'typebox';
import { Problem } from './errors.ts';
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
      // 503 is the same health body, not a problem: probes read `checks`; but a request that
      // reaches an instance already closing gets the closing 503 problem every route gives
      response: { 200: HealthResponse, 503: Type.Union([HealthResponse, Problem]) },
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

/** What the console page needs to know before anyone signs in (no secret: it is public). */
export const ConsoleConfig = Type.Object(
  {
    tokenSignIn: Type.Boolean({ description: 'a pasted bearer token may sign in (development; CONSOLE_TOKEN_SIGN_IN)' }),
    oidc: Type.Union([
      Type.Object(
        {
          authorizationUrl: Type.String({ description: 'the identity provider\'s authorization endpoint' }),
          tokenUrl: Type.String({ description: 'its token endpoint (the browser posts the code and PKCE verifier there)' }),
          clientId: Type.String(),
          scope: Type.String(),
          audience: Type.Union([Type.String(), Type.Null()], { description: 'an audience parameter some providers need for a JWT access token' }),
          tokenField: Type.Enum(['access_token', 'id_token'], { description: 'the token response field the API is called with' }),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ], { description: 'authorization-code flow with PKCE, when configured (CONSOLE_OIDC_*)' }),
  },
  { additionalProperties: false },
);
export type ConsoleConfig = Static<typeof ConsoleConfig>;

const ConsoleAssetParams = Type.Object(
  { file: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$', description: 'a built asset\'s file name' }) },
  { additionalProperties: false },
);

/**
 * The admin console (apps/console), static files the gateway serves without a token: the
 * page holds no data; every data call it makes is an /api call with an admin token.
 */
export const consoleRoutes = {
  page: {
    method: 'GET', url: '/console', public: true, produces: 'text/html',
    schema: { operationId: 'consolePage', summary: 'The admin console (a single page; its data comes from the admin API)', tags: ['console'], response: { 200: Type.String(), 404: Problem } },
  },
  config: {
    method: 'GET', url: '/console/config.json', public: true,
    schema: { operationId: 'consoleConfig', summary: 'How the console signs in (token paste, OIDC with PKCE)', tags: ['console'], response: { 200: ConsoleConfig, 404: Problem } },
  },
  asset: {
    method: 'GET', url: '/console/assets/:file', public: true, produces: '*/*',
    schema: { operationId: 'consoleAsset', summary: 'A built script, style sheet or image of the console', tags: ['console'], params: ConsoleAssetParams, response: { 200: Type.String(), 400: Problem, 404: Problem } },
  },
} as const;
