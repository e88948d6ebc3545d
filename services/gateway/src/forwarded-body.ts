import type { FastifyRequest } from 'fastify';

/** The body reply-from is told to send upstream: JSON text, or `null` for none. */
export type ForwardedBody = { body: string; contentType: string } | { body: null };

/**
 * What the gateway sends upstream as the body: the JSON it parsed, serialized again, or
 * nothing. Always stated explicitly, because reply-from left to itself forwards a parsed
 * body only when it is truthy and keeps the client's content-length otherwise: a JSON
 * `null`, `false`, `0` or `""` went out as zero bytes announced as 4, 5, 1 or 2, and the
 * service waited for them until the upstream timeout (a 504 for the client's own mistake).
 * Given a body, or `null` for none, reply-from sets content-length from what it sends.
 *
 * The gateway parses JSON only (libs/platform), so a defined body is always JSON.
 */
export function forwardedBody(request: Pick<FastifyRequest, 'body'>): ForwardedBody {
  if (request.body === undefined) return { body: null };
  return { body: JSON.stringify(request.body), contentType: 'application/json' };
}
