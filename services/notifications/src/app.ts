import { randomUUID } from 'node:crypto';
import websocket from '@fastify/websocket';
import { notificationsRoutes } from '@gfts/contracts';
import { connectMongo, connectNats, createHttpServer, healthPlugin, identityPlugin, pingMongo, pingNats } from '@gfts/platform';
import type { FastifyInstance } from 'fastify';
import { Counter } from 'prom-client';
import type { NotificationsConfig } from './config.ts';
import { monotonicUuidv7 } from './domain/ids.ts';
import { followErasureReports, startNotificationsErasure } from './gamer-erasure.ts';
import { inboxService } from './inbox-service.ts';
import { startIngest } from './ingest.ts';
import { liveChannel } from './live/channel.ts';
import { Hub } from './live/hub.ts';
import { liveMetrics } from './live/metrics.ts';
import { presenceHolder } from './presence/holder.ts';
import { inboxRepository } from './repository/inbox.ts';
import { awaitDedupeIndex, ensureIndexes, openStore } from './repository/store.ts';
import { ticketLedger } from './repository/tickets.ts';
import { inboxRoutes } from './routes/inbox-routes.ts';
import { liveRoute } from './routes/live-route.ts';
import { startSweep } from './sweep.ts';

/** Largest frame a client may send; the channel ignores client frames, so this is only a guard. */
const CLIENT_FRAME_MAX_BYTES = 4_096;

/** How long a start waits for the inbox's dedupe index before serving while it is built (well within the startup probe). */
const DEDUPE_INDEX_WAIT_MS = 10_000;

/** Wires the notifications service: its inbox database, NATS ingest and fan-out, the WebSocket, the inbox routes. */
export async function buildNotificationsApp(config: NotificationsConfig): Promise<FastifyInstance> {
  const app = createHttpServer({
    service: 'notifications', logLevel: config.LOG_LEVEL, logBufferBytes: config.LOG_BUFFER_BYTES, bodyLimit: config.BODY_LIMIT_BYTES, requestTimeoutMs: config.REQUEST_TIMEOUT_MS, sendTimeoutMs: config.SEND_TIMEOUT_MS,
    // The gateway answers POST .../ticket itself and forwards other methods of that path
    // here: knowing the path, this service answers them 405 with its Allow.
    upstreamRoutes: [{ method: notificationsRoutes.ticket.method, url: notificationsRoutes.ticket.url }],
  });
  const mongo = await connectMongo(config.MONGO_URL, app.log);
  const nats = await connectNats(config.NATS_URL, 'notifications', app.log, { user: config.NATS_USER, password: config.NATS_PASSWORD });
  const store = openStore(mongo);
  const { ttl, dedupe, mentions } = await ensureIndexes(store);
  mentions.catch((error: unknown) => app.log.error({ err: error }, 'the indexes of an erasure\'s search could not be built: an erasure reads every notification of its application until a start builds them'));
  await awaitDedupeIndex(dedupe, DEDUPE_INDEX_WAIT_MS, app.log);
  const inbox = inboxRepository(store, config.NOTIFY_RETENTION_MS);
  const tickets = ticketLedger(store);
  const sweep = ttl ? undefined : startSweep([inbox, tickets], config.NOTIFY_SWEEP_INTERVAL_MS, app.log);
  // presence: this replica's keys carry a token of its own, so replicas never overwrite each other
  const presence = presenceHolder({
    nc: nats, prefix: config.NATS_PREFIX, holderId: randomUUID(), refreshMs: config.PRESENCE_RECORD_INTERVAL_MS, maxInFlight: config.PRESENCE_WRITES_IN_FLIGHT, log: app.log,
  });
  const hub = new Hub({
    nc: nats, prefix: config.NATS_PREFIX, heartbeatMs: config.NOTIFY_HEARTBEAT_MS, maxSocketsPerGamer: config.NOTIFY_MAX_SOCKETS_PER_GAMER, releaseGraceMs: config.LIVE_RELEASE_GRACE_MS, inbox, log: app.log, presence,
  });
  const erasure = await startNotificationsErasure(nats, { inbox, hub }, {
    prefix: config.NATS_PREFIX, streamReplicas: config.GAMERS_STREAM_REPLICAS, streamMaxBytes: config.GAMERS_STREAM_MAX_BYTES, ackWaitMs: config.ERASURE_ACK_WAIT_MS, retryBaseMs: config.ERASURE_RETRY_BASE_MS,
  }, app.log);
  const erasureFollowUp = followErasureReports(nats, config.NATS_PREFIX, inbox, app.log, { windowMs: config.NOTIFY_ERASURE_FOLLOW_UP_WINDOW_MS });
  // Before the HTTP server stops: sockets get 1001 and a moment to close, so clients move on.
  await app.register(websocket, {
    options: { maxPayload: CLIENT_FRAME_MAX_BYTES },
    preClose: async () => hub.drain(config.NOTIFY_DRAIN_MS),
  });
  // app.metrics exists once the plugins before are loaded (the register above)
  const liveDropped = new Counter({ name: 'gfts_notifications_live_dropped_total', help: 'live-only notifications (task.progress, presence.changed) dropped: more than NOTIFY_INGEST_BACKLOG_MAX of them waited behind a slow or failing inbox write', registers: [app.metrics] });
  const unstored = new Counter({ name: 'gfts_notifications_unstored_total', help: 'notifications meant for the inbox published live only: the inbox was unavailable longer than the backlog holds (NOTIFY_INGEST_BACKLOG_MAX), or the replica stopped meanwhile', registers: [app.metrics] });
  const duplicates = new Counter({ name: 'gfts_notifications_duplicates_total', help: 'notifications neither stored nor published: another copy of a completion or grant the inbox holds (the tasks service announces them at least once)', registers: [app.metrics] });
  const ingest = startIngest({
    nc: nats, prefix: config.NATS_PREFIX, inbox, nextId: monotonicUuidv7(), log: app.log, backlogMax: config.NOTIFY_INGEST_BACKLOG_MAX, unstored: (n) => unstored.inc(n), duplicates: (n) => duplicates.inc(n), liveDropped: (n) => liveDropped.inc(n),
  });
  const channel = liveChannel({
    hub, inbox, tickets, log: app.log, metrics: liveMetrics(app.metrics, () => hub.socketCount, () => hub.lingeringCount),
    limits: { sendBufferBytes: config.NOTIFY_SEND_BUFFER_BYTES, progressIntervalMs: config.NOTIFY_PROGRESS_INTERVAL_MS, replayPage: config.NOTIFY_REPLAY_PAGE },
  });
  // Then the events taken are stored and published, and the connections close.
  app.addHook('onClose', async () => {
    sweep?.stop();
    await erasure.stop();
    await erasureFollowUp.stop();
    await ingest.stop();
    // the drain released every gamer held here: their keys, then the replica's heartbeat, are deleted before NATS closes
    await presence.close();
    await nats.drain();
    await mongo.close();
  });
  await app.register(healthPlugin, { checks: { mongodb: () => pingMongo(mongo), nats: () => pingNats(nats) } });
  await app.register(identityPlugin, { secret: config.INTERNAL_TOKEN_SECRET });
  inboxRoutes(app, inboxService(inbox));
  liveRoute(app, channel);
  return app;
}
