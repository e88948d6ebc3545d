import { natsNames, NotificationCloseCode } from '@gfts/contracts';
import { startGamerErasure, type GamerEventConsumer } from '@gfts/platform';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FastifyBaseLogger } from 'fastify';
import type { Hub } from './live/hub.ts';
import type { InboxRepository } from './repository/inbox.ts';

export interface GamerErasureSettings {
  prefix: string;
  streamReplicas: number;
  /** GAMERS_STREAM_MAX_BYTES */
  streamMaxBytes: number;
  ackWaitMs: number;
  retryBaseMs: number;
}

/**
 * The notifications service's part of gamer erasure (docs/gamer-erasure.md): its own durable
 * consumer of `gamer.erased` on the GAMERS stream, the gamer's inbox deleted with what
 * other inboxes say of them, their sockets closed (4410), then `gamer.erasure.completed`
 * reported with service "notifications". The replicas share the durable, so one replica
 * handles each event; it closes the gamer's sockets on every replica with a control message
 * on the gamer's notify subject, which reaches exactly the replicas holding them (live/hub.ts).
 * A redelivered or repeated event finds nothing more to remove.
 */
export async function startNotificationsErasure(
  nc: NatsConnection,
  parts: { inbox: Pick<InboxRepository, 'eraseGamer'>; hub: Pick<Hub, 'closeEverywhere'> },
  settings: GamerErasureSettings,
  log: FastifyBaseLogger,
): Promise<GamerEventConsumer> {
  return startGamerErasure(
    {
      js: jetstream(nc),
      jsm: await jetstreamManager(nc),
      names: natsNames(settings.prefix),
      service: 'notifications',
      log,
      stream: { replicas: settings.streamReplicas, maxBytes: settings.streamMaxBytes },
      durable: { ackWaitMs: settings.ackWaitMs, retryBaseMs: settings.retryBaseMs },
    },
    async (event) => {
      const gamer = { applicationId: event.applicationId.toLowerCase(), gamerId: event.gamerId.toLowerCase() };
      const removed = await parts.inbox.eraseGamer(gamer.applicationId, gamer.gamerId);
      await parts.hub.closeEverywhere(gamer, NotificationCloseCode.GAMER_ERASED);
      log.info({ jobId: event.jobId, ...removed }, 'notifications of an erased gamer removed');
    },
  );
}
