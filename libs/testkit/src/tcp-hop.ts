import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP hop in front of a server (a store, NATS, the gateway) that a test can cut: its
 * connections are reset and new ones refused until it is restored, as a network partition
 * between a service and that server looks to the service. Or silence: its connections stay
 * open and carry nothing, as a connection whose NAT entry was dropped looks to both ends.
 */
export interface TcpHop {
  host: string;
  port: number;
  /** resets every connection through the hop and refuses new ones */
  cut(): void;
  /** takes connections again */
  restore(): void;
  /**
   * From now on the open connections carry nothing either way, without a reset or a FIN:
   * what each end writes is accepted and dropped. New connections work as before.
   */
  silence(): void;
  close(): Promise<void>;
}

/** Starts a hop on 127.0.0.1 to `host:port`. */
export async function tcpHop(host: string, port: number): Promise<TcpHop> {
  const sockets = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  let cut = false;
  const server = createServer((client) => {
    if (cut) return void client.resetAndDestroy();
    const target = connect(port, host);
    sockets.add(client).add(target);
    const pair: [Socket, Socket] = [client, target];
    pairs.add(pair);
    const end = () => {
      client.destroy();
      target.destroy();
      sockets.delete(client);
      sockets.delete(target);
      pairs.delete(pair);
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
    silence() {
      for (const [client, target] of pairs) {
        client.unpipe(target);
        target.unpipe(client);
        // read and dropped, so each end's writes still succeed, as over a path that lost them
        client.on('data', () => {}).resume();
        target.on('data', () => {}).resume();
      }
      pairs.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
