import { request as httpRequest, ServerResponse, type ClientRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ErrorCode, notificationsRoutes, REQUEST_ID_HEADER } from '@gfts/contracts';
import { AppError, createIdentitySigner, problem, recordHijacked, sendProblem, shuttingDown } from '@gfts/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge } from 'prom-client';
import { forwardHeaders } from './forward-headers.ts';
import { lookAt, type LastHeard } from './upstream-silence.ts';

/** The headers of a 101 the client gets from the service's: the WebSocket handshake's own (RFC 6455 4.2.2). */
const HANDSHAKE_HEADERS = new Set(['upgrade', 'connection', 'sec-websocket-accept', 'sec-websocket-protocol', 'sec-websocket-extensions']);

export const LIVE_PATH = notificationsRoutes.live.url;

/**
 * Whether a request is for the live channel, the one path that upgrades (the router ignores
 * one trailing slash, libs/platform http.ts: so does this). Compared decoded, as the router
 * matches it: `/api/v1/notifications/%6Cive` is the live route too (until 2026-11-29 it was
 * taken as a plain request and answered 426 to a client that had sent the upgrade).
 */
export function isLivePath(url: string | undefined): boolean {
  // the router reads a path up to a `?` or a `#`
  let path = (url ?? '').split(/[?#]/)[0]!;
  try {
    // decodeURI: like the router, it leaves what would change the path's shape (%2F, %3F) encoded
    path = decodeURI(path);
  } catch {
    return false;
  }
  return path === LIVE_PATH || path === `${LIVE_PATH}/`;
}

/** An upgrade the gateway proxies: a GET of the live path (a HEAD offering one was relayed a 101, its ticket spent, until 2026-11-29). */
export function isLiveUpgrade(method: string | undefined, url: string | undefined): boolean {
  return method === 'GET' && isLivePath(url);
}

interface PendingUpgrade {
  socket: Duplex;
  head: Buffer;
}

/** Upgrade requests the server handed over, found again by the route that serves them. */
const pending = new WeakMap<IncomingMessage, PendingUpgrade>();

/** Headers a refusal from upstream keeps when relayed; the rest describe the hop, not the answer. */
const RELAYED_HEADERS = new Set(['content-type', 'x-request-id', 'retry-after', 'allow']);
/** The largest refusal of an upgrade relayed (a problem is a few hundred bytes): larger is answered 502. */
const REFUSAL_MAX_BYTES = 64 * 1024;

/**
 * Upgrade requests go through Fastify like any request (request id, authentication, rate
 * limit, access log, 4xx as HTTP answers on the socket), the way @fastify/websocket does
 * it. Only the live channel upgrades: the server takes only its requests as upgrades
 * (`acceptsUpgrade`, app.ts), so a request offering `Upgrade` on any other path (an h2c
 * offer) is a plain request, its body read; until 2026-11-28 its body was dropped and it
 * was answered 400. On a Node before 24.9, which ignores that setting, such a request still
 * comes here: the upgrade is dropped and the request answered as a plain one (without its
 * body), then the socket is closed.
 */
export function routeUpgrades(app: FastifyInstance): void {
  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const res = new ServerResponse(req);
    try {
      res.assignSocket(socket as never);
    } catch {
      // An upgrade pipelined behind a request whose answer is still being written: the
      // socket is that answer's. Unanswerable in order; the connection goes (until
      // 2026-11-28 the throw was uncaught and took the gateway down with every pipe).
      socket.destroy();
      return;
    }
    if (isLiveUpgrade(req.method, req.url)) pending.set(req, { socket, head });
    else {
      delete req.headers.upgrade;
      req.headers.connection = 'close';
    }
    // an answer other than the 101 ends the socket: it says so (Connection: close). Destroyed
    // once written, not only half-closed: the server's timeouts no longer watch a socket taken
    // on 'upgrade', so a client that kept its side open would hold it for ever.
    res.shouldKeepAlive = false;
    // destroySoon is a net.Socket's: an upgrade handed over on another kind of stream (Node 26
    // may wrap the socket of an upgrade whose body has not all come) would throw here, outside
    // any handler, and take the gateway down
    res.on('finish', () => {
      const end = (socket as Partial<Socket>).destroySoon;
      if (typeof end === 'function') end.call(socket);
      else socket.end(() => socket.destroy());
    });
    app.routing(req, res);
  });
}

export interface LiveProxyOptions {
  upstream: string;
  internalSecret: string;
  timeoutMs: number;
  /** a pipe whose upstream sent nothing for this long is cut (LIVE_IDLE_TIMEOUT_MS) */
  idleTimeoutMs: number;
}

/** A client socket piped to its upstream socket, and when the upstream was last heard. */
interface Pipe {
  upstream: Socket;
  heard: LastHeard;
  cut(): void;
}

