import { connectMongo, connectNats, createHttpServer, healthPlugin, identityPlugin, pingMongo, pingNats } from '@gfts/platform';
import type { FastifyInstance } from 'fastify';
import { friendshipAdminService } from './admin-service.ts';
import type { FriendshipConfig } from './config.ts';
import { natsEventPublisher, startCanMessageResponder } from './events.ts';
import { friendshipService } from './friendship-service.ts';
import { forgetErasedGamers, startFriendshipErasure } from './gamer-erasure.ts';
import { startPresenceAnnouncer } from './presence/announcer.ts';
import { presenceAudience } from './presence/audience.ts';
import { presenceBoard } from './presence/board.ts';
import { startPresenceWatch } from './presence/watch.ts';
import { profileCache } from './profile-cache.ts';
import { registrationCache } from './registration-cache.ts';
import { createRepositories } from './repository/index.ts';
import { friendshipAdmin } from './routes/admin.ts';
import { friendshipRoutes } from './routes/index.ts';

/** Wires the friendship service: its own database, NATS, identity, routes. */
export async function buildFriendshipApp(config: FriendshipConfig): Promise<FastifyInstance> {
  const app = createHttpServer({ service: 'friendship', logLevel: config.LOG_LEVEL, logBufferBytes: config.LOG_BUFFER_BYTES, bodyLimit: config.BODY_LIMIT_BYTES, requestTimeoutMs: config.REQUEST_TIMEOUT_MS, sendTimeoutMs: config.SEND_TIMEOUT_MS });
  const mongo = await connectMongo(config.MONGO_URL, app.log);
  const nats = await connectNats(config.NATS_URL, 'friendship', app.log, { user: config.NATS_USER, password: config.NATS_PASSWORD });
  const profiles = profileCache(config.PROFILE_CACHE_MAX, config.PROFILE_CACHE_TTL_MS);
  const registrations = registrationCache();
  const repositories = await createRepositories(mongo, {
    maxAgeMs: config.FRIEND_LIST_MAX_AGE_S * 1000,
    onChangeFailed: (err) => app.log.warn({ err }, 'friend-id list update failed after a friendship change (the change stands); the list is rebuilt at its first read once FRIEND_LIST_MAX_AGE_S old'),
  }, profiles);
  const onlineWindowMs = config.PRESENCE_ONLINE_WINDOW_MS;
  const board = presenceBoard({ onlineWindowMs, maxEntries: config.PRESENCE_MAX_TRACKED });
  const announcer = startPresenceAnnouncer({
    nc: nats, prefix: config.NATS_PREFIX, board, settleMs: config.PRESENCE_CHANGE_SETTLE_MS, replicas: config.PRESENCE_KV_REPLICAS, maxBytes: config.PRESENCE_ANNOUNCED_BUCKET_MAX_BYTES,
    recipients: presenceAudience(repositories, board), log: app.log,
  });
  const presence = startPresenceWatch({
    nc: nats, prefix: config.NATS_PREFIX, board, onlineWindowMs, replicas: config.PRESENCE_KV_REPLICAS,
    sweepMs: Math.min(5_000, Math.floor(onlineWindowMs / 4)),
    persist: (ended) => repositories.gamers.recordLastSeen(ended),
    changed: (change) => announcer.changed(change),
    log: app.log,
  });
  const service = friendshipService({
    repositories,
    publish: natsEventPublisher(nats, config.NATS_PREFIX, app.log),
    limits: { maxFriends: config.MAX_FRIENDS, maxPendingOutgoing: config.MAX_PENDING_OUTGOING, maxBlocks: config.MAX_BLOCKS, suggestionFriendsRead: config.SUGGESTIONS_FRIENDS_READ, suggestionListRebuilds: config.SUGGESTIONS_LIST_REBUILDS },
    registrations,
    presence: board,
    onlineWindowMs,
  });
  const canMessage = startCanMessageResponder(nats, config.NATS_PREFIX, repositories.blocks, app.log);
  const erasure = await startFriendshipErasure(nats, repositories.erasure, announcer, {
    prefix: config.NATS_PREFIX, streamReplicas: config.GAMERS_STREAM_REPLICAS, streamMaxBytes: config.GAMERS_STREAM_MAX_BYTES, ackWaitMs: config.ERASURE_ACK_WAIT_MS, retryBaseMs: config.ERASURE_RETRY_BASE_MS,
  }, app.log);
  const erasedGamers = forgetErasedGamers(nats, config.NATS_PREFIX, { caches: [registrations, profiles], presence: announcer }, app.log);
  // HTTP has stopped when onClose runs; answer the NATS questions in flight, then disconnect.
  app.addHook('onClose', async () => {
    await erasedGamers.stop();
    await canMessage.stop();
    await erasure.stop();
    await presence.close();
    await announcer.close();
    await nats.drain();
    await mongo.close();
  });
  const checks = { mongodb: () => pingMongo(mongo), nats: () => pingNats(nats) };
  await app.register(healthPlugin, { checks });
  await app.register(identityPlugin, { secret: config.INTERNAL_TOKEN_SECRET });
  await app.register(friendshipRoutes, { service });
  // its own encapsulated plugin: an admin's reads do not register the admin as a gamer
  await app.register(friendshipAdmin, { admin: friendshipAdminService(repositories, service), checks });
  return app;
}
