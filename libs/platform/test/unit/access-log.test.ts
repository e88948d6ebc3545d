import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/http.ts';
import { redactUrl } from '../../src/observability.ts';

function captured() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

describe('access log', () => {
  it('writes one line per request with method, URL, route, status, time and request id, and no secrets', async () => {
    const { lines, stream } = captured();
    const app = createHttpServer({ service: 'test', logLevel: 'info', bodyLimit: 1024, logStream: stream });
    app.get('/things/:id', async () => ({ ok: true }));
    await app.ready();
    const response = await app.inject({ method: 'GET', url: '/things/7?x=1', headers: { authorization: 'Bearer secret-token' } });
    await app.close();
    expect(response.statusCode).toBe(200);
    const requestLines = lines.filter((l) => l.requestId !== undefined);
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatchObject({
      msg: 'request completed',
      requestId: response.headers['x-request-id'],
      req: { method: 'GET', url: '/things/7?x=1' },
      route: '/things/:id',
      res: { statusCode: 200 },
    });
    expect(typeof requestLines[0]!.responseTime).toBe('number');
    // tracing is off here: no trace fields; pid and hostname are the container's, not repeated per line
    expect(Object.keys(requestLines[0]!).sort()).toEqual(['level', 'msg', 'name', 'req', 'requestId', 'res', 'responseTime', 'route', 'time']);
    expect(JSON.stringify(lines)).not.toContain('secret-token');
  });

  it('writes the line of an answer cut because its client stopped taking it for the send timeout, once, with a warning', async () => {
    const { lines, stream } = captured();
    const app = createHttpServer({ service: 'test', logLevel: 'info', bodyLimit: 1024, logStream: stream, sendTimeoutMs: 300 });
    // larger than what the sockets' buffers take in: the client must read it
    const large = Buffer.alloc(16 << 20, 0x20);
    app.get('/large', async (_request, reply) => reply.type('application/json').send(large));
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(address);
    const stalled = connect({ host: '127.0.0.1', port: Number(port) });
    try {
      stalled.pause();
      stalled.write('GET /large HTTP/1.1\r\nHost: test\r\n\r\n');
      const lineOf = () => lines.find((l) => l.msg === 'request completed' && (l.req as { url?: string } | undefined)?.url === '/large');
      for (let i = 0; i < 60 && !lineOf(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      const cut = lineOf();
      expect(cut).toMatchObject({ route: '/large', res: { statusCode: 200 } });
      expect(lines.some((l) => l.msg === 'answer cut: its client stopped taking it for SEND_TIMEOUT_MS' && l.sendTimeoutMs === 300)).toBe(true);
      // once: a cut answer is not recorded again when its socket closes
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(lines.filter((l) => l.msg === 'request completed' && (l.req as { url?: string } | undefined)?.url === '/large')).toHaveLength(1);
    } finally {
      stalled.destroy();
      await app.close();
    }
  });

  it('leaves probes and scrapes out', async () => {
    const { lines, stream } = captured();
    const app = createHttpServer({ service: 'test', logLevel: 'info', bodyLimit: 1024, logStream: stream });
    app.get('/healthz', async () => ({ status: 'ok' }));
    await app.ready();
    await app.inject({ method: 'GET', url: '/healthz' });
    await app.inject({ method: 'GET', url: '/metrics' });
    // the route decides, not the text: a trailing slash or a query string is still a probe
    await app.inject({ method: 'GET', url: '/healthz/' });
    await app.inject({ method: 'GET', url: '/metrics?name=x' });
    await app.close();
    expect(lines.filter((l) => l.requestId !== undefined)).toEqual([]);
  });
});

describe('redactUrl', () => {
  it('redacts a ticket however its key is written, and leaves the rest of the URL as it was', () => {
    expect(redactUrl('/live?ticket=abc&x=1')).toBe('/live?ticket=[redacted]&x=1');
    // a `#` is part of the value to the query parser, and the ticket's decoder skips it
    expect(redactUrl('/live?x=1&TICKET=abc#frag')).toBe('/live?x=1&TICKET=[redacted]');
    expect(redactUrl('/live?ticket=AAAA#BBBB&y=2')).toBe('/live?ticket=[redacted]&y=2');
    // the query parser decodes keys: so must the redaction
    expect(redactUrl('/live?%74icket=abc')).toBe('/live?%74icket=[redacted]');
    expect(redactUrl('/live?%54%69%63%6B%65%74=abc&y=2')).toBe('/live?%54%69%63%6B%65%74=[redacted]&y=2');
    // a key that does not decode cannot be told apart: its value goes too
    expect(redactUrl('/live?%E0%A4%A=abc')).toBe('/live?%E0%A4%A=[redacted]');
    expect(redactUrl('/live?tickets=abc&x=ticket')).toBe('/live?tickets=abc&x=ticket');
    expect(redactUrl('/things/7')).toBe('/things/7');
    // past a `#`, and after one that comes first: the query parser reads both
    expect(redactUrl('/live?x=1#&ticket=abc')).toBe('/live?x=1#&ticket=[redacted]');
    expect(redactUrl('/live#&ticket=abc')).toBe('/live#&ticket=[redacted]');
    expect(redactUrl('/live#ticket=abc&y=2')).toBe('/live#ticket=[redacted]&y=2');
    // a `?` inside a value is the value's: no ticket key there
    expect(redactUrl('/live?a=b?ticket=c')).toBe('/live?a=b?ticket=c');
    // a run of `?` after an escape is read once, not once per `?` (its time is the bench's to say; here its answer)
    const many = `/x?%${'?'.repeat(16_000)}`;
    expect(redactUrl(many)).toBe(many);
  });

  it('redacts the text of a gamer search (personal data), however its key is written', () => {
    expect(redactUrl('/api/v1/friendship/search?displayName=Mona&limit=5')).toBe('/api/v1/friendship/search?displayName=[redacted]&limit=5');
    expect(redactUrl('/api/v1/admin/gamers?limit=5&DISPLAYNAME=Mona')).toBe('/api/v1/admin/gamers?limit=5&DISPLAYNAME=[redacted]');
    expect(redactUrl('/search?%64isplayName=Mona')).toBe('/search?%64isplayName=[redacted]');
    expect(redactUrl('/search?name=Mona')).toBe('/search?name=Mona');
  });

  it('writes one line, status 499, for a request whose client left before its answer', async () => {
    const { lines, stream } = captured();
    const app = createHttpServer({ service: 'test', logLevel: 'info', bodyLimit: 1024, logStream: stream });
    let reached!: () => void;
    const handled = new Promise<void>((resolve) => (reached = resolve));
    app.get('/slow', async () => {
      reached();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { ok: true };
    });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(address);
    const client = connect({ host: '127.0.0.1', port: Number(port) });
    client.on('error', () => undefined);
    client.write('GET /slow HTTP/1.1\r\nhost: x\r\n\r\n');
    await handled;
    client.destroy();
    await new Promise((resolve) => setTimeout(resolve, 600));
    await app.close();
    // before: no line at all
    const slow = lines.filter((l) => l.msg === 'request completed' && (l.req as { url?: string } | undefined)?.url === '/slow');
    expect(slow).toHaveLength(1);
    expect(slow[0]).toMatchObject({ res: { statusCode: 499 } });
  });
});
