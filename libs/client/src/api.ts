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
