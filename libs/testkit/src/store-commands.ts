import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP hop in front of a MongoDB-compatible store that counts the commands clients send
 * through it, by name, read from the wire (OP_MSG). It sees what the store sees, whatever the
 * driver or library above it, so a test can pin how many round trips a request costs.
 */
export interface StoreCommandCounter {
  /** A `mongodb://` URL of the hop for `database`: a direct connection, so the driver stays on the hop. */
  url(database: string): string;
  /** The commands sent since the last call, by name; the driver's own (handshake, monitoring, sessions) left out. */
  take(): Record<string, number>;
  close(): Promise<void>;
}

const OP_MSG = 2013;
/** what a driver sends on its own, not for an operation */
const DRIVER_COMMANDS = new Set(['hello', 'ismaster', 'isMaster', 'ping', 'saslStart', 'saslContinue', 'buildInfo', 'endSessions', 'getParameter']);

/**
 * The command name of each complete OP_MSG at the start of `buffer` (the first key of its
 * body section), and the bytes left over for the next chunk.
 */
export function commandNames(buffer: Buffer): { names: string[]; rest: Buffer } {
  const names: string[] = [];
  let at = 0;
  while (buffer.length - at >= 16) {
    const length = buffer.readInt32LE(at);
    if (buffer.length - at < length) break;
    // header (16 bytes), flagBits (4), then a kind-0 section: its document's first element
    if (buffer.readInt32LE(at + 12) === OP_MSG && buffer[at + 20] === 0) {
      const nameStart = at + 21 + 4 + 1;
      const nameEnd = buffer.indexOf(0, nameStart);
      names.push(buffer.toString('utf8', nameStart, nameEnd));
    }
    at += length;
  }
  return { names, rest: buffer.subarray(at) };
}

/** Starts a counting hop to `mongoUrl`'s first host. */
export async function countStoreCommands(mongoUrl: string): Promise<StoreCommandCounter> {
  const target = new URL(mongoUrl.replace(/^mongodb:/, 'http:'));
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const store = connect(Number(target.port), target.hostname);
    sockets.add(client).add(store);
    let pending = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      const { names, rest } = commandNames(Buffer.concat([pending, chunk]));
      pending = Buffer.from(rest);
      for (const name of names) if (!DRIVER_COMMANDS.has(name)) counts.set(name, (counts.get(name) ?? 0) + 1);
      store.write(chunk);
    });
    store.pipe(client);
    const end = () => {
      client.destroy();
      store.destroy();
      sockets.delete(client);
      sockets.delete(store);
    };
    client.on('close', end).on('error', end);
    store.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: (database) => `mongodb://127.0.0.1:${port}/${database}?directConnection=true`,
    take() {
      const taken = Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b)));
      counts.clear();
      return taken;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
