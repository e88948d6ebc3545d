import { natsInboxPrefix } from '@gfts/contracts';
import { connect, type NatsConnection, type NodeConnectionOptions } from '@nats-io/transport-node';
import mongoose, { type Connection } from 'mongoose';
import type { FastifyBaseLogger } from 'fastify';

type Logger = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

/** A service's own MongoDB database. Only features MongoDB 7+ and FerretDB v1 share are used. */
export async function connectMongo(url: string, log: Logger): Promise<Connection> {
  const connection = mongoose.createConnection(url, {
    // a request while the store is away fails after this (a 503 with Retry-After,
    // errors.ts), within the gateway's UPSTREAM_TIMEOUT_MS (10 s by default), so the client
    // hears it from the service instead of a 504 (10 s until 2026-11-29)
    serverSelectionTimeoutMS: 5_000,
    // a connection cut off without a reset (the store's container stopped behind a port
    // proxy) would hold its operation, and its pool slot, for ever: after this long without an
    // answer the operation fails and the connection is replaced. None of ours runs that long.
    socketTimeoutMS: 30_000,
    maxPoolSize: 50,
    autoIndex: true,
  });
  connection.on('disconnected', () => log.warn('mongodb disconnected'));
  connection.on('reconnected', () => log.info('mongodb reconnected'));
  try {
    await connection.asPromise();
  } catch (error) {
    throw new Error(`mongodb unreachable: ${serverErrors(error) || String(error)}`, { cause: error });
  }
  return connection;
}

/** What each server last failed with: a selection timeout alone does not say why. */
function serverErrors(error: unknown): string {
  const servers = (error as { reason?: { servers?: Map<string, { error?: { message?: string } | null }> } }).reason?.servers;
  if (!servers) return '';
  return [...servers].map(([address, server]) => `${address}: ${server.error?.message ?? 'no answer'}`).join('; ');
}

/** Longest a readiness ping may take (the health check's own bound is 2 s). */
const PING_TIMEOUT_MS = 2_000;

export async function pingMongo(connection: Connection): Promise<void> {
  if (!connection.db) throw new Error('mongodb not connected');
  // a client-side operation timeout: when it expires the driver gives the pooled connection
  // up instead of holding it until socketTimeoutMS, so pings after a store outage cannot pile
  // up on connections that died with the old server and keep /readyz failing after it is back
  await connection.db.command({ ping: 1 }, { timeoutMS: PING_TIMEOUT_MS });
}

export interface NatsCredentials {
  user?: string | undefined;
  password?: string | undefined;
}

/** How often a connection pings its NATS server (two unanswered: taken for dead). */
export const NATS_PING_INTERVAL_MS = 10_000;

/**
 * How every process connects: to comma-separated servers, reconnecting for ever. With a
 * user, the server's permissions for it apply (libs/contracts nats-permissions.ts); replies
 * then arrive on the user's own inbox prefix, the only inbox it may read.
 */
export function natsConnectionOptions(servers: string, name: string, credentials: NatsCredentials = {}): NodeConnectionOptions {
  const { user, password } = credentials;
  if ((user === undefined) !== (password === undefined)) throw new Error('NATS_USER and NATS_PASSWORD must be set together');
  return {
    // a trailing or doubled comma ("nats://a:4222,") is no server of its own
    servers: servers.split(',').map((s) => s.trim()).filter((s) => s !== ''),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1_000,
    inboxPrefix: natsInboxPrefix(user ?? name),
    // nats.js builds an Error per request, flush and timed subscription up front, to give a
    // later timeout the caller's stack: ~8 % of the gateway's CPU in the peer bench (its rate-limit
    // counter) and 6 % of a notifications replica's in a reconnect storm. Timeouts keep their
    // message and subject; only that extra stack is gone.
    noAsyncTraces: true,
    // nats.js gives up for good after two authorization errors in a row, and the process then
    // stays unready until restarted (liveness does not look at NATS): a password rotated out of
    // order, or a secret store updating before the servers, would need every pod restarted.
    ignoreAuthErrorAbort: true,
    // A server that dies without closing its connections (a crash of its node, a partition) is
    // noticed by pings alone: nats.js's defaults (every 2 min, two unanswered) took 4–6 minutes,
    // with the pod unready and its consumers stalled while the other servers had quorum. Now
    // 20–30 s, then a reconnect to another server.
    pingInterval: NATS_PING_INTERVAL_MS,
    maxPingOut: 2,
    ...(user !== undefined && password !== undefined ? { user, pass: password } : {}),
  };
}

/** NATS keeps reconnecting for ever: a bus outage degrades readiness, it does not crash us. */
export async function connectNats(servers: string, name: string, log: Logger, credentials: NatsCredentials = {}): Promise<NatsConnection> {
  const nc = await connect(natsConnectionOptions(servers, name, credentials));
  void (async () => {
    for await (const status of nc.status()) {
      // with what the status carries: the server, or the error (a permissions violation names
      // the subject the user may not use)
      if (status.type === 'disconnect' || status.type === 'reconnect') log.warn({ nats: status.type, server: status.server }, 'nats status');
      else if (status.type === 'error') log.warn({ nats: status.type, err: status.error }, 'nats status');
    }
  })();
  return nc;
}

export async function pingNats(nc: NatsConnection): Promise<void> {
  if (nc.isClosed()) throw new Error('nats closed');
  await nc.flush();
}
