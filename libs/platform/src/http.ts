import type { IncomingMessage } from 'node:http';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_SEND_TIMEOUT_MS } from './config.ts';
import { foldBooleanQueryOf } from './boolean-query.ts';
import { declaredRoutes, type UpstreamRoute } from './declared-routes.ts';
import { answerClientError, answerFrameworkError, problemHandlers, shuttingDown, validationError } from './errors.ts';
import { accessLog, logDestination, loggerOptions, metricsPlugin, requestIdEcho, requestIdFrom } from './observability.ts';
import { requestContextPlugin } from './request-context.ts';
import { recordAnswered, recordLeftByClient } from './response-records.ts';
import { tracingPlugin } from './tracing/spans.ts';
import { createAjv, REQUEST_ID_HEADER } from '@gfts/contracts';
import { JSON_NESTING_MAX, nestsDeeperThan } from './json-nesting.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every method and path pattern this server declares (Fastify's HEAD twins of GETs included). */
    declaredRoutes: () => { method: string; url: string }[];
  }
}

const PROBE_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export interface HttpServerOptions {
  service: string;
  logLevel: string;
  bodyLimit: number;
  /**
   * time a client has to send a whole request (REQUEST_TIMEOUT_MS; default 10 s). Fastify
   * turns Node's limit off, so without one a client that announces a body and never sends
   * it holds a connection, and whatever the request holds, for ever.
   */
  requestTimeoutMs?: number;
  /**
   * time an answer may wait for the client to take any of it (SEND_TIMEOUT_MS; default 30 s);
   * then the connection is closed. Without it a client that stops reading holds the
   * connection, and what the answer holds (the gateway's upstream connection), for ever:
   * Node's timeouts watch only the request, and undici's body timeout waits while paused.
   */
  sendTimeoutMs?: number;
  /** where log lines go (default: stdout); tests read them from here */
  logStream?: NodeJS.WritableStream;
  /** log bytes gathered before one write to stdout (LOG_BUFFER_BYTES; 0: each line at once) */
  logBufferBytes?: number;
  /** routes servers behind this one answer (the gateway's), for 405 and Allow */
  upstreamRoutes?: readonly UpstreamRoute[];
  /**
   * Continue the trace a caller's traceparent header names (default). The gateway, the
   * public edge, sets false: a client's trace is only linked, it cannot force sampling.
   */
  trustTraceContext?: boolean;
  /**
   * Which requests offering `Upgrade` are upgrades (Node's shouldUpgradeCallback, Node ≥ 24.9);
   * the others are answered as plain requests, their bodies read. Default: Node's (every one,
   * when the server listens for 'upgrade'), which drops the body of any request offering a
   * protocol switch, an h2c offer from `curl --http2` included.
   */
  acceptsUpgrade?: (request: IncomingMessage) => boolean;
}

/**
 * A request with an empty body (Content-Length: 0, or neither it nor Transfer-Encoding, as
 * HTTP/1.1 frames a request without a body) has none, whatever its Content-Type. Fastify
 * would parse '' as JSON (a 400) or refuse the type (a 415), and Unity's
 * UnityWebRequest.Post(url, "") sends a form type, SDKs a default JSON one, to routes that
 * take no body (accept, claim, ticket, DELETE). Without the type Fastify takes it as no
 * body; a route that needs one still answers 400.
 */
async function emptyBodyIsNoBody(request: FastifyRequest): Promise<void> {
  const { headers } = request.raw;
  const length = headers['content-length'];
  if ((length === '0' || length === undefined) && headers['transfer-encoding'] === undefined) delete headers['content-type'];
}

/**
 * An answer the client stopped taking: its connection goes, and what the answer held with it.
 * Fastify's onResponse runs on the answer's finish or error, neither of which a destroy
 * brings, so the reply is recorded here (its access line, latency sample and span) as the
 * answer it was, with a warning saying it was cut.
 */
function cutStalled(request: FastifyRequest, reply: FastifyReply, sendTimeoutMs: number): void {
  reply.log.warn({ sendTimeoutMs }, 'answer cut: its client stopped taking it for SEND_TIMEOUT_MS');
  recordAnswered(request, reply);
  reply.raw.destroy();
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * JSON bodies as UTF-8, strictly: Fastify's parser reads a body as text, turning bytes that
 * are no UTF-8 into U+FFFD, so a stat event with broken bytes was taken over HTTP (202) while
 * the NATS path dead-letters it. Now a 400 here too. A body nested deeper than
 * JSON_NESTING_MAX is a 400 as well (json-nesting.ts). Then Fastify's own parser (prototype
 * poisoning refused), on the decoded text.
 */
