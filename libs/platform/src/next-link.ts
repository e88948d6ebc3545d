import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Announces the next page in an RFC 8288 Link header; the body stays a plain JSON array.
 * The path is the route's own (the gateway forwards paths unchanged, so it is also the
 * public one), never the raw request URL, so nothing a caller typed is echoed back.
 */
export function linkNextPage(request: FastifyRequest, reply: FastifyReply, page: { limit: number; nextCursor?: string }): void {
  if (page.nextCursor === undefined) return;
  const query = new URLSearchParams({ limit: String(page.limit), cursor: page.nextCursor });
  reply.header('link', `<${request.routeOptions.url}?${query.toString()}>; rel="next"`);
}
