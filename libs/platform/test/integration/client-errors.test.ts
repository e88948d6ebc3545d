import type { FastifyInstance } from 'fastify';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/http.ts';

/** Sends raw bytes and reads until the server closes the connection. */
async function exchange(port: number, bytes: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  let answer = '';
  socket.setEncoding('latin1').on('data', (chunk: string) => (answer += chunk));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => undefined); // the server may reset after answering
  socket.write(bytes);
  await closed;
  return answer;
}

function problemOf(answer: string): { head: string; status: number; type: string | undefined; body: Record<string, unknown> } {
  const [head, body] = answer.split('\r\n\r\n', 2) as [string, string];
  return { head, status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]), type: /content-type: ([^\r]+)/i.exec(head)?.[1], body: JSON.parse(body) as Record<string, unknown> };
}

/** What a request Node's parser refuses gets: a problem like every other error, not Fastify's own JSON. */
describe('requests refused before routing', () => {
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    app = createHttpServer({ service: 'test', logLevel: 'silent', bodyLimit: 1_000, requestTimeoutMs: 1_000 });
    app.post('/things', async () => ({ ok: true }));
    // a body that has begun and streams on until its connection closes: whatever a pipelined
    // request behind it gets, it gets while this answer is still being written
    app.get('/slow', async (request, reply) => {
      const body = new Readable({ read() {} });
      body.push('first-half;');
      request.raw.socket.once('close', () => body.push(null));
      return reply.type('text/plain').send(body);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await app.close();
  });

  it('bytes that are not HTTP: 400 MALFORMED_REQUEST', async () => {
    const answer = problemOf(await exchange(port, 'HELLO THERE\r\n\r\n'));
    expect(answer.head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toMatchObject({ status: 400, type: 'application/problem+json', body: { status: 400, code: 'MALFORMED_REQUEST', title: 'Bad Request' } });
  });

  it('headers over Node\'s limit: 431 HEADERS_TOO_LARGE', async () => {
    const answer = problemOf(await exchange(port, `GET /things HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(answer).toMatchObject({ status: 431, type: 'application/problem+json', body: { status: 431, code: 'HEADERS_TOO_LARGE', title: 'Request Header Fields Too Large' } });
  });

  it('a body that never comes: 408 REQUEST_TIMEOUT', async () => {
    // the test's own timeout bounds the wait; nothing here measures time
    const answer = problemOf(await exchange(port, 'POST /things HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":'));
    expect(answer).toMatchObject({ status: 408, type: 'application/problem+json', body: { status: 408, code: 'REQUEST_TIMEOUT', title: 'Request Timeout' } });
  });

  it('a pipelined request that times out while an earlier answer streams does not write into that answer', async () => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('latin1').on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /slow HTTP/1.1\r\nhost: x\r\n\r\n');
    await expect.poll(() => answer).toContain('first-half;');
    socket.write('POST /things HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{');
    // only the server's timeout of the pipelined request closes the connection (the test's own
    // timeout bounds the wait; nothing here measures time)
    await closed;
    // the streamed answer is never interleaved with another status line
    expect(answer.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(answer).not.toContain('REQUEST_TIMEOUT');
  });
});
