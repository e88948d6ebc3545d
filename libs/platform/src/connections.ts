import { connect, type NatsConnection } from '@nats-io/transport-node';
import mongoose, { type Connection } from 'mongoose';
import type { FastifyBaseLogger } from 'fastify';

type Logger = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

/** A service's own MongoDB database. Only features MongoDB 7+ and FerretDB v1 share are used. */
export async function connectMongo(url: string, log: Logger): Promise<Connection> {
  const connection = mongoose.createConnection(url, {
    serverSelectionTimeoutMS: 10_000,
    // a connection cut off without a reset (the store's container stopped behind a port
    // proxy) would hold its operation, and its pool slot, for ever: after this long without an
    // answer the operation fails and the connection is replaced. None of ours runs that long.
    socketTimeoutMS: 30_000,
    maxPoolSize: 50,
    autoIndex: true,
  });
  connection.on('disconnected', () => log.warn('mongodb disconnected'));
  connection.on('reconnected', () => log.info('mongodb reconnected'));
  await connection.asPromise();
  return connection;
}

export async function pingMongo(connection: Connection): Promise<void> {
  if (!connection.db) throw new Error('mongodb not connected');
  await connection.db.command({ ping: 1 });
}

/** NATS keeps reconnecting for ever: a bus outage degrades readiness, it does not crash us. */
export async function connectNats(servers: string, name: string, log: Logger): Promise<NatsConnection> {
  const nc = await connect({ servers: servers.split(',').map((s) => s.trim()), name, maxReconnectAttempts: -1, reconnectTimeWait: 1_000 });
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect' || status.type === 'error') log.warn({ nats: status.type }, 'nats status');
    }
  })();
  return nc;
}

export async function pingNats(nc: NatsConnection): Promise<void> {
  if (nc.isClosed()) throw new Error('nats closed');
  await nc.flush();
}
