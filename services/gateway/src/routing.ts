import proxy from '@fastify/http-proxy';
import { ErrorCode, notificationsRoutes, tasksRoutes } from '@gfts/contracts';
import { badRequest, createIdentitySigner, problem, sendProblem, unauthorized } from '@gfts/platform';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { GatewayConfig } from './config.ts';
import { LargeBodies, onlyRoleBeyond } from './role-body-limit.ts';
import { forwardedBody } from './forwarded-body.ts';
import { answerHeaders, forwardHeaders } from './forward-headers.ts';
import { proxyRetryDelay, retriesReusedConnection, retryWindow, tryAnotherReplica } from './retry-delay.ts';
import { liveProxy, routeUpgrades } from './live-proxy.ts';
import type { TicketSealer } from './tickets.ts';

/** A header of the upstream answer reply-from hands retryDelay (typed there as a reply). */
function upstreamHeader(res: unknown, name: string): string | string[] | undefined {
  return (res as { headers?: Record<string, string | string[] | undefined> } | undefined)?.headers?.[name];
}

/**
 * Why a request path is refused (400), if it is: a backslash, or a `.` or `..` segment, as
 * sent or percent-encoded. The router matches the path as sent, and the proxy's URL parsing
 * takes a backslash for a separator and removes dot segments on the way out:
 * `/api/v1/./friendship/search` (until 2026-11-28) and `/api/v1/friendship\search` (until
 * 2026-11-29) matched the tasks service's catch-all and went there as
 * `/api/v1/friendship/search`, with the gamer's identity. No API path has either.
 */
export function pathRefusal(url: string): string | undefined {
  const path = url.split('?', 1)[0]!;
  if (path.includes('\\')) return 'the path has a backslash';
  if (path.split('/').some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment))) return 'the path has a "." or ".." segment';
  return undefined;
}

/**
 * Path routing: /api/v1/friendship/* to the friendship service, /api/v1/notifications/* to
 * the notifications service (when NOTIFICATIONS_URL is set), every other /api/v1 path to
 * the tasks service. Paths are forwarded unchanged, so each service owns its full URLs. The
 * gateway answers the notification ticket itself and proxies the live channel's upgrade.
 */
