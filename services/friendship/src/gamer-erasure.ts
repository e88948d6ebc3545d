import { natsNames } from '@gfts/contracts';
import { erasureReportOf, keepSubscribed, startGamerErasure, type GamerEventConsumer } from '@gfts/platform';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FastifyBaseLogger } from 'fastify';
import type { PresenceAnnouncer } from './presence/announcer.ts';
import type { GamerErasure } from './repository/gamer-erasure.ts';

export interface GamerErasureSettings {
  prefix: string;
  streamReplicas: number;
  /** GAMERS_STREAM_MAX_BYTES */
  streamMaxBytes: number;
  ackWaitMs: number;
  retryBaseMs: number;
}

/**
 * The friendship service's part of gamer erasure (docs/gamer-erasure.md): its own durable
 * consumer of `gamer.erased` on the GAMERS stream, the gamer removed from the directory and
 * from every relation and block on both sides, and their announced presence from its bucket,
 * then `gamer.erasure.completed` reported with service "friendship". A redelivered or
 * repeated event finds nothing more to remove.
 */
export async function startFriendshipErasure(
  nc: NatsConnection,
  erasure: GamerErasure,
  presence: Pick<PresenceAnnouncer, 'forget'>,
  settings: GamerErasureSettings,
  log: FastifyBaseLogger,
): Promise<GamerEventConsumer> {
  return startGamerErasure(
    {
      js: jetstream(nc),
      jsm: await jetstreamManager(nc),
      names: natsNames(settings.prefix),
      service: 'friendship',
      log,
      stream: { replicas: settings.streamReplicas, maxBytes: settings.streamMaxBytes },
      durable: { ackWaitMs: settings.ackWaitMs, retryBaseMs: settings.retryBaseMs },
    },
    async (event) => {
      const [applicationId, gamerId] = [event.applicationId.toLowerCase(), event.gamerId.toLowerCase()];
      const removed = await erasure.erase(applicationId, gamerId);
      await presence.forget(applicationId, gamerId);
      log.info({ jobId: event.jobId, ...removed }, 'friendship data of an erased gamer removed');
    },
  );
}

export interface ErasureReports {
  /** stops hearing reports and waits for the presence purges under way */
  stop(): Promise<void>;
}

export interface ErasedGamerMemory {
  /** what a replica cached of a gamer (registrations, profiles): dropped at once */
  caches: { forget(applicationId: string, gamerId: string): void }[];
  presence: Pick<PresenceAnnouncer, 'forget'>;
}

/**
 * Every replica hears when this service finished erasing a gamer (`gamer.erasure.completed`
 * naming friendship, over core NATS, after the directory entry went) and drops what it
 * cached of them: without it, the registration cache skipped the gamer's next calls for up
 * to 5 minutes on each replica that had seen them, so a gamer who played on after an
 * erasure stayed out of the directory (unfindable, shown with no name) that long. A report
 * missed while a replica was cut from NATS leaves only the caches' own expiry. The gamer's
 * announced presence is forgotten again on every replica too: a settle of theirs under way
 * on a replica other than the erasing one (between its read and its claim) wrote their
 * record after the erasure's purge (until 2026-11-29), kept 30 days; that replica now waits
 * for it and purges what it wrote (a warning when it cannot). A subscription the server
 * refuses is made again (keepSubscribed).
 */
export function forgetErasedGamers(nc: NatsConnection, prefix: string, memory: ErasedGamerMemory, log: FastifyBaseLogger): ErasureReports {
  const purging = new Set<Promise<void>>();
  const forget = (applicationId: string, gamerId: string) => {
    for (const cache of memory.caches) cache.forget(applicationId, gamerId);
    const purge = memory.presence.forget(applicationId, gamerId).catch((error: unknown) => {
      log.warn({ err: error, applicationId, gamerId }, 'erased gamer\'s presence not forgotten on this replica: a record its settle wrote may stay');
    });
    purging.add(purge);
    void purge.finally(() => purging.delete(purge));
  };
  const what = 'cached registrations of erased gamers expire on their own';
  const subscription = keepSubscribed(nc, natsNames(prefix).gamerErasureCompleted, { what, log }, (msg) => {
    const report = erasureReportOf(msg);
    if (report?.service !== 'friendship') return;
    forget(report.applicationId.toLowerCase(), report.gamerId.toLowerCase());
  });
  return {
    async stop() {
      subscription.unsubscribe();
      await Promise.allSettled([...purging]);
    },
  };
}
