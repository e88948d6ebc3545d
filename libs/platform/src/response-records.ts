import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

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
  app.addHook('onResponse', async (request, reply) => record(request, reply));
}

/** A hijacked reply's answer (`statusCode`, a 101) is on its socket: recorded as any reply is. */
export function recordHijacked(request: FastifyRequest, reply: FastifyReply, statusCode: number): void {
  reply.code(statusCode);
  recordAnswered(request, reply);
}

/** Records a reply whose onResponse Fastify will not run (hijacked, or cut by the server). */
export function recordAnswered(request: FastifyRequest, reply: FastifyReply): void {
  for (const record of request.server.responseRecords ?? []) record(request, reply);
}
