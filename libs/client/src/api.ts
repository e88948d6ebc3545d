// The typed REST client: openapi-fetch over the types generated from docs/openapi.json, so a
// path, a parameter or a body the API does not have is a compile error.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './generated/openapi.ts';
import { currentToken, type TokenSource } from './token.ts';

export type { components, operations, paths } from './generated/openapi.ts';
/** Every 4xx/5xx body: RFC 9457 problem+json with a stable `code`. */
export type Problem = components['schemas']['Problem'];
export type ApiClient = Client<paths>;

export interface ApiClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** the gateway, e.g. `http://localhost:8080` */
  baseUrl: string;
  /** the caller's bearer token; omit for unauthenticated calls (probes, the document) */
  token?: TokenSource;
}

/**
 * A client of the public API through the gateway:
 * `const { data, error, response } = await api.GET('/api/v1/friendship/search', { params: { query: { displayName: 'bo' } } })`.
 */
export function createApiClient({ token, ...options }: ApiClientOptions): ApiClient {
  const api = createClient<paths>(options);
  api.use({ onResponse: ({ response }) => asProblemResponse(response) });
  if (token !== undefined) {
    api.use({
      async onRequest({ request }) {
        request.headers.set('authorization', `Bearer ${await currentToken(token)}`);
        return request;
      },
    });
  }
  return api;
}

/**
 * The codes of the statuses a component in front of the gateway answers (a load balancer, a
 * CDN, an ingress) whatever the route. The same as the services' (libs/platform errors.ts
 * CODE_OF_STATUS, pinned equal by test/unit/api.test.ts): this package imports no server code.
 */
const CODE_OF_STATUS: Record<number, Problem['code']> = {
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'REQUEST_TIMEOUT',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  426: 'UPGRADE_REQUIRED',
  429: 'RATE_LIMITED',
  431: 'HEADERS_TOO_LARGE',
};

/** The code of an error status answered without a problem: see CODE_OF_STATUS; 5xx are the gateway's upstream away, or internal. */
export function statusCode(status: number): Problem['code'] {
  if (status === 502 || status === 504) return 'UPSTREAM_UNAVAILABLE';
  if (status === 503) return 'SERVICE_UNAVAILABLE';
  if (status >= 500) return 'INTERNAL';
  return CODE_OF_STATUS[status] ?? 'VALIDATION_FAILED';
}

const isProblem = (body: unknown): body is Problem => typeof body === 'object' && body !== null && typeof (body as { code?: unknown }).code === 'string';

/**
 * An error answer as a problem, whoever gave it: the services always answer problem+json, but
 * a component in front of the gateway may answer an HTML page (a load balancer's 502) or
 * nothing (a 503 without a body). Without this `error` was then a string or undefined, and an
 * `if (error)` took a failed call for a success. The body, when there is one, becomes `detail`
 * (its first 200 characters). Undefined: the answer stands as it is.
 */
async function asProblemResponse(response: Response): Promise<Response | undefined> {
  if (response.ok || response.status < 400) return undefined;
  const text = await response.clone().text();
  try {
    if (isProblem(JSON.parse(text))) return undefined;
  } catch {
    // not JSON: made into a problem below
  }
  const detail = text.trim().slice(0, 200);
  const problem: Problem = { type: 'about:blank', title: response.statusText || `HTTP ${response.status}`, status: response.status, code: statusCode(response.status), ...(detail ? { detail } : {}) };
  // the content type stays the one answered (text/html, none): `response` still tells a
  // problem of the services (application/problem+json) from one made here
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  return new Response(JSON.stringify(problem), { status: response.status, statusText: response.statusText, headers });
}
