import { createHash } from 'node:crypto';
import { createServer, request } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** The Sec-WebSocket-Accept that answers a Sec-WebSocket-Key (RFC 6455, 4.2.2). */
function acceptOf(key: string): string {
  return createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
}

/** An unmasked text frame, as a server sends it (payload under 126 bytes). */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  return Buffer.concat([Buffer.from([0x81, payload.length]), payload]);
}

export interface LiveUpstream {
  url: string;
  /** upgrade requests received so far */
  readonly upgrades: number;
  /** resolves once `n` upgrade requests have been received */
  untilUpgrades(n: number): Promise<void>;
  /** resolves when this server first answers an upgrade 101 (never, for one that refuses) */
  answered: Promise<void>;
  /** resolves once every upgrade socket received so far is closed (by this server, or because its peer left) */
  untilUpgradeSocketsClosed(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Stands in for the notifications service's live channel: each upgrade is answered 101
 * after `delayMs`, then sent a text frame every 100 ms; or, with `refuse`, refused with that
 * status and a problem body, as the service refuses a used ticket. It counts the upgrades it
 * receives, so a test can tell whether the gateway sent one on.
 */
export async function liveUpstream(opts: { delayMs?: number; refuse?: number; refusal?: 'cut' | 'huge' | 'whole-huge'; headers101?: Record<string, string> } = {}): Promise<LiveUpstream> {
  const sockets = new Set<Socket>();
  const upgradeSockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let upgrades = 0;
  const upgradeWaiters: { n: number; resolve: () => void }[] = [];
  let markAnswered!: () => void;
  const answered = new Promise<void>((resolve) => (markAnswered = resolve));
  const server = createServer((_req, res) => res.writeHead(426).end());
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('upgrade', (req, socket: Socket) => {
    upgrades++;
    for (const waiter of upgradeWaiters.filter((w) => upgrades >= w.n)) waiter.resolve();
    upgradeSockets.add(socket);
    socket.on('close', () => upgradeSockets.delete(socket));
    socket.on('error', () => socket.destroy());
    // the gateway gone from the other end: closed, as the service closes a socket its peer left
    socket.on('end', () => socket.destroy());
    if (opts.refusal === 'cut') {
      // a refusal whose connection dies before its body is whole (the service's pod killed)
      socket.write(`HTTP/1.1 401 Refused\r\ncontent-type: application/problem+json\r\ncontent-length: 200\r\n\r\n{"sta`);
      setTimeout(() => socket.destroy(), 50);
      return;
    }
    if (opts.refusal === 'huge') {
      // not a refusal of the service's: a large page from whatever answers there
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: ${4 * 1024 * 1024}\r\n\r\n`);
      socket.write(Buffer.alloc(256 * 1024, 'x'));
      return;
    }
    if (opts.refusal === 'whole-huge') {
      // a whole refusal over the cap, its last chunk the one that crosses it
      const body = Buffer.alloc(70 * 1024, 'x');
      socket.end(Buffer.concat([Buffer.from(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/html\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`), body]));
      return;
    }
    if (opts.refuse !== undefined) {
      const body = JSON.stringify({ status: opts.refuse, code: 'UNAUTHORIZED', title: 'refused' });
      socket.end(`HTTP/1.1 ${opts.refuse} Refused\r\ncontent-type: application/problem+json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`);
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (socket.destroyed) return;
      const accept = acceptOf(String(req.headers['sec-websocket-key']));
      const extra = Object.entries(opts.headers101 ?? {}).map(([name, value]) => `${name}: ${value}\r\n`).join('');
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${accept}\r\n${extra}\r\n`);
      markAnswered();
      const ticks = setInterval(() => socket.write(textFrame('tick')), 100);
      socket.on('close', () => clearInterval(ticks));
    }, opts.delayMs ?? 0);
    timers.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    get upgrades() {
      return upgrades;
    },
    untilUpgrades: (n) => (upgrades >= n ? Promise.resolve() : new Promise((resolve) => upgradeWaiters.push({ n, resolve }))),
    answered,
    untilUpgradeSocketsClosed: () => Promise.all([...upgradeSockets].map((s) => (s.destroyed ? undefined : new Promise((resolve) => s.once('close', resolve))))).then(() => undefined),
    close: () => {
      // a delayed 101 still pending would hold the process for delayMs
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export interface UpgradeAnswer {
  status: number;
  /** the piped socket, after a 101 */
  socket?: Duplex;
  /** the answer's headers (a refusal's, or the 101's) */
  headers?: Record<string, string | string[] | undefined>;
}

/** Asks `url` for a WebSocket upgrade and answers its status: 101 with the socket, or the refusal's. */
export function askUpgrade(url: string, headers: Record<string, string>): Promise<UpgradeAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      headers: { ...headers, connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
    });
    outgoing.on('upgrade', (response, socket) => resolve({ status: 101, socket, headers: response.headers }));
    outgoing.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}
