import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP hop in front of a server (a store, NATS) that a test can cut: its connections are
 * reset and new ones refused until it is restored, as a network partition between a service
 * and that server looks to the service.
 */
export interface TcpHop {
  host: string;
  port: number;
  /** resets every connection through the hop and refuses new ones */
  cut(): void;
  /** takes connections again */
  restore(): void;
  close(): Promise<void>;
}

/** Starts a hop on 127.0.0.1 to `host:port`. */
export async function tcpHop(host: string, port: number): Promise<TcpHop> {
  const sockets = new Set<Socket>();
  let cut = false;
  const server = createServer((client) => {
    if (cut) return void client.resetAndDestroy();
    const target = connect(port, host);
    sockets.add(client).add(target);
    const end = () => {
      client.destroy();
      target.destroy();
      sockets.delete(client);
      sockets.delete(target);
    };
    client.on('close', end).on('error', end);
    target.on('close', end).on('error', end);
    client.pipe(target);
    target.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    host: '127.0.0.1',
    port: (server.address() as { port: number }).port,
    cut() {
      cut = true;
      for (const socket of sockets) socket.resetAndDestroy();
      sockets.clear();
    },
    restore() {
      cut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
