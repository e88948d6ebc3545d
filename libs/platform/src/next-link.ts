import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Announces the next page in an RFC 8288 Link header; the body stays a plain JSON array.
 * The path is the route's own (the gateway forwards paths unchanged, so it is also the
 * public one), never the raw request URL, so nothing a caller typed is echoed back.
 */
export function linkNextPage(request: FastifyRequest, reply: FastifyReply, page: { limit: number; nextCursor?: string; filter?: Record<string, string>; next?: Record<string, string> }): void {
  // `next`: a page that follows from another parameter than a cursor (the inbox's since)
  if (page.nextCursor === undefined && page.next === undefined) return;
  // a filter (favorite=true) is the service's own rendering of a validated value, never the raw query
  const query = page.next
    ? new URLSearchParams({ ...page.filter, ...page.next, limit: String(page.limit) })
    : new URLSearchParams({ ...page.filter, limit: String(page.limit), cursor: page.nextCursor! });
  reply.header('link', `<${request.routeOptions.url}?${query.toString()}>; rel="next"`);
}
