import { connect } from 'node:net';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/http.ts';

/**
 * A request that reaches a server whose close has begun, over a real keep-alive socket
 * opened before (a client or the gateway reusing its connection). The test holds the close
 * between its first step and the socket's end, where such a request can arrive.
 */
describe('createHttpServer while closing', () => {
  it('answers a request that comes after the close began with a 503 problem, and closes the connection', async () => {
    const app = createHttpServer({ service: 'test', logLevel: 'silent', bodyLimit: 1024 });
    app.get('/things', async () => ({ ok: true }));
    let began!: () => void;
    const closeBegan = new Promise<void>((resolve) => (began = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    app.addHook('preClose', async () => {
      began();
      await held;
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));

    const closed = app.close();
    await closeBegan;
    socket.write('GET /things HTTP/1.1\r\nhost: x\r\n\r\n');
    await once(socket, 'end');
    release();
    await closed;

    expect(received).toMatch(/^HTTP\/1\.1 503 /);
    expect(received).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    expect(received).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(received).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
  });
});
