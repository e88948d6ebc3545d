import { request } from 'node:http';
import { Writable } from 'node:stream';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/http.ts';
import { requestHeaders } from '../../src/request-context.ts';
import { recordHijacked } from '../../src/response-records.ts';
import { inBatchSpan, startMessageSpan, tracedPublish } from '../../src/tracing/spans.ts';
import { markTracingStarted } from '../../src/tracing/state.ts';

// The SDK as register.ts starts it, with spans kept in memory instead of exported.
const exporter = new InMemorySpanExporter();
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  trace.setGlobalTracerProvider(provider);
  markTracingStarted(() => provider.shutdown());
});
beforeEach(() => exporter.reset());

const spanNamed = (name: string) => exporter.getFinishedSpans().find((s) => s.name === name)!;

describe('NATS spans', () => {
  it('a published message carries its PRODUCER span as traceparent; the consumer continues it', async () => {
    let sent: ReturnType<typeof requestHeaders>;
    await tracedPublish('gfts.stats.app', async () => {
      sent = requestHeaders('req-1');
    });
    const producer = spanNamed('send gfts.stats.app');
    expect(sent!.get('x-request-id')).toBe('req-1');
    expect(sent!.get('traceparent')).toBe(`00-${producer.spanContext().traceId}-${producer.spanContext().spanId}-01`);

    startMessageSpan({ subject: 'gfts.stats.app', headers: sent! }).end('processed');
    const consumer = spanNamed('process gfts.stats.app');
    expect(consumer.spanContext().traceId).toBe(producer.spanContext().traceId);
    expect(consumer.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
    expect(consumer.attributes['gfts.outcome']).toBe('processed');
  });

  it('a message without trace context starts a trace of its own', () => {
    startMessageSpan({ subject: 'gfts.stats.app', headers: natsHeaders() }).end('processed');
    expect(spanNamed('process gfts.stats.app').parentSpanContext).toBeUndefined();
  });

  it('a batch\'s shared work is a child of the first message\'s span, linked to the others\'', async () => {
    const publishers = ['00-11111111111111111111111111111111-1111111111111111-01', '00-22222222222222222222222222222222-2222222222222222-01'];
    const messages = publishers.map((traceparent) => {
      const headers = natsHeaders();
      headers.set('traceparent', traceparent);
      return startMessageSpan({ subject: 's', headers });
    });
    let activeInside: string | undefined;
    await inBatchSpan('apply stat batch', messages, async () => {
      activeInside = trace.getActiveSpan()?.spanContext().spanId;
    });
    messages.forEach((m) => m.end('processed'));
    const batch = spanNamed('apply stat batch');
    const [first, second] = exporter.getFinishedSpans().filter((s) => s.name === 'process s');
    expect(activeInside).toBe(batch.spanContext().spanId);
    expect(batch.spanContext().traceId).toBe('1'.repeat(32));
    expect(batch.parentSpanContext?.spanId).toBe(first!.spanContext().spanId);
    expect(batch.links.map((l) => l.context.spanId)).toEqual([second!.spanContext().spanId]);
    expect(second!.spanContext().traceId).toBe('2'.repeat(32));
  });
});

/** Log lines as written, parsed. */
function captured() {
  const lines: Record<string, unknown>[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logStream };
}

describe('HTTP server span', () => {
  async function serve(trustTraceContext: boolean) {
    const { lines, logStream } = captured();
    const app = createHttpServer({ service: 'test', logLevel: 'info', bodyLimit: 1024, logStream, trustTraceContext });
    app.post('/things/:id', async (request) => {
      request.log.info('inside the handler');
      return { ok: true };
    });
    await app.ready();
    const traceparent = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
    const response = await app.inject({ method: 'POST', url: '/things/1', payload: { x: 1 }, headers: { traceparent } });
    await app.close();
    expect(response.statusCode).toBe(200);
    return { lines, span: spanNamed('POST /things/:id') };
  }

  it('behind the gateway continues the caller\'s trace, and every line of the request carries it', async () => {
    const { lines, span } = await serve(true);
    expect(span.spanContext().traceId).toBe('a'.repeat(32));
    expect(span.parentSpanContext?.spanId).toBe('b'.repeat(16));
    expect(span.attributes).toMatchObject({ 'http.route': '/things/:id', 'http.response.status_code': 200 });
    const ids = { trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId };
    expect(lines.find((l) => l.msg === 'inside the handler')).toMatchObject(ids);
    expect(lines.find((l) => l.msg === 'request completed')).toMatchObject(ids);
  });

  it('at the edge starts a new trace and only links the caller\'s', async () => {
    const { span } = await serve(false);
    expect(span.spanContext().traceId).not.toBe('a'.repeat(32));
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.links.map((l) => l.context.traceId)).toEqual(['a'.repeat(32)]);
  });

  it('a hijacked reply (a proxied WebSocket upgrade) recorded with recordHijacked: its span ends, with its access line and latency sample', async () => {
    const { lines, logStream } = captured();
    const app = createHttpServer({ service: 'test', logLevel: 'info', bodyLimit: 1024, logStream });
    // as the gateway's live proxy does: the 101 written on the socket, the response never ended
    app.get('/live', async (request, reply) => {
      reply.hijack();
      request.raw.socket.end('HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: test\r\n\r\n');
      recordHijacked(request, reply, 101);
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    await new Promise<void>((resolve, reject) => {
      request(`${url}/live`, { headers: { connection: 'upgrade', upgrade: 'test' } })
        .on('upgrade', (_response, socket) => resolve(void socket.destroy()))
        .on('error', reject)
        .end();
    });
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    await app.close();
    const span = spanNamed('GET /live');
    expect(span.attributes).toMatchObject({ 'http.route': '/live', 'http.response.status_code': 101 });
    expect(lines.filter((l) => l.msg === 'request completed')).toEqual([
      expect.objectContaining({ route: '/live', res: { statusCode: 101 }, trace_id: span.spanContext().traceId }),
    ]);
    expect(metrics).toMatch(/^http_request_duration_seconds_count\{[^}]*route="\/live",status_code="101"[^}]*\} 1$/m);
  });
});