/**
 * GET /api/v1/notifications/live: once the hooks have authenticated the gamer, the upgrade
 * goes to the notifications service with the gateway's identity assertion (and without the
 * caller's credentials or ticket). Its 101 is relayed and the two sockets piped: frames,
 * pings and close codes pass unchanged, and TCP back-pressure reaches the service, whose
 * send buffer bound decides when a client is too slow. Its refusal (a used ticket's 401)
 * is relayed as it came. Until the 101 the reply is Fastify's, so a refusal, the service's
 * or the gateway's own 502/504, is counted and logged like any answer; the 101 is recorded
 * by hand (recordHijacked), as Fastify runs no hook once the sockets are the proxy's.
 */
export function liveProxy(app: FastifyInstance, opts: LiveProxyOptions): void {
  const sign = createIdentitySigner(opts.internalSecret);
  const target = new URL(opts.upstream);
  const open = new Map<Duplex, Pipe>();
  /** upgrades asked of the service and not answered yet */
  const waiting = new Set<ClientRequest>();
  let closing = false;
  const { websocket: _websocket, schema, ...route } = notificationsRoutes.live;
  const silentCuts = new Counter({
    name: 'gateway_live_idle_cuts_total',
    help: 'live-channel pipes cut because the notifications service sent nothing for LIVE_IDLE_TIMEOUT_MS',
    registers: [app.metrics],
  });
  // each pipe holds two sockets and their buffers in this process (~16–25 KiB, bench
  // 2026-11-27-pod-memory), which CPU-based scaling does not see: what memory sizing reads
  new Gauge({
    name: 'gateway_live_pipes',
    help: 'live-channel WebSockets this gateway pipes to the notifications service now',
    registers: [app.metrics],
    collect() {
      this.set(open.size);
    },
  });

  app.route({
    ...route,
    schema: { querystring: schema.querystring },
    handler: async (request, reply) => {
      const upgrade = pending.get(request.raw);
      if (!upgrade) {
        // a 426 names the protocol to upgrade to (RFC 9110, 15.5.22), listed in Connection
        // as Upgrade must be, keeping a client's close
        const closes = /\bclose\b/i.test(String(request.headers.connection ?? ''));
        void reply.header('upgrade', 'websocket').header('connection', closes ? 'Upgrade, close' : 'Upgrade');
        throw new AppError(426, ErrorCode.UPGRADE_REQUIRED, 'this path is a WebSocket: send Connection: Upgrade and Upgrade: websocket');
      }
      pending.delete(request.raw);
      // authenticated while the gateway began to stop: nothing would cut a pipe opened now
      if (closing) throw shuttingDown();
      forward(request, reply, upgrade);
      return reply;
    },
  });

  // The service pings every socket each heartbeat and the client answers, so a live pipe
  // always carries bytes. Without this sweep, a pipe whose notifications node and client both
  // vanished without a FIN (node lost, network cut) would be held for ever; one whose node
  // alone vanished leaves a client waiting on a dead channel instead of reconnecting.
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const pipe of open.values()) {
      const look = lookAt(pipe.heard, pipe.upstream.bytesRead, now, opts.idleTimeoutMs);
      if (look !== 'silent') pipe.heard = look;
      else {
        silentCuts.inc();
        app.log.info({ idleTimeoutMs: opts.idleTimeoutMs }, 'live pipe cut: nothing from the notifications service for the idle timeout');
        pipe.cut();
      }
    }
  }, Math.max(250, Math.floor(opts.idleTimeoutMs / 4)));
  sweep.unref();

  // Piped sockets are not the HTTP server's any more: cut them when the gateway stops. An
  // upgrade still waiting for the service's 101 would be piped after this and hold the
  // server's close: it is given up, and its client told to retry (503).
  app.addHook('preClose', async () => {
    closing = true;
    clearInterval(sweep);
    for (const pipe of open.values()) pipe.cut();
    for (const upstream of waiting) upstream.destroy();
  });

  function forward(request: FastifyRequest, reply: FastifyReply, { socket: client, head }: PendingUpgrade): void {
    // The client may have left while the gateway was busy (authenticating, a full event loop):
    // its 'close' has fired already, so nothing would cut a pipe opened for it (a ghost online
    // for heartbeat + grace, a ticket spent). It is not forwarded.
    if (hasLeft(client)) return gone(request, reply, client);
    const since = (request.query as { since?: string }).since;
    const headers = forwardHeaders(request.headers, request.gamer ? sign(request.gamer) : undefined, String(request.id));
    headers.host = target.host;
    // the upgrade of this hop: the client's own connection headers are not forwarded
    headers.connection = 'Upgrade';
    headers.upgrade = 'websocket';
    // no body goes on this hop: a client's Content-Length would have the service wait for one
    delete headers['content-length'];
    delete headers['content-type'];
    delete headers['transfer-encoding'];
    const upstream = httpRequest({
      protocol: target.protocol, hostname: target.hostname, port: target.port, method: 'GET', headers,
      path: since === undefined ? LIVE_PATH : `${LIVE_PATH}?since=${encodeURIComponent(since)}`,
      timeout: opts.timeoutMs,
      // a connection of its own: a refused upgrade's answer says keep-alive while the service
      // closes it, and from the shared pool the next upgrade could take that dying socket (502)
      agent: false,
    });
    waiting.add(upstream);
    upstream.on('close', () => waiting.delete(upstream));
    // one answer, whichever event comes first: reply.sent turns true only once the send's hooks ran
    let answered = false;
    const refuse = (status: number, detail: string) => {
      if (answered) return;
      answered = true;
      sendProblem(reply, problem(status, ErrorCode.UPSTREAM_UNAVAILABLE, detail));
    };
    upstream.on('timeout', () => {
      upstream.destroy();
      refuse(504, 'upstream service timed out');
    });
    upstream.on('error', (error) => {
      // answered already (a timeout)
      if (reply.sent) return;
      // the client left and destroyed the request: not the service's failure
      if (hasLeft(client)) return gone(request, reply, client);
      if (closing) return void reply.send(shuttingDown());
      request.log.warn({ err: error }, 'notifications upstream failed');
      refuse(502, 'upstream service unavailable');
    });
    upstream.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        // the service's refusals are small problems: anything larger is not one of them
        if (size > REFUSAL_MAX_BYTES) return void upstream.destroy(new Error(`a refusal of the upgrade over ${REFUSAL_MAX_BYTES} bytes`));
        chunks.push(chunk);
      });
      response.on('end', () => {
        if (answered || size > REFUSAL_MAX_BYTES) return;
        answered = true;
        for (let i = 0; i < response.rawHeaders.length; i += 2) {
          const name = response.rawHeaders[i]!;
          if (RELAYED_HEADERS.has(name.toLowerCase())) reply.header(name, response.rawHeaders[i + 1]!);
        }
        void reply.code(response.statusCode ?? 502).send(Buffer.concat(chunks));
      });
      // A refusal cut before its end (the service's pod killed, the network, the cap above,
      // the gateway closing) emits neither 'end' nor the request's 'error': only 'close'.
      // Unanswered, the client waited for ever, and its socket held the gateway's shutdown.
      response.on('close', () => {
        if (reply.sent || response.complete) return;
        if (hasLeft(client)) return gone(request, reply, client);
        if (closing) return void reply.send(shuttingDown());
        request.log.warn({ status: response.statusCode, bytes: size }, 'notifications upstream refusal cut short');
        refuse(502, 'upstream service unavailable');
      });
    });
    upstream.on('upgrade', (response, socket, upstreamHead) => {
      upstream.setTimeout(0);
      // left while the service answered (the 'end' and 'close' below came too late to stop it)
      if (hasLeft(client)) {
        socket.destroy();
        return gone(request, reply, client);
      }
      client.off('end', abandon);
      reply.hijack();
      // the handshake's own headers only, as the answers of the other routes are filtered
      // (answerHeaders): a header the service adds later (a debug one, an x-gfts- one, a
      // cookie) stays inside (until 2026-11-29 every one was copied), and the gateway's request id
      const lines = ['HTTP/1.1 101 Switching Protocols'];
      for (let i = 0; i < response.rawHeaders.length; i += 2) {
        if (HANDSHAKE_HEADERS.has(response.rawHeaders[i]!.toLowerCase())) lines.push(`${response.rawHeaders[i]}: ${response.rawHeaders[i + 1]}`);
      }
      lines.push(`${REQUEST_ID_HEADER}: ${String(request.id)}`);
      client.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (upstreamHead.length > 0) client.write(upstreamHead);
      if (head.length > 0) socket.write(head);
      socket.setNoDelay(true);
      const close = () => {
        open.delete(client);
        client.destroy();
        socket.destroy();
      };
      open.set(client, { upstream: socket, heard: { bytes: socket.bytesRead, at: Date.now() }, cut: close });
      for (const side of [client, socket]) {
        side.on('error', close);
        side.on('close', close);
      }
      client.pipe(socket);
      socket.pipe(client);
      recordHijacked(request, reply, 101);
    });
    const abandon = () => upstream.destroy();
    client.on('close', abandon);
    // until the 101 only: once piped, a client's FIN goes on to the service
    client.once('end', abandon);
    upstream.end();
  }
}

/**
 * The client is gone: its socket destroyed (a reset), or its FIN received. The server keeps
 * sockets half-open, so a FIN alone closes nothing; a WebSocket client never half-closes
 * before its 101, so one that did gave up.
 */
function hasLeft(client: Duplex): boolean {
  return client.destroyed || client.readableEnded;
}

/** The client left before its pipe opened: nothing to answer; counted as nginx's 499 (client closed request). */
function gone(request: FastifyRequest, reply: FastifyReply, client: Duplex): void {
  // half-open after a FIN: it would hold the server's close
  client.destroy();
  if (reply.sent) return;
  reply.hijack();
  recordHijacked(request, reply, 499);
}
