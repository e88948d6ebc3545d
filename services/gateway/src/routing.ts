import proxy from '@fastify/http-proxy';
import { ErrorCode } from '@gfts/contracts';
import { createIdentitySigner, problem, sendProblem } from '@gfts/platform';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { GatewayConfig } from './config.ts';
import { forwardedBody } from './forwarded-body.ts';
import { forwardHeaders } from './forward-headers.ts';

/**
 * Path routing: /api/v1/friendship/* to the friendship service, every other /api/v1 path
 * to the tasks service. Paths are forwarded unchanged, so each service owns its full URLs.
 */
export async function registerRoutes(app: FastifyInstance, config: GatewayConfig): Promise<void> {
  const sign = createIdentitySigner(config.INTERNAL_TOKEN_SECRET);
  const upstreams = [
    { prefix: '/api/v1/friendship', upstream: config.FRIENDSHIP_URL },
    { prefix: '/api/v1', upstream: config.TASKS_URL },
  ];
  for (const { prefix, upstream } of upstreams) {
    await app.register(proxy, {
      upstream,
      prefix,
      rewritePrefix: prefix,
      // Forwards whatever path comes: the contracts' routes (createHttpServer's upstreamRoutes)
      // say which methods a path takes. QUERY and TRACE are not forwarded: no route takes them,
      // so the gateway answers them 405 itself (Fastify would refuse a QUERY without a body 400).
      config: { forwards: true },
      // reply-from's two lines per call ("fetching", "received"); the access line says it all.
      disableRequestLogging: true,
      http: { requestOptions: { timeout: config.UPSTREAM_TIMEOUT_MS } },
      // Giving a preValidation keeps Fastify's own JSON parser, so bodies are parsed
      // (and size-limited, and rejected when malformed) here, not streamed through unseen.
      preValidation: async () => {},
      // The forwarded body is always explicit, so its content-length is what is sent.
      handler: (request, reply, dest, options) => reply.from(dest, { ...options, ...forwardedBody(request) }),
      replyOptions: {
        rewriteRequestHeaders: (request, headers) =>
          forwardHeaders(headers, request.gamer ? sign(request.gamer) : undefined, String(request.id)),
        onError: (reply, { error }) => {
          reply.log.warn({ err: error, upstream }, 'upstream failed');
          const timedOut = (error as { statusCode?: number }).statusCode === 504 || /timeout/i.test(error.message);
          sendProblem(reply as FastifyReply, problem(timedOut ? 504 : 502, ErrorCode.UPSTREAM_UNAVAILABLE, timedOut ? 'upstream service timed out' : 'upstream service unavailable'));
        },
      },
    });
  }
}
