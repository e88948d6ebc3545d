import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP hop in front of a MongoDB-compatible store that counts the commands clients send
 * through it, by name, read from the wire (OP_MSG). It sees what the store sees, whatever the
 * driver or library above it, so a test can pin how many round trips a request costs.
 */
export interface StoreCommandCounter {
  /** A `mongodb://` URL of the hop for `database`: a direct connection, so the driver stays on the hop. */
  url(database: string): string;
  /**
   * The commands sent since the last call, as "<command> <collection>" (or the command alone
   * when it names no collection) with their counts; the driver's own (handshake, monitoring,
   * sessions) left out.
   */
  take(): Record<string, number>;
  /** The commands sent while `run` ran (as `take` counts them). */
  during(run: () => Promise<unknown>): Promise<Record<string, number>>;
  close(): Promise<void>;
}

const OP_MSG = 2013;
/** what a driver sends on its own, not for an operation */
const DRIVER_COMMANDS = new Set(['hello', 'ismaster', 'isMaster', 'ping', 'saslStart', 'saslContinue', 'buildInfo', 'endSessions', 'getParameter']);

const BSON_STRING = 0x02;

/** A command as sent: its name, and the collection it names when its value is one. */
export interface WireCommand {
  name: string;
  collection?: string;
}

/**
 * The command of each complete OP_MSG at the start of `buffer` (the first element of its
 * body section: key = command, a string value = collection), and the bytes left over for
 * the next chunk.
 */
export function wireCommands(buffer: Buffer): { commands: WireCommand[]; rest: Buffer } {
  const commands: WireCommand[] = [];
  let at = 0;
  while (buffer.length - at >= 16) {
    const length = buffer.readInt32LE(at);
    if (buffer.length - at < length) break;
    // header (16 bytes), flagBits (4), then a kind-0 section: its document's first element
    if (buffer.readInt32LE(at + 12) === OP_MSG && buffer[at + 20] === 0) {
      const type = buffer[at + 25];
      const nameStart = at + 26;
      const nameEnd = buffer.indexOf(0, nameStart);
      const name = buffer.toString('utf8', nameStart, nameEnd);
      if (type === BSON_STRING) {
        const size = buffer.readInt32LE(nameEnd + 1);
        commands.push({ name, collection: buffer.toString('utf8', nameEnd + 5, nameEnd + 5 + size - 1) });
      } else commands.push({ name });
    }
    at += length;
  }
  return { commands, rest: buffer.subarray(at) };
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
      const { commands, rest } = wireCommands(Buffer.concat([pending, chunk]));
      pending = Buffer.from(rest);
      for (const { name, collection } of commands) {
        if (DRIVER_COMMANDS.has(name)) continue;
        const key = collection === undefined ? name : `${name} ${collection}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
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
  const take = () => {
    const taken = Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b)));
    counts.clear();
    return taken;
  };
  return {
    url: (database) => `mongodb://127.0.0.1:${port}/${database}?directConnection=true`,
    take,
    async during(run) {
      take();
      await run();
      return take();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
