import { ErrorCode, PROBLEM_CONTENT_TYPE, PROBLEM_ERRORS_MAX, problemType, type Problem } from '@gfts/contracts';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { isStoreUnreachable } from './store-errors.ts';

/** An error the client caused or may act on; the one error handler maps it to problem+json. */
export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  /** seconds after which the same request may succeed, sent as Retry-After (a conflict that passes by itself) */
  readonly retryAfterSeconds: number | undefined;
  constructor(status: number, code: ErrorCode, detail: string, opts: { retryAfterSeconds?: number } = {}) {
    super(detail);
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

export const notFound = (detail = 'no such resource') => new AppError(404, ErrorCode.NOT_FOUND, detail);
export const badRequest = (detail: string, code: ErrorCode = ErrorCode.VALIDATION_FAILED) => new AppError(400, code, detail);
export const forbidden = (detail: string, code: ErrorCode = ErrorCode.FORBIDDEN) => new AppError(403, code, detail);
export const conflict = (code: ErrorCode, detail: string, opts: { retryAfterSeconds?: number } = {}) => new AppError(409, code, detail, opts);
export const unauthorized = (detail: string) => new AppError(401, ErrorCode.UNAUTHORIZED, detail);
/** Seconds a client (or the gateway, which tries another replica) waits before retrying a request a stopping instance refused. */
export const SHUTTING_DOWN_RETRY_AFTER_S = 1;

/** A request this instance will not serve because it is stopping: another instance will. */
export const shuttingDown = () => new AppError(503, ErrorCode.SERVICE_UNAVAILABLE, 'this instance is shutting down; retry the request', { retryAfterSeconds: SHUTTING_DOWN_RETRY_AFTER_S });

/** Seconds a client waits before retrying a request its service's store could not serve. */
export const STORE_UNAVAILABLE_RETRY_AFTER_S = 5;

const TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  408: 'Request Timeout', 409: 'Conflict', 413: 'Content Too Large', 415: 'Unsupported Media Type', 426: 'Upgrade Required',
  429: 'Too Many Requests', 431: 'Request Header Fields Too Large',
  500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

export function problem(status: number, code: ErrorCode, detail?: string, extra: Partial<Problem> = {}): Problem {
  return { type: problemType(code), title: TITLES[status] ?? 'Error', status, code, ...(detail ? { detail } : {}), ...extra };
}

/**
 * Answers a request Node's HTTP parser refused before Fastify saw it (a `clientError`): a
 * timeout (REQUEST_TIMEOUT_MS), headers over Node's limit, or bytes that are not HTTP. Fastify
 * answers those with a JSON body of its own shape; this answers the problem every other
 * error gets (no request id: there is no request yet), then closes the connection.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // a reset connection has nobody to answer
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answer =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? problem(408, ErrorCode.REQUEST_TIMEOUT, 'the request did not arrive in time; send it again')
    : error.code === 'HPE_HEADER_OVERFLOW' ? problem(431, ErrorCode.HEADERS_TOO_LARGE, 'the request headers are too large')
    : problem(400, ErrorCode.MALFORMED_REQUEST, 'the request is not HTTP/1.1 this server can read');
  const body = JSON.stringify(answer);
  // Only on a connection with no answer being written: a pipelined request that times out
  // while an earlier one's body streams would land in the middle of that body (Node's own
  // handler checks the same; Fastify's default does not).
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    socket.write(`HTTP/1.1 ${answer.status} ${answer.title}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(error);
}

export function sendProblem(reply: FastifyReply, body: Problem): FastifyReply {
  return reply.code(body.status).type(PROBLEM_CONTENT_TYPE).send({ ...body, requestId: String(reply.request.id) });
}

/**
 * The answer to a path the router could not read: bad percent-encoding (`/things/%zz`) or a
 * path parameter over the router's length limit. Fastify answers those before any route,
 * in its own JSON shape; this makes them a problem like every other 400. The path is not
 * echoed (it may be long).
 */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const detail = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'a path parameter is too long' : 'the path is not a valid URL (bad percent-encoding)';
  sendProblem(reply, problem(400, ErrorCode.VALIDATION_FAILED, detail));
}

/** Fastify's own error codes that are the client's fault, with our status and code. */
const FASTIFY_CLIENT_ERRORS: Record<string, [number, ErrorCode]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, ErrorCode.PAYLOAD_TOO_LARGE],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, ErrorCode.UNSUPPORTED_MEDIA_TYPE],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, ErrorCode.VALIDATION_FAILED],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, ErrorCode.VALIDATION_FAILED],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, ErrorCode.VALIDATION_FAILED],
  FST_ERR_RATE_LIMIT: [429, ErrorCode.RATE_LIMITED],
};

/** The codes of the client-error statuses that have one of their own. */
const CODE_OF_STATUS: Record<number, ErrorCode> = {
  401: ErrorCode.UNAUTHORIZED,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
  405: ErrorCode.METHOD_NOT_ALLOWED,
  408: ErrorCode.REQUEST_TIMEOUT,
  409: ErrorCode.CONFLICT,
  413: ErrorCode.PAYLOAD_TOO_LARGE,
  415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  426: ErrorCode.UPGRADE_REQUIRED,
  429: ErrorCode.RATE_LIMITED,
  431: ErrorCode.HEADERS_TOO_LARGE,
};

/**
 * The code of a 4xx a plugin or the framework raised without one of ours: the status's own
 * code, else VALIDATION_FAILED (the request, as it is, is refused). Until 2026-11-28 every
 * such status but 429 said VALIDATION_FAILED, so a plugin's 401 or 404 read as a bad body
 * to a client switching on `code`.
 */