export async function registerRoutes(app: FastifyInstance, config: GatewayConfig, tickets: TicketSealer): Promise<void> {
  const sign = createIdentitySigner(config.INTERNAL_TOKEN_SECRET);
  const within503Window = retryWindow();
  app.addHook('onRequest', async (request) => {
    const refusal = pathRefusal(request.url);
    if (refusal) throw badRequest(refusal);
  });
  const { reportStats, createCatalogTask, updateCatalogTask } = tasksRoutes;
  /**
   * `routes`: only these paths below the prefix (the prefix itself is '/'), default every one;
   * `methods`: only these methods, default every one; `largeBodies`: whose the bodyLimit is,
   * others keep BODY_LIMIT_BYTES
   */
  const upstreams: { prefix: string; upstream: string; bodyLimit?: number; routes?: string[]; methods?: string[]; largeBodies?: LargeBodies }[] = [
    { prefix: '/api/v1/friendship', upstream: config.FRIENDSHIP_URL },
    ...(config.NOTIFICATIONS_URL ? [{ prefix: '/api/v1/notifications', upstream: config.NOTIFICATIONS_URL }] : []),
    // a stat event may be larger than BODY_LIMIT_BYTES: the route's own limit, as in the tasks
    // service, so HTTP takes every event NATS takes (docs/stats-reporting.md); a game server's
    // POST only (until 2026-11-28 any method of any caller: a gamer's 192 KiB PUT was read
    // and parsed before the service answered 405); its other methods are the next proxy's
    { prefix: reportStats.url, upstream: config.TASKS_URL, bodyLimit: reportStats.bodyLimit, routes: ['/'], methods: [reportStats.method], largeBodies: LargeBodies.statsReport },
    // the catalog's writes take a whole composite (CATALOG_TASK_MAX_BYTES), an admin's only:
    // their paths and methods, below the plain /api/v1 prefix, so the path goes upstream as
    // it came (no parameter rewriting); their other methods are the next proxy's
    ...[createCatalogTask, updateCatalogTask].map(({ url, method, bodyLimit }) => ({
      prefix: '/api/v1', upstream: config.TASKS_URL, bodyLimit, routes: [url.slice('/api/v1'.length)], methods: [method], largeBodies: LargeBodies.catalogWrite,
    })),
    { prefix: '/api/v1', upstream: config.TASKS_URL },
  ];
  if (config.NOTIFICATIONS_URL) {
    routeUpgrades(app);
    liveProxy(app, { upstream: config.NOTIFICATIONS_URL, internalSecret: config.INTERNAL_TOKEN_SECRET, timeoutMs: config.UPSTREAM_TIMEOUT_MS, idleTimeoutMs: config.LIVE_IDLE_TIMEOUT_MS });
    const { schema } = notificationsRoutes.ticket;
    app.route({
      ...notificationsRoutes.ticket,
      schema: { response: { 200: schema.response[200] } },
      handler: async (request, reply) => {
        if (!request.gamer) throw unauthorized('missing bearer token');
        const { ticket, expiresAt } = tickets.issue(request.gamer);
        // a credential: never stored (the proxied answers get no-store from answerHeaders; this one is the gateway's own)
        void reply.header('cache-control', 'no-store');
        return { ticket, expiresAt: expiresAt.toISOString() };
      },
    });
  }
  for (const { prefix, upstream, bodyLimit, routes, methods, largeBodies } of upstreams) {
    // each proxy in a scope of its own, where its routes get its body limit
    await app.register(async (scope) => {
      if (bodyLimit !== undefined) scope.addHook('onRoute', (route) => void (route.bodyLimit = bodyLimit));
      if (largeBodies) scope.addHook('preParsing', onlyRoleBeyond(config.BODY_LIMIT_BYTES, largeBodies));
      await scope.register(proxy, {
        upstream,
        prefix,
        rewritePrefix: prefix,
        // reportStats: the path itself only, what lies below it is the next proxy's (the tasks service's 404)
        ...(routes ? { routes } : {}),
        ...(methods ? { httpMethods: methods } : {}),
        // Forwards whatever path comes: the contracts' routes (createHttpServer's upstreamRoutes)
        // say which methods a path takes. QUERY and TRACE are not forwarded: no route takes them,
        // so the gateway answers them 405 itself (Fastify would refuse a QUERY without a body 400).
        config: { forwards: true },
        // reply-from's two lines per call ("fetching", "received"); the access line says it all.
        disableRequestLogging: true,
        // undici's pool of keep-alive connections per upstream (reply-from's default client)
        // rather than node:http's agent: about half the client CPU per forwarded request.
        // connectTimeout: UPSTREAM_TIMEOUT_MS bounds the connection attempt too (undici's own is 10 s).
        // clientTtl: the pool reuses its first idle connection, so without an age limit the
        // same few connections, to the same few replicas, carried most requests for ever and
        // replicas a scale-out added got almost none.
        undici: {
          connections: config.UPSTREAM_CONNECTIONS,
          pipelining: 1,
          headersTimeout: config.UPSTREAM_TIMEOUT_MS,
          bodyTimeout: config.UPSTREAM_TIMEOUT_MS,
          connectTimeout: config.UPSTREAM_TIMEOUT_MS,
          clientTtl: config.UPSTREAM_CONNECTION_MAX_AGE_MS,
        },
        // Giving a preValidation keeps Fastify's own JSON parser, so bodies are parsed
        // (and size-limited, and rejected when malformed) here, not streamed through unseen.
        preValidation: async () => {},
        // The forwarded body is always explicit, so its content-length is what is sent.
        handler: (request, reply, dest, options) => reply.from(dest, { ...options, ...forwardedBody(request) }),
        replyOptions: {
          // a 503 GET of a replica that is stopping (Retry-After: 1; not a longer one: the
          // client's to wait out) is tried again after a short wait of the gateway's own;
          // a GET whose kept-alive connection the service had just closed, once at once
          retryDelay: ({ req, res, err, attempt, getDefaultDelay }) =>
            retriesReusedConnection(req.method, err, attempt) ? 1
            : getDefaultDelay(req, res, err, attempt) === null || !tryAnotherReplica(upstreamHeader(res, 'retry-after')) || !within503Window(req) ? null
            : proxyRetryDelay(attempt),
          rewriteHeaders: (headers) => answerHeaders(headers),
          rewriteRequestHeaders: (request, headers) =>
            forwardHeaders(headers, request.gamer ? sign(request.gamer) : undefined, String(request.id)),
          onError: (reply, { error }) => {
            reply.log.warn({ err: error, upstream }, 'upstream failed');
            const timedOut = (error as { statusCode?: number }).statusCode === 504 || /timeout/i.test(error.message);
            sendProblem(reply as FastifyReply, problem(timedOut ? 504 : 502, ErrorCode.UPSTREAM_UNAVAILABLE, timedOut ? 'upstream service timed out' : 'upstream service unavailable'));
          },
        },
      });
    });
  }
}
