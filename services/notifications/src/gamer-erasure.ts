import { natsNames, NotificationCloseCode } from '@gfts/contracts';
import { erasureReportOf, keepSubscribed, startGamerErasure, type GamerEventConsumer } from '@gfts/platform';
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

export interface ErasureFollowUp {
  /** stops hearing reports and waits for the deletes under way */
  stop(): Promise<void>;
}

/**
 * The other services finish their part of an erasure on their own schedule: a friendship
 * call or a task completion of the gamer still under way after this service's part was done
 * became a notification naming them, stored for 30 days (until 2026-11-29), for as long as
 * friendship or tasks lagged (hours while one was down). So when another service reports
 * its part done (`gamer.erasure.completed`, core NATS, one replica of the queue group per
 * report), the gamer's inbox and the notifications naming them are deleted again, at once and
 * a minute after that delete went through (an event published just before the report may
 * still be in an ingest batch, behind a slow inbox write, or held by the ingest while the
 * inbox store is away). A delete the store fails is tried again, 1 s then doubling to 30 s
 * apart, while the report is within NOTIFY_ERASURE_FOLLOW_UP_WINDOW_MS of the erasure's
 * request: until 2026-11-29 a failed one was logged and left, so an outage of the store
 * longer than a minute left the notifications the ingest wrote when it came back. A report
 * missed (a replica cut from NATS), or a replica that stops before its deletes went through,
 * leaves what those events stored; so does a report that comes more than the window after
 * the erasure was asked.
 */
export function followErasureReports(
  nc: NatsConnection, prefix: string, inbox: Pick<InboxRepository, 'eraseGamer'>, log: FastifyBaseLogger,
  opts: { againAfterMs?: number; retryBaseMs?: number; windowMs: number; now?: () => number },
): ErasureFollowUp {
  const againAfterMs = opts.againAfterMs ?? FOLLOW_UP_AGAIN_MS;
  const retryBaseMs = opts.retryBaseMs ?? FOLLOW_UP_RETRY_BASE_MS;
  const now = opts.now ?? Date.now;
  const names = natsNames(prefix);
  const running = new Set<Promise<void>>();
  const later = new Set<NodeJS.Timeout>();
  let stopped = false;
  const what = 'notifications an erased gamer\'s late events stored stay';
  const after = (ms: number, work: () => void) => {
    const timer = setTimeout(() => {
      later.delete(timer);
      if (!stopped) work();
    }, ms);
    timer.unref();
    later.add(timer);
  };
  const subscription = keepSubscribed(nc, names.gamerErasureCompleted, { queue: names.notificationsErasureFollowUpQueue, what, log }, (msg) => {
    const report = erasureReportOf(msg);
    // a report of a republished event's erasure: the gamer may have come back since, and her
    // notifications are hers (until 2026-11-29 they were deleted again on it)
    if (!report || report.service === 'notifications' || report.republished) return;
    const { applicationId, gamerId, service, jobId } = report;
    // a report long after the erasure was asked (a service that lagged, down for days): the
    // gamer may have come back, and what its late events stored is long gone from her mind;
    // her inbox is left (until 2026-11-29 it was deleted again, whenever the report came)
    const askedAt = report.requestedAt === undefined ? Number.NaN : Date.parse(report.requestedAt);
    if (now() - askedAt > opts.windowMs) {
      log.info({ jobId, after: service, requestedAt: report.requestedAt }, 'erasure report past NOTIFY_ERASURE_FOLLOW_UP_WINDOW_MS: the gamer\'s inbox is left as it is');
      return;
    }
    // a report without the request's time (a replica of before 2026-11-29) is tried from its arrival
    const triedUntil = (Number.isNaN(askedAt) ? now() : askedAt) + opts.windowMs;
    const withinWindow = () => now() <= triedUntil;
    /** Deletes; on success `then`, on failure the same again later while within the window. */
    const erase = (attempt: number, then?: () => void) => {
      const work = inbox.eraseGamer(applicationId.toLowerCase(), gamerId.toLowerCase()).then(
        (removed) => {
          if (removed.own + removed.mentions > 0) log.info({ jobId, after: service, ...removed }, 'notifications of an erased gamer stored after its erasure removed');
          then?.();
        },
        (error: unknown) => {
          if (stopped || !withinWindow()) return void log.warn({ err: error, jobId, after: service }, 'notifications of an erased gamer stored after its erasure not removed: a second erasure removes them');
          log.warn({ err: error, jobId, after: service, attempt }, 'notifications of an erased gamer stored after its erasure not removed yet; trying again');
          after(Math.min(FOLLOW_UP_RETRY_MAX_MS, retryBaseMs * 2 ** (attempt - 1)), () => erase(attempt + 1, then));
        },
      );
      running.add(work);
      void work.finally(() => running.delete(work));
    };
    // and once more a while after it went through: an event the service published just before
    // its report may still be in an ingest batch (on another replica, behind a slow inbox write)
    erase(1, () => after(againAfterMs, () => erase(1)));
  });
  return {
    async stop() {
      stopped = true;
      for (const timer of later) clearTimeout(timer);
      later.clear();
      await subscription.drain();
      await Promise.allSettled([...running]);
    },
  };
}

/** First wait before a follow-up delete the store failed is tried again; it doubles up to FOLLOW_UP_RETRY_MAX_MS. */
const FOLLOW_UP_RETRY_BASE_MS = 1_000;
const FOLLOW_UP_RETRY_MAX_MS = 30_000;

/** How long after another service's report its late events are sought once more. */
const FOLLOW_UP_AGAIN_MS = 60_000;
