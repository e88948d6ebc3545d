import createClient from 'openapi-fetch';
import type { components, paths } from '@gfts/client';

export type Problem = components['schemas']['Problem'];
export type Api = ReturnType<typeof createApi>;

/** An API answer that is not a success, with its problem details (RFC 9457) when it has them. */
export class ApiProblem extends Error {
  readonly status: number;
  readonly problem: Partial<Problem>;

  constructor(status: number, problem: Partial<Problem>) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

/**
 * The typed API client (openapi-fetch over the API types of @gfts/client, generated from
 * docs/openapi.json). Same origin as the page; every call carries the admin's bearer token.
 */
export function createApi(token: () => string | null, onUnauthorized: () => void) {
  const client = createClient<paths>({ baseUrl: location.origin });
  client.use({
    onRequest({ request }) {
      const bearer = token();
      if (bearer) request.headers.set('authorization', `Bearer ${bearer}`);
      return request;
    },
    onResponse({ response }) {
      if (response.status === 401) onUnauthorized();
      return response;
    },
  });
  return client;
}

/** The data of a successful answer, or an ApiProblem. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const problem = typeof error === 'object' && error !== null ? (error as Partial<Problem>) : { title: String(error ?? response.statusText) };
  throw new ApiProblem(response.status, problem);
}

/** Any thrown value as problem details, for the Problem component. */
export function asProblem(error: unknown): { status?: number; problem: Partial<Problem> } {
  if (error instanceof ApiProblem) return { status: error.status, problem: error.problem };
  return { problem: { title: 'Request failed', detail: (error as Error)?.message ?? String(error) } };
}
