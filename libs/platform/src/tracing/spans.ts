import {
  context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Link, type Span, type TextMapGetter,
} from '@opentelemetry/api';
import type { MsgHdrs } from '@nats-io/transport-node';
import { headersOf } from '../message-headers.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { onEveryResponse } from '../response-records.ts';
import { tracingStarted } from './state.ts';

/**
 * Our own spans, through the OpenTelemetry API only: one SERVER span per HTTP request, and
 * PRODUCER/CONSUMER spans around NATS messages with the W3C trace context in their headers.
 * With tracing off (no SDK started) every function here returns at once.
 */

const tracer = () => trace.getTracer('@gfts/platform');

/** trace_id and span_id of the active span, for log lines; empty when there is none. */
export function activeTraceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

// ---- HTTP ----

const requestSpans = new WeakMap<FastifyRequest, Span>();

/** trace_id and span_id of a request's server span (the access line is written after it ends). */
export function requestTraceFields(request: FastifyRequest): { trace_id?: string; span_id?: string } {
  const span = requestSpans.get(request);
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

export interface TracingPluginOptions {
  /** paths not traced (probes, scrapes) */
  skip: ReadonlySet<string>;
  /**
   * Continue a caller's trace (traceparent header): behind the gateway. At the public edge a
   * client's trace is only linked, so that no client can choose what is sampled.
   */
  trustIncomingContext: boolean;
}

/**
 * A SERVER span per request, named `METHOD route`, active through every hook and the handler
 * (the callback hook runs the rest of the request inside its context), ended on response.
 */
export const tracingPlugin = fp<TracingPluginOptions>(async (app: FastifyInstance, opts) => {
  if (!tracingStarted()) return;
  app.addHook('onRequest', (request, _reply, done) => {
    if (opts.skip.has(request.routeOptions.url ?? '')) return done();
    const caller = propagation.extract(ROOT_CONTEXT, request.headers);
    const callerSpan = trace.getSpanContext(caller);
    const parent = opts.trustIncomingContext ? caller : ROOT_CONTEXT;
    const links: Link[] = !opts.trustIncomingContext && callerSpan ? [{ context: callerSpan }] : [];
    const route = request.routeOptions.url;
    const span = tracer().startSpan(route ? `${request.method} ${route}` : request.method, {
      kind: SpanKind.SERVER,
      links,
      attributes: {
        'http.request.method': request.method,
        // the path ends at a '?' or a '#', as the router reads it: what follows may be a ticket
        'url.path': request.url.split(/[?#]/, 1)[0]!,
        ...(route ? { 'http.route': route } : {}),
        'gfts.request_id': String(request.id),
      },
    }, parent);
    requestSpans.set(request, span);
    context.with(trace.setSpan(parent, span), done);
  });
  onEveryResponse(app, (request, reply) => {
    const span = requestSpans.get(request);
    if (!span) return;
    span.setAttribute('http.response.status_code', reply.statusCode);
    if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
}, { name: 'tracing' });

// ---- NATS ----

const natsGetter: TextMapGetter<MsgHdrs> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) || undefined,
};

/** Writes the active trace context (traceparent, tracestate) into NATS headers. */
export function injectTraceContext(headers: MsgHdrs): void {
  propagation.inject(context.active(), headers, { set: (carrier, key, value) => carrier.set(key, value) });
}

/**
 * Publishes inside a PRODUCER span `send <subject>`, so the message's headers (made by
 * `headers()` inside the span) carry the span as the consumer's parent. The span lasts as
 * long as `send` (a JetStream publish: until the stream stored it).
 */
export function tracedPublish<T>(subject: string, send: () => T): T {
  if (!tracingStarted()) return send();
  const span = tracer().startSpan(`send ${subject}`, {
    kind: SpanKind.PRODUCER,
    attributes: { 'messaging.system': 'nats', 'messaging.operation.type': 'send', 'messaging.destination.name': subject },
  });
  const end = (error?: unknown) => {
    if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message ?? String(error) });
    span.end();
  };
  try {
    const result = context.with(trace.setSpan(context.active(), span), send);
    if (result instanceof Promise) return result.then((value: unknown) => (end(), value), (error: unknown) => (end(error), Promise.reject(error))) as T;
    end();
    return result;
  } catch (error) {
    end(error);
    throw error;
  }
}

/** A consumed message's processing: its span, continuing the publisher's trace. */
export interface MessageSpan {
  /** records how the message was settled (processed, duplicate, stale, failed, dead-lettered) and ends the span */
  end(outcome: string, error?: unknown): void;
  /** the span's context, to run work as part of this message */
  readonly context: Context;
}

const NO_SPAN: MessageSpan = { end: () => undefined, context: ROOT_CONTEXT };

/**
 * A CONSUMER span `process <subject>` whose parent is the publisher's span (from the
 * message's traceparent header); a message without one starts a trace of its own.
 */
export function startMessageSpan(msg: { subject: string; headers?: MsgHdrs | undefined }, attributes: Record<string, string | number | boolean> = {}): MessageSpan {
  if (!tracingStarted()) return NO_SPAN;
  const headers = headersOf(() => msg.headers);
  const parent = headers ? propagation.extract(ROOT_CONTEXT, headers, natsGetter) : ROOT_CONTEXT;
  const span = tracer().startSpan(`process ${msg.subject}`, {
    kind: SpanKind.CONSUMER,
    attributes: { 'messaging.system': 'nats', 'messaging.operation.type': 'process', 'messaging.destination.name': msg.subject, ...attributes },
  }, parent);
  return {
    context: trace.setSpan(parent, span),
    end(outcome, error) {
      span.setAttribute('gfts.outcome', outcome);
      if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message ?? String(error) });
      span.end();
    },
  };
}

/**
 * Runs work that serves several messages at once (one database write for a batch) in one
 * INTERNAL span: a child of the first message's span, linked to the others'. A span has
 * one parent, so the other messages' traces reach the shared write through the links.
 */
export async function inBatchSpan<T>(name: string, messages: readonly MessageSpan[], work: () => Promise<T>): Promise<T> {
  if (!tracingStarted() || messages.length === 0) return work();
  const [first, ...others] = messages;
  const links: Link[] = others.map((m) => trace.getSpanContext(m.context)).filter((c) => c !== undefined).map((c) => ({ context: c }));
  const span = tracer().startSpan(name, { kind: SpanKind.INTERNAL, links, attributes: { 'messaging.batch.message_count': messages.length } }, first!.context);
  try {
    return await context.with(trace.setSpan(first!.context, span), work);
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message ?? String(error) });
    throw error;
  } finally {
    span.end();
  }
}

/** Runs work inside a message's context (what it publishes continues the message's trace). */
export function withMessageContext<T>(message: MessageSpan | undefined, work: () => T): T {
  if (!message || !tracingStarted()) return work();
  return context.with(message.context, work);
}
