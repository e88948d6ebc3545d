import { IncomingMessage } from 'node:http';
import { connect, createServer, Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { notificationsRoutes } from '@gfts/contracts';
import { eventually, listen, mintToken, TEST_INTERNAL_SECRET, TEST_JWT_SECRET, testLogLevel } from '@gfts/testkit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { buildGateway } from '../../src/app.ts';
import { readGatewayConfig } from '../../src/config.ts';
import { askUpgrade, liveUpstream, type LiveUpstream } from '../support/live-upstream.ts';

const LIVE = notificationsRoutes.live.url;
const DOWN = 'http://127.0.0.1:9';

/** http_request_duration_seconds samples of the live route, by status. */
async function liveSamples(gatewayUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const [, labels = '', count] of text.matchAll(/^http_request_duration_seconds_count\{([^}]*)\} (\d+)$/gm)) {
    const status = /status_code="(\d+)"/.exec(labels)?.[1];
    if (labels.includes(`route="${LIVE}"`) && status) counts[status] = Number(count);
  }
  return counts;
}

describe('the live channel through the gateway', () => {
  const auth = { authorization: `Bearer ${mintToken()}` };
  let gateway: FastifyInstance | undefined;
  let upstream: LiveUpstream | undefined;
  afterEach(async () => {
    await upstream?.close();
    await gateway?.close();
    upstream = undefined;
    gateway = undefined;
  });

  /**
   * Authentication held (a rate-limit store far away) until the gateway has begun to stop:
   * `preHandler` holds each request, and says so through `entered`; `preClose`, run after the
   * live proxy's own preClose hook (registered first), lets them go on.
   */
  function authenticationHeldUntilClose(): { preHandler: () => Promise<void>; preClose: () => Promise<void>; entered: Promise<void> } {
    let enter!: () => void;
    let release!: () => void;
    const entered = new Promise<void>((resolve) => (enter = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    return {
      preHandler: async () => {
        enter();
        await released;
      },
      preClose: async () => release(),
      entered,
    };
  }

  /** A gateway in front of `notificationsUrl`, with `hooks` of the test's own. */
  async function gatewayTo(notificationsUrl: string, opts: { env?: Record<string, string>; hooks?: { preHandler: (request: FastifyRequest) => Promise<void>; preClose: () => Promise<void> } } = {}): Promise<string> {
    gateway = await buildGateway(readGatewayConfig({
      FRIENDSHIP_URL: DOWN, TASKS_URL: DOWN, NOTIFICATIONS_URL: notificationsUrl,
      JWT_SECRET: TEST_JWT_SECRET, INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: testLogLevel(),
      ...opts.env,
    }));
    if (opts.hooks) {
      gateway.addHook('preHandler', opts.hooks.preHandler);
      gateway.addHook('preClose', opts.hooks.preClose);
    }
    return listen(gateway);
  }

  /** Takes the gateway out of `gateway` (the afterEach closes it no more) and starts closing it. */
  function stopGateway(): Promise<void> {
    const stopping = gateway!;
    gateway = undefined;
    return stopping.close();
  }

  it('counts an upgrade refused because the service is down as a 502 of the live route', async () => {
    const url = await gatewayTo(DOWN);
    expect((await askUpgrade(`${url}${LIVE}`, auth)).status).toBe(502);
    expect((await askUpgrade(`${url}${LIVE}`, auth)).status).toBe(502);
    expect(await liveSamples(url)).toEqual({ 502: 2 });
  });

  it('closes the connection of a refused upgrade once the answer is written, though the client keeps its side open', async () => {
    const url = new URL(await gatewayTo(DOWN));
    // a client that never closes its side: only the gateway's close ends the connection
    const client = connect({ host: url.hostname, port: Number(url.port), allowHalfOpen: true });
    let answer = '';
    client.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const answered = new Promise<void>((resolve) => client.once('end', resolve));
    client.write(`GET ${LIVE} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
    await answered;
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    const connections = () => new Promise<number>((resolve, reject) => gateway!.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
    await eventually(async () => ((await connections()) === 0 ? true : undefined));
    client.destroy();
  });

  it('answers an upgrade handed over on a stream that is not a socket (Node 26, a body still coming) without a throw', async () => {
    await gatewayTo(DOWN);
    // what Node 26 hands the 'upgrade' listener for an upgrade whose body has not all come:
    // a stream of its own, without net.Socket's destroySoon (the gateway called it and threw)
    const stream = new PassThrough();
    let answer = '';
    stream.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const ended = new Promise<void>((resolve) => stream.once('finish', resolve));
    const req = new IncomingMessage(new Socket());
    Object.assign(req, { method: 'GET', url: LIVE, httpVersion: '1.1', httpVersionMajor: 1, httpVersionMinor: 1 });
    req.headers = { host: 'gateway', connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'content-length': '10' };
    req.push(null);
    gateway!.server.emit('upgrade', req, stream, Buffer.alloc(0));
    await ended;
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
  });

  it('counts a refusal of the service, relayed, with its status', async () => {
    upstream = await liveUpstream({ refuse: 401 });
    const url = await gatewayTo(upstream.url);
    expect((await askUpgrade(`${url}${LIVE}`, auth)).status).toBe(401);
    expect(await liveSamples(url)).toEqual({ 401: 1 });
  });

  it('answers 502 to a refusal cut before its end, or one too large to be a refusal: the client is never left waiting', async () => {
    for (const refusal of ['cut', 'huge', 'whole-huge'] as const) {
      upstream = await liveUpstream({ refusal });
      const url = await gatewayTo(upstream.url);
      const { status, socket, headers } = await askUpgrade(`${url}${LIVE}`, auth);
      socket?.destroy();
      // one answer, the gateway's: not the upstream's status with the gateway's body
      expect({ refusal, status, type: headers?.['content-type'] }).toEqual({ refusal, status: 502, type: 'application/problem+json; charset=utf-8' });
      await stopGateway();
      await upstream.close();
      upstream = undefined;
    }
  });

  it('gives the client the 101\'s handshake headers and its request id, not the service\'s others', async () => {
    upstream = await liveUpstream({ headers101: { 'x-internal-node': 'notifications-7f9c', 'x-gfts-debug': '1', 'set-cookie': 'sid=1' } });
    const url = await gatewayTo(upstream.url);
    const { status, socket, headers } = await askUpgrade(`${url}${LIVE}`, auth);
    expect(status).toBe(101);
    socket?.destroy();
    expect(headers?.['sec-websocket-accept']).toBeTruthy();
    expect(headers?.['x-request-id']).toMatch(/\S/);
    // before: every header of the service's 101 went to the client as it was
    expect([headers?.['x-internal-node'], headers?.['x-gfts-debug'], headers?.['set-cookie']]).toEqual([undefined, undefined, undefined]);
  });

  it('counts a piped upgrade as a 101', async () => {
    upstream = await liveUpstream();
    const url = await gatewayTo(upstream.url);
    const { status, socket } = await askUpgrade(`${url}${LIVE}`, auth);
    expect(status).toBe(101);
    const pipes = async () => Number(/^gateway_live_pipes(?:\{[^}]*\})? (\d+)$/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1]);
    expect(await pipes()).toBe(1);
    socket?.destroy();
    expect(await liveSamples(url)).toEqual({ 101: 1 });
    await eventually(async () => ((await pipes()) === 0 ? true : undefined));
  });

  it('answers 504 when the service does not answer an upgrade within UPSTREAM_TIMEOUT_MS, and counts it', async () => {
    upstream = await liveUpstream({ delayMs: 60_000 });
    const url = await gatewayTo(upstream.url, { env: { UPSTREAM_TIMEOUT_MS: '300' } });
    expect((await askUpgrade(`${url}${LIVE}`, auth)).status).toBe(504);
    expect(upstream.upgrades).toBe(1);
    expect(await liveSamples(url)).toEqual({ 504: 1 });
  });

  it('stops at once while an upgrade waits for the service: the client is told 503, nothing is piped after the close', async () => {
    // the service would answer long after the test's timeout: the close must not wait for it
    upstream = await liveUpstream({ delayMs: 60_000 });
    const answer = askUpgrade(`${await gatewayTo(upstream.url)}${LIVE}`, auth);
    await upstream.untilUpgrades(1);
    const first = await Promise.race([stopGateway().then(() => 'gateway closed'), upstream.answered.then(() => 'service answered')]);
    expect(first).toBe('gateway closed');
    const { status, socket } = await answer;
    socket?.destroy();
    expect(status).toBe(503);
    // the upgrade asked of the service was dropped: no 101 can come back to be piped
    await upstream.untilUpgradeSocketsClosed();
    expect(upstream.upgrades).toBe(1);
  });

  it('refuses an upgrade still being authenticated when the gateway stops: it is not sent to the service, the client is told 503', async () => {
    upstream = await liveUpstream();
    const held = authenticationHeldUntilClose();
    const answer = askUpgrade(`${await gatewayTo(upstream.url, { hooks: held })}${LIVE}`, auth);
    await held.entered;
    // the close lets the authentication go on once the gateway counts as stopping
    const closed = stopGateway();
    const { status, socket } = await answer;
    socket?.destroy();
    expect(status).toBe(503);
    await closed;
    expect(upstream.upgrades).toBe(0);
  });

  for (const how of ['reset', 'closed'] as const) {
    it(`does not forward an upgrade whose client left (${how}) while it was being authenticated: no ghost pipe, counted as a 499`, async () => {
      upstream = await liveUpstream();
      let entered!: () => void;
      const inHook = new Promise<void>((resolve) => (entered = resolve));
      // authentication held until the gateway has seen the client leave (a reset: the socket
      // closes; a FIN: its read side ends, the server's sockets being half-open)
      const hooks = {
        preHandler: async (request: FastifyRequest) => {
          // the test's /metrics reads pass
          if (!request.url.startsWith(LIVE)) return;
          const socket = request.raw.socket;
          const left = new Promise<void>((resolve) => {
            if (socket.destroyed || socket.readableEnded) return resolve();
            socket.once('close', () => resolve()).once('end', () => resolve());
          });
          entered();
          await left;
        },
        preClose: async () => {},
      };
      const url = await gatewayTo(upstream.url, { hooks });
      const client = httpRequest(`${url}${LIVE}`, {
        headers: { ...auth, connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
      });
      client.on('error', () => {});
      client.end();
      await inHook;
      // the client gives up (its own timeout) while the gateway is still busy with it
      if (how === 'reset') client.socket!.resetAndDestroy();
      else client.destroy();
      const pipes = async () => Number(/^gateway_live_pipes(?:\{[^}]*\})? (\d+)$/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1]);
      // either the gateway gave it up, or (the defect) it went on to the service
      await eventually(async () => ((await liveSamples(url))[499] === 1 || upstream!.upgrades > 0 ? true : undefined));
      expect(upstream.upgrades).toBe(0);
      expect(await pipes()).toBe(0);
      expect(await liveSamples(url)).toEqual({ 499: 1 });
    });
  }
  /** A stand-in tasks service: echoes what it got, after `delayMs`. */
  async function echoTasks(delayMs = 0): Promise<{ url: string; close: () => Promise<void>; bodies: unknown[] }> {
    const { default: Fastify } = await import('fastify');
    const app = Fastify({ forceCloseConnections: true });
    const bodies: unknown[] = [];
    app.all('/*', async (request) => {
      bodies.push(request.body ?? null);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return { url: request.url, body: request.body ?? null };
    });
    return { url: await listen(app), close: () => app.close(), bodies };
  }

  it('survives an upgrade pipelined behind a request still being answered: that connection is closed, the gateway goes on', async () => {
    upstream = await liveUpstream();
    const tasks = await echoTasks(300);
    try {
      const url = new URL(await gatewayTo(upstream.url, { env: { TASKS_URL: tasks.url } }));
      const client = connect({ host: url.hostname, port: Number(url.port) });
      client.on('error', () => {});
      const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
      // one write, two requests: the second asks to upgrade while the first waits for the service
      client.write(
        `GET /api/v1/tasks HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${auth.authorization}\r\n\r\n` +
        `GET ${LIVE} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${auth.authorization}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
      );
      await closed;
      expect(upstream.upgrades).toBe(0);
      expect((await fetch(`${url.origin}/healthz`)).status).toBe(200);
    } finally {
      await tasks.close();
    }
  });

  it('answers a request offering another protocol (h2c) as a plain one, its body and all, on any path but the live channel', async () => {
    const tasks = await echoTasks();
    try {
      const url = new URL(await gatewayTo(DOWN, { env: { TASKS_URL: tasks.url } }));
      const body = JSON.stringify({ family: 'daily', numberOfTasks: 2 });
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const outgoing = httpRequest(`${url.origin}/api/v1/tasks/assign`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), connection: 'Upgrade, HTTP2-Settings', upgrade: 'h2c', 'http2-settings': 'AAMAAABkAAQCAAAAAAIAAAAA' },
        }, (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        });
        outgoing.on('upgrade', () => reject(new Error('upgraded')));
        outgoing.on('error', reject);
        outgoing.end(body);
      });
      expect(answer.status, answer.text).toBe(200);
      expect(JSON.parse(answer.text)).toEqual({ url: '/api/v1/tasks/assign', body: JSON.parse(body) });
    } finally {
      await tasks.close();
    }
  });

  it('sends each upgrade on a connection of its own: a refused one\'s, said kept alive, is not taken again', async () => {
    // a service that refuses the first upgrade with a keep-alive answer (as @fastify/websocket
    // writes it) and closes that connection only a moment later; it takes the others
    let connections = 0;
    let requests = 0;
    const service = createServer((socket) => {
      connections++;
      socket.on('error', () => socket.destroy());
      socket.on('data', () => {
        if (++requests === 1) {
          socket.write('HTTP/1.1 401 Unauthorized\r\nconnection: keep-alive\r\ncontent-type: application/problem+json\r\ncontent-length: 2\r\n\r\n{}');
          setTimeout(() => socket.destroy(), 300);
        } else {
          socket.write('HTTP/1.1 101 Switching Protocols\r\nconnection: Upgrade\r\nupgrade: websocket\r\nsec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n');
        }
      });
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = service.address() as { port: number };
      const url = await gatewayTo(`http://127.0.0.1:${port}`);
      expect((await askUpgrade(`${url}${LIVE}`, auth)).status).toBe(401);
      const second = await askUpgrade(`${url}${LIVE}`, auth);
      expect(second.status).toBe(101);
      second.socket?.destroy();
      // before: the second went on the first's connection, which the service was closing (a 502 when it did first)
      expect(connections).toBe(2);
    } finally {
      service.close();
    }
  });

  it('proxies only GET upgrades of the live path, the path compared decoded, and names the protocol in a 426', async () => {
    upstream = await liveUpstream();
    const url = new URL(await gatewayTo(upstream.url));
    // the live path percent-encoded is the live route, as the router matches it
    const encoded = await askUpgrade(`${url.origin}/api/v1/notifications/%6Cive`, auth);
    expect(encoded.status).toBe(101);
    encoded.socket?.destroy();
    // a HEAD offering an upgrade is no upgrade: not relayed a 101, nothing sent to the service
    const before = upstream.upgrades;
    const head = await new Promise<string>((resolve, reject) => {
      const client = connect({ host: url.hostname, port: Number(url.port) });
      let answer = '';
      client.on('data', (chunk: Buffer) => {
        answer += chunk.toString();
        if (answer.includes('\r\n\r\n')) {
          client.destroy();
          resolve(answer);
        }
      });
      client.on('error', reject);
      client.write(`HEAD ${LIVE} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${auth.authorization}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
    });
    expect(head).not.toMatch(/^HTTP\/1\.1 101/);
    expect(upstream.upgrades).toBe(before);
    // a plain GET: 426, with the protocol to upgrade to (RFC 9110)
    const plain = await fetch(`${url.origin}${LIVE}`, { headers: auth });
    expect(plain.status).toBe(426);
    expect(plain.headers.get('upgrade')).toBe('websocket');
  });
});
