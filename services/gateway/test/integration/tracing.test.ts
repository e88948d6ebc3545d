import { request } from 'node:http';
import { randomUUID } from 'node:crypto';
import { client, eventually, mintToken, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '@gfts/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcesses, type ServiceProcesses } from '../support/processes.ts';

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

/** The chain of spans from `span` up to its trace's root, within what was received. */
function ancestry(spans: ReceivedSpan[], span: ReceivedSpan): ReceivedSpan[] {
  const byId = new Map(spans.filter((s) => s.traceId === span.traceId).map((s) => [s.spanId, s]));
  const chain = [span];
  for (let parent = byId.get(span.parentSpanId ?? ''); parent; parent = byId.get(parent.parentSpanId ?? '')) chain.push(parent);
  return chain;
}

const describeChain = (chain: ReceivedSpan[]) => chain.map((s) => `${s.service}:${s.name}`).reverse().join(' -> ');

/** The lines a process logged for a request (by its request id). */
function linesOf(output: string, requestId: string): Record<string, unknown>[] {
  return output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.requestId === requestId);
}

/** A request's access line; at info it is the only line a request leaves in a process. */
function accessLine(output: string, requestId: string): Record<string, unknown> | undefined {
  const lines = linesOf(output, requestId);
  expect(lines.map((l) => l.msg)).toEqual(['request completed']);
  return lines[0];
}

