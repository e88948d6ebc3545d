import type { FastifyRequest, RouteOptions } from 'fastify';

/**
 * Boolean query parameters as clients write them. The schema validator turns only `true`
 * and `false` into booleans, but C# and Unity format `true` as `True`, Python's requests as
 * `True`, and many clients send `1`/`0`: all of those were a 400. Before validation, the
 * value of each parameter the route's schema types `boolean` (alone or in an `anyOf`) is
 * folded: any case of true/false, 1/0. Anything else (an empty value, a repeated parameter)
 * reaches the validator as sent: the schema says whether it is taken.
 */
const FOLDED: Record<string, string> = { true: 'true', '1': 'true', false: 'false', '0': 'false' };

/** The query parameters a route's schema types as boolean (the schema as TypeBox or JSON Schema writes it). */
export function booleanQueryKeys(querystring: unknown): string[] {
  const properties = (querystring as { properties?: Record<string, { type?: unknown; anyOf?: Array<{ type?: unknown }> }> } | undefined)?.properties ?? {};
  return Object.entries(properties)
    .filter(([, property]) => property.type === 'boolean' || (property.anyOf ?? []).some((choice) => choice.type === 'boolean'))
    .map(([key]) => key);
}

/** Folds those parameters of a parsed query in place. */
export function foldBooleanQuery(query: Record<string, unknown>, keys: readonly string[]): void {
  for (const key of keys) {
    const value = query[key];
    if (typeof value === 'string') query[key] = FOLDED[value.toLowerCase()] ?? value;
  }
}

/** An onRoute hook: routes with boolean query parameters fold them before validation. */
export function foldBooleanQueryOf(route: RouteOptions): void {
  const keys = booleanQueryKeys(route.schema?.querystring);
  if (keys.length === 0) return;
  const fold = async (request: FastifyRequest) => foldBooleanQuery(request.query as Record<string, unknown>, keys);
  route.preValidation = [fold, ...[route.preValidation ?? []].flat()];
}
