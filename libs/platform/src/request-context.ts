import { AsyncLocalStorage } from 'node:async_hooks';
import { REQUEST_ID_HEADER } from '@gfts/contracts';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { headersOf } from './message-headers.ts';
import { validRequestId } from './observability.ts';
import { injectTraceContext } from './tracing/spans.ts';
import { tracingStarted } from './tracing/state.ts';

interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** The id of the HTTP request (or stat event) being handled, wherever the code runs. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** Runs work (e.g. handling one NATS message) under a request id taken from elsewhere. */
export function withRequestId<T>(requestId: string, work: () => T): T {
  return storage.run({ requestId }, work);
}

/**
 * NATS headers carrying the current request id, so one id follows a change from the
 * client through the gateway, the service and the events it publishes, and, with tracing
 * on, the active span's W3C trace context (traceparent), so the consumer continues the trace.
 */
export function requestHeaders(requestId: string | undefined = currentRequestId()): MsgHdrs | undefined {
  const tracing = tracingStarted();
  if (!requestId && !tracing) return undefined;
  const headers = natsHeaders();
  if (requestId) headers.set(REQUEST_ID_HEADER, requestId);
  if (tracing) injectTraceContext(headers);
  return headers;
}

/**
 * The request id of a NATS message, if its publisher sent a valid one. Game servers publish
 * stat events themselves, so the header is checked as the gateway checks it on HTTP: an id
 * of any length or content would otherwise go onto every log line and event it leads to.
 */
export function requestIdOf(msg: { readonly headers?: MsgHdrs | undefined }): string | undefined {
  return validRequestId(headersOf(() => msg.headers)?.get(REQUEST_ID_HEADER));
}

/** Every hook and handler of a request runs inside its context (callback hook: done runs inside). */
export const requestContextPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', (request, _reply, done) => {
    storage.run({ requestId: String(request.id) }, done);
  });
}, { name: 'request-context' });