describe('tracing (gateway, friendship and tasks as processes exporting OTLP/HTTP JSON)', () => {
  let receiver: OtlpReceiver;
  let processes: ServiceProcesses;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    // LOG_BUFFER_BYTES 0: each access line is written at once, so it is there when the spans are
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '100', LOG_BUFFER_BYTES: '0' };
    processes = await startServiceProcesses({ gateway: otel, services: otel });
  });

  afterAll(async () => {
    await processes?.close();
    await receiver?.close();
  });

  it('follows a request from the gateway through friendship into MongoDB in one trace, and logs its trace id', async () => {
    const api = client(processes.gatewayUrl);
    const requestId = `trace-${randomUUID()}`;
    const response = await api('GET', '/api/v1/friendship', { headers: { authorization: `Bearer ${mintToken()}`, 'x-request-id': requestId, traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` } });
    expect(response.status).toBe(200);

    const mongo = await eventually(async () => receiver.spans.find((s) => {
      if (s.service !== 'friendship' || s.attributes['db.system.name'] === undefined && s.attributes['db.system'] !== 'mongodb') return false;
      return ancestry(receiver.spans, s).some((a) => a.service === 'gateway' && a.attributes['gfts.request_id'] === requestId);
    }));
    const chain = ancestry(receiver.spans, mongo);
    const summary = describeChain(chain);
    // mongodb <- friendship server span <- gateway client span (undici) <- gateway server span
    const friendshipServer = chain.find((s) => s.service === 'friendship' && s.kind === SERVER);
    const gatewayClient = chain.find((s) => s.service === 'gateway' && s.kind === CLIENT);
    const gatewayServer = chain.at(-1)!;
    expect(friendshipServer?.name, summary).toBe('GET /api/v1/friendship');
    expect(friendshipServer?.parentSpanId, summary).toBe(gatewayClient?.spanId);
    expect(gatewayServer.service, summary).toBe('gateway');
    expect(gatewayServer.kind, summary).toBe(SERVER);
    expect(gatewayServer.parentSpanId, summary).toBeUndefined();
    // a client's traceparent is linked, never continued: the edge starts the trace
    expect(gatewayServer.traceId).not.toBe('a'.repeat(32));
    expect(gatewayServer.links).toEqual([{ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) }]);
    expect(gatewayServer.attributes['http.response.status_code']).toBe(200);

    // both access lines carry the trace id and their own server span's id
    const traceId = mongo.traceId;
    expect(accessLine(processes.output('gateway'), requestId)).toMatchObject({ trace_id: traceId, span_id: gatewayServer.spanId });
    expect(accessLine(processes.output('friendship'), requestId)).toMatchObject({ trace_id: traceId, span_id: friendshipServer!.spanId, route: '/api/v1/friendship' });
  });

  it('keeps a ticket after a \'#\' out of the span\'s path and the access line: the router reads a query there too', async () => {
    const requestId = `hash-${randomUUID()}`;
    // sent as is (fetch drops what follows a '#')
    const status = await new Promise<number>((resolve, reject) => {
      const outgoing = request(new URL(processes.gatewayUrl), { method: 'GET', path: '/api/v1/friendship/blocked#ticket=secret-ticket', headers: { authorization: `Bearer ${mintToken()}`, 'x-request-id': requestId } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      outgoing.on('error', reject).end();
    });
    expect(status).toBe(200);
    const server = await eventually(async () => receiver.spans.find((s) => s.service === 'gateway' && s.kind === SERVER && s.attributes['gfts.request_id'] === requestId));
    // before the fix the span's path was the whole URL, ticket and all
    expect(server.attributes['url.path']).toBe('/api/v1/friendship/blocked');
    expect(JSON.stringify(accessLine(processes.output('gateway'), requestId))).not.toContain('secret-ticket');
  });

  it('keeps a search\'s text out of every span and access line of the request, the gateway\'s call to friendship included', async () => {
    const requestId = `search-${randomUUID()}`;
    const api = client(processes.gatewayUrl);
    const found = await api('GET', '/api/v1/friendship/search?displayName=Monalisa&limit=5', { headers: { authorization: `Bearer ${mintToken()}`, 'x-request-id': requestId } });
    expect(found.status).toBe(200);
    // the gateway's server span, its client span to friendship, friendship's server span
    const server = await eventually(async () => receiver.spans.find((s) => s.service === 'gateway' && s.kind === SERVER && s.attributes['gfts.request_id'] === requestId));
    const spans = await eventually(async () => {
      const trace = receiver.spans.filter((s) => s.traceId === server.traceId);
      return trace.some((s) => s.service === 'gateway' && s.kind === CLIENT) && trace.some((s) => s.service === 'friendship' && s.kind === SERVER) ? trace : undefined;
    });
    const outgoing = spans.find((s) => s.service === 'gateway' && s.kind === CLIENT)!;
    // before the fix the client span's url.full held the whole query
    expect(outgoing.attributes['url.full']).toMatch(/\/api\/v1\/friendship\/search\?displayName=\[redacted\]&limit=5$/);
    expect(JSON.stringify(spans)).not.toContain('Monalisa');
    for (const service of ['gateway', 'friendship'] as const) {
      expect(JSON.stringify(accessLine(processes.output(service), requestId)), service).not.toContain('Monalisa');
    }
  });

  it('follows POST /stats from the game server through NATS into the tasks consumer and MongoDB in one trace', async () => {
    const api = client(processes.gatewayUrl);
    const app = randomUUID();
    const requestId = `stats-${randomUUID()}`;
    const event = {
      eventId: randomUUID(), applicationId: app, gamerId: randomUUID(), gameId: 'game-1', occurredAt: new Date().toISOString(),
      stats: [{ applicationStatsId: 'wins', value: 1 }],
    };
    const server = mintToken({ app, roles: ['server'] });
    const response = await api('POST', '/api/v1/stats', { headers: { authorization: `Bearer ${server}`, 'x-request-id': requestId }, body: event });
    expect(response.status, JSON.stringify(response.body)).toBe(202);

    // a MongoDB span of the consumer whose ancestors reach the gateway's request
    const mongo = await eventually(async () => receiver.spans.find((s) => s.service === 'tasks'
      && (s.attributes['db.system.name'] === 'mongodb' || s.attributes['db.system'] === 'mongodb')
      && ancestry(receiver.spans, s).some((a) => a.kind === CONSUMER)
      && ancestry(receiver.spans, s).some((a) => a.service === 'gateway' && a.attributes['gfts.request_id'] === requestId)));
    const chain = ancestry(receiver.spans, mongo);
    const summary = describeChain(chain);
    const consumer = chain.find((s) => s.kind === CONSUMER)!;
    const producer = chain.find((s) => s.kind === PRODUCER);
    const tasksServer = chain.find((s) => s.service === 'tasks' && s.kind === SERVER);
    expect(tasksServer?.name, summary).toBe('POST /api/v1/stats');
    expect(producer?.service, summary).toBe('tasks');
    expect(producer?.name, summary).toMatch(new RegExp(`^send .*\\.${app}$`));
    expect(producer?.parentSpanId, summary).toBe(tasksServer?.spanId);
    expect(consumer.parentSpanId, summary).toBe(producer?.spanId);
    expect(consumer.name, summary).toBe(`process ${String(producer?.attributes['messaging.destination.name'])}`);
    expect(chain.at(-1)!.service, summary).toBe('gateway');
    expect(consumer.attributes['gfts.outcome'], summary).toBe('processed');
    // one access line in the gateway and in tasks; the consumer's work adds none at info
    expect(accessLine(processes.output('gateway'), requestId)).toMatchObject({ trace_id: mongo.traceId, route: '/api/v1/stats' });
    expect(accessLine(processes.output('tasks'), requestId)).toMatchObject({ trace_id: mongo.traceId, span_id: tasksServer!.spanId });
  });
});
