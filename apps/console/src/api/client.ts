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
 * How long a call may wait for its answer. A request sent into a dead path (a laptop's
 * network gone, a proxy holding it) otherwise waited minutes, and the Health page, which
 * polls one call at a time, showed its last readings as current all that while.
 */
export const CALL_TIMEOUT_MS = 15_000;

/**
 * The typed API client (openapi-fetch over the API types of @gfts/client, generated from
 * docs/openapi.json). Same origin as the page; every call carries the admin's bearer token
 * and ends after `timeoutMs` (a TimeoutError, shown as the call's failure).
 */
export function createApi(token: () => string | null, onUnauthorized: () => void, { baseUrl = location.origin, fetch = globalThis.fetch, timeoutMs = CALL_TIMEOUT_MS }: { baseUrl?: string; fetch?: typeof globalThis.fetch; timeoutMs?: number } = {}) {
  const timed = (request: Request) => fetch(request, { signal: AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]) });
  const client = createClient<paths>({ baseUrl, fetch: timed });
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

/**
 * A call whose answer did not come in time, which may still be running on the server: the
 * gateway's 504, or this client's own timeout (CALL_TIMEOUT_MS, where the gateway waits longer).
 */
export function answerLost(error: unknown): boolean {
  return (error instanceof ApiProblem && error.status === 504) || (error as Error | null)?.name === 'TimeoutError';
}

/** Any thrown value as problem details, for the Problem component. */
export function asProblem(error: unknown): { status?: number; problem: Partial<Problem> } {
  if (error instanceof ApiProblem) return { status: error.status, problem: error.problem };
  return { problem: { title: 'Request failed', detail: (error as Error)?.message ?? String(error) } };
}