export function clientErrorCode(status: number): ErrorCode {
  return CODE_OF_STATUS[status] ?? ErrorCode.VALIDATION_FAILED;
}

type ValidationFailure = NonNullable<FastifyError['validation']>[number];

/**
 * One entry of `errors[]`. ajv's "must NOT have additional properties" says neither which
 * property nor where: the path names the unknown property (a JSON pointer) and so does the
 * message, so a client sees its typo.
 */
function validationEntry(v: ValidationFailure, context: string): { path: string; message: string } {
  const path = `${context}${v.instancePath || ''}`;
  const extra = v.keyword === 'additionalProperties' ? (v.params as { additionalProperty?: unknown }).additionalProperty : undefined;
  if (typeof extra === 'string') {
    return { path: `${path}/${extra.replaceAll('~', '~0').replaceAll('/', '~1')}`, message: `must NOT have additional property ${JSON.stringify(extra)}` };
  }
  return { path, message: v.message ?? 'is invalid' };
}

/**
 * Fastify's error for a failed validation: a short message. Its default joins every
 * failure into one string, as long as the answer was; the problem is built from
 * `error.validation` (toProblem), which Fastify attaches whatever this returns.
 */
export function validationError(errors: readonly { instancePath?: string; message?: string }[], context: string): Error {
  const first = errors[0];
  return new Error(`${context}${first?.instancePath ?? ''} ${first?.message ?? 'is invalid'}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`);
}

function toProblem(error: FastifyError & { status?: number }, request: FastifyRequest): Problem {
  if (error instanceof AppError) return problem(error.status, error.code, error.message);
  if (error.validation) {
    const context = error.validationContext ?? 'request';
    const count = error.validation.length;
    // ajv reports every failure (allErrors): 16 KiB of empty objects in an array make ~10,000,
    // and listed whole the 400 was ~1.7 MB, an amplifier any token could use (until 2026-11-29)
    const shown = error.validation.slice(0, PROBLEM_ERRORS_MAX);
    return problem(400, ErrorCode.VALIDATION_FAILED, count > shown.length ? `invalid ${context}: ${count} failures, the first ${shown.length} listed` : `invalid ${context}`, {
      errors: shown.map((v) => validationEntry(v, error.validationContext ?? '')),
    });
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    // the route's own limit (POST /api/v1/stats has a larger one), else the server's
    const limit = request.routeOptions.bodyLimit;
    return problem(413, ErrorCode.PAYLOAD_TOO_LARGE, limit ? `the body is over this route's limit of ${limit} bytes` : error.message);
  }
  const known = error.code ? FASTIFY_CLIENT_ERRORS[error.code] : undefined;
  if (known) return problem(known[0], known[1], error.message);
  if (error instanceof SyntaxError) return problem(400, ErrorCode.VALIDATION_FAILED, 'body is not valid JSON');
  const status = error.statusCode ?? error.status ?? 500;
  if (status >= 400 && status < 500) return problem(status, clientErrorCode(status), error.message);
  // the store away is no bug (docs/client.md): 503 with Retry-After, and one short log line
  // per request rather than a stack (until 2026-11-29 a 500 INTERNAL, logged as unhandled)
  if (isStoreUnreachable(error)) {
    request.log.warn({ err: { name: error.name, message: error.message } }, 'store unavailable');
    return problem(503, ErrorCode.SERVICE_UNAVAILABLE, 'a store this service needs is unavailable; retry the request');
  }
  request.log.error({ err: error }, 'unhandled error');
  return problem(500, ErrorCode.INTERNAL, 'internal error');
}

/** A request no route takes: 405 with `Allow` when the path takes other methods, else 404. */
/** A path as an answer's detail names it: up to 200 characters (a request's path may be ~16 KiB). */
function shownPath(path: string): string {
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

function unrouted(request: FastifyRequest, reply: FastifyReply, allowedMethods: (path: string) => string[]): FastifyReply {
  const path = request.url.split('?')[0]!;
  const allowed = allowedMethods(path);
  if (allowed.length === 0) return sendProblem(reply, problem(404, ErrorCode.NOT_FOUND, `no route ${request.method} ${shownPath(path)}`));
  reply.header('allow', allowed.join(', '));
  return sendProblem(reply, problem(405, ErrorCode.METHOD_NOT_ALLOWED, `${request.method} is not allowed on ${shownPath(path)}; allowed: ${allowed.join(', ')}`));
}

/** The one error handler, plus problem+json for requests no route takes. */
export const problemHandlers = fp<{ allowedMethods: (path: string) => string[] }>(async (app: FastifyInstance, opts) => {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // DELETE /api/v1/friendship/search reaches DELETE /:friendshipId and fails its params;
    // but /search is a path other routes take, where DELETE is simply not allowed.
    if (error.validation && error.validationContext === 'params') {
      const allowed = opts.allowedMethods(request.url.split('?')[0]!);
      if (allowed.length > 0 && !allowed.includes(request.method)) return unrouted(request, reply, opts.allowedMethods);
    }
    if (error instanceof AppError && error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
    else if (isStoreUnreachable(error)) reply.header('retry-after', String(STORE_UNAVAILABLE_RETRY_AFTER_S));
    return sendProblem(reply, toProblem(error, request));
  });
  // A request no route takes is answered before its body is read: Fastify would otherwise
  // parse it first and answer 400/413/415 (a QUERY without Content-Type is a 400) where
  // the truth is 404 or 405.
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) return unrouted(request, reply, opts.allowedMethods);
  });
  app.setNotFoundHandler((request, reply) => unrouted(request, reply, opts.allowedMethods));
}, { name: 'problem-handlers' });