function strictUtf8Json(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = strictUtf8.decode(body as Buffer);
    } catch {
      return done(Object.assign(new Error('the body is not UTF-8'), { statusCode: 400 }), undefined);
    }
    if (nestsDeeperThan(text)) return done(Object.assign(new Error(`the body nests objects and arrays deeper than ${JSON_NESTING_MAX} levels`), { statusCode: 400 }), undefined);
    parseJson(request, text, done);
  });
}

/**
 * A Fastify instance with what every service shares: JSON logs carrying the request id,
 * problem+json errors, strict validation (unknown body fields are a 400, not dropped),
 * JSON bodies only (other media types are a 415), body size limit (413), 405 with `Allow`
 * for a known path asked with another method, and metrics. Routes and hooks are the caller's.
 */
export function createHttpServer(opts: HttpServerOptions): FastifyInstance {
  const requestTimeout = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const app = Fastify({
    requestTimeout,
    // the headers within the same time; Node checks its limits only every
    // connectionsCheckingInterval (30 s by default): each second, so a 408 is at most 1 s late
    http: { headersTimeout: requestTimeout, connectionsCheckingInterval: 1_000, ...(opts.acceptsUpgrade ? { shouldUpgradeCallback: opts.acceptsUpgrade } : {}) },
    logger: { ...loggerOptions(opts.service, opts.logLevel), stream: opts.logStream ?? logDestination(opts.logBufferBytes ?? 0) },
    bodyLimit: opts.bodyLimit,
    requestIdHeader: false,
    logController: new LogController({
      requestIdLogLabel: 'requestId',
      // Fastify's two lines per request (incoming, completed) give way to one access line.
      disableRequestLogging: true,
    }),
    genReqId: (req) => requestIdFrom(req.headers[REQUEST_ID_HEADER]),
    // our own 503 while closing (below): Fastify's would be a JSON body of its own shape
    return503OnClosing: false,
    // and our own problem for a request Node's parser refused (408, 431, 400)
    clientErrorHandler: answerClientError,
    // and for a path the router could not read (bad percent-encoding, an over-long parameter)
    frameworkErrors: answerFrameworkError,
    // `/api/v1/friendship/` is the spec's `POST /` and `GET /` under its base path: a client
    // that joins the base and `/` must not get a 404 (declared-routes.ts matches the same way)
    routerOptions: { ignoreTrailingSlash: true },
    schemaErrorFormatter: validationError,
  });
  // Query strings, path parameters and headers are text: scalars are coerced ('array' would
  // turn ["x"] into "x"). A JSON body is typed already: coercing it would take `false` for
  // null and "5" for 5, accepting bodies the schema (and the OpenAPI document) refuse.
  const text = createAjv({ removeAdditional: false, coerceTypes: true, useDefaults: true });
  const json = createAjv({ removeAdditional: false, coerceTypes: false, useDefaults: true });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? json : text).compile(schema));
  // First, so that it sees every route: /metrics, /healthz and the caller's.
  const routes = declaredRoutes(app, opts.upstreamRoutes);
  // Lets a test hold the OpenAPI document against what the server really declares.
  app.decorate('declaredRoutes', routes.list);
  // Fastify also parses text/plain by default; every API body is JSON, anything else is a 415.
  app.removeContentTypeParser('text/plain');
  strictUtf8Json(app);
  app.addHook('onRequest', emptyBodyIsNoBody);
  app.addHook('onRoute', foldBooleanQueryOf);
  // While closing, tell keep-alive clients not to reuse the connection.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  const sendTimeout = opts.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS;
  app.addHook('onSend', async (request, reply) => {
    if (closing) reply.header('connection', 'close');
    // An idle timeout on the socket from here on: sending makes progress as long as the
    // client reads. Once the answer is written, Node sets the keep-alive timeout in its place.
    reply.raw.setTimeout(sendTimeout, () => cutStalled(request, reply, sendTimeout));
  });
  // A request that reaches a closing server (pipelined, or on a busy keep-alive connection)
  // is not run: a 503 problem tells the client, or the gateway, to try another instance.
  app.addHook('onRequest', async (request, reply) => {
    if (closing) throw shuttingDown();
    recordLeftByClient(request, reply);
  });
  // first of the plugins' onRequest hooks (after the two above, which need no span), so every
  // later hook and the handler run inside the span
  void app.register(tracingPlugin, { skip: PROBE_PATHS, trustIncomingContext: opts.trustTraceContext ?? true });
  void app.register(accessLog, { skip: PROBE_PATHS });
  void app.register(requestContextPlugin);
  void app.register(problemHandlers, { allowedMethods: routes.allowedMethods });
  void app.register(requestIdEcho);
  void app.register(metricsPlugin, { service: opts.service });
  return app;
}
