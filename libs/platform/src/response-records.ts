import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Requests recorded: each once, whichever path saw its end first (onResponse's, or one outside it). */
const answered = new WeakSet<FastifyRequest>();
const recordedOutside = new WeakSet<FastifyRequest>();

/** Notes a reply that was answered: a latency sample, an access line, a span's end. */
export type ResponseRecord = (request: FastifyRequest, reply: FastifyReply) => void;

declare module 'fastify' {
  interface FastifyInstance {
    /** every record onEveryResponse took, in order, for recordHijacked */
    responseRecords: ResponseRecord[];
  }
}

/**
 * Runs `record` for every reply once it is answered: in onResponse, and for a hijacked reply
 * (a proxied WebSocket upgrade), whose hooks Fastify never runs, when its owner calls
 * recordHijacked. Without it such a request is missing from the metrics, the access log and
 * the traces.
 */
export function onEveryResponse(app: FastifyInstance, record: ResponseRecord): void {
  if (!app.hasDecorator('responseRecords')) app.decorate('responseRecords', []);
  app.responseRecords.push(record);
  app.addHook('onResponse', async (request, reply) => {
    if (recordedOutside.has(request)) return;
    answered.add(request);
    record(request, reply);
  });
}

/** A hijacked reply's answer (`statusCode`, a 101) is on its socket: recorded as any reply is. */
export function recordHijacked(request: FastifyRequest, reply: FastifyReply, statusCode: number): void {
  reply.code(statusCode);
  recordAnswered(request, reply);
}

/** Records a reply whose onResponse Fastify will not run (hijacked, cut by the server, or left by its client). */
export function recordAnswered(request: FastifyRequest, reply: FastifyReply): void {
  if (recordedOutside.has(request) || answered.has(request)) return;
  recordedOutside.add(request);
  for (const record of request.server.responseRecords ?? []) record(request, reply);
}

/**
 * A request whose client left before its answer was written: no finish, no error, so Fastify
 * runs no onResponse (a proxied GET whose client gave up is dropped by the proxy without a
 * send). Recorded when its response closes unfinished, as nginx's 499 (client closed
 * request) unless a status was sent already; until 2026-11-29 such requests, often the
 * slowest, were missing from the access log, the latencies and the traces.
 */
export function recordLeftByClient(request: FastifyRequest, reply: FastifyReply): void {
  reply.raw.once('close', () => {
    if (reply.raw.writableFinished || answered.has(request) || recordedOutside.has(request)) return;
    if (!reply.raw.headersSent) reply.code(499);
    recordAnswered(request, reply);
  });
}
