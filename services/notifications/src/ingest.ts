import {
  check,
  FriendshipEvent,
  InventoryGrantedEvent,
  isStoredNotificationType,
  natsNames,
  PresenceChangedEvent,
  TaskCompletedEvent,
  TaskProgressEvent,
  type Notification,
} from '@gfts/contracts';
import { keepSubscribed, type KeptSubscription } from '@gfts/platform';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FastifyBaseLogger } from 'fastify';
import {
  friendshipNotifications,
  inventoryGrantedNotification,
  presenceChangedNotifications,
  taskCompletedNotification,
  taskProgressNotification,
  type Draft,
} from './domain/translate.ts';
import type { GamerRef, InboxRepository } from './repository/inbox.ts';

type Logger = Pick<FastifyBaseLogger, 'warn' | 'error'>;

/** How each domain event subject becomes notifications. */
function translators(prefix: string): { subject: string; translate: (payload: unknown) => Draft[] | undefined }[] {
  const n = natsNames(prefix);
  const checked = <T>(schema: Parameters<typeof check>[0], make: (event: T) => Draft[]) => (payload: unknown) => {
    const result = check(schema, payload);
    return result.ok ? make(result.value as T) : undefined;
  };
  return [
    { subject: n.friendshipEvents, translate: checked<FriendshipEvent>(FriendshipEvent, friendshipNotifications) },
    { subject: n.taskCompleted, translate: checked<TaskCompletedEvent>(TaskCompletedEvent, (e) => [taskCompletedNotification(e)]) },
    { subject: n.taskProgress, translate: checked<TaskProgressEvent>(TaskProgressEvent, (e) => [taskProgressNotification(e)]) },
    { subject: n.inventoryGranted, translate: checked<InventoryGrantedEvent>(InventoryGrantedEvent, (e) => [inventoryGrantedNotification(e)]) },
    { subject: n.presenceChanged, translate: checked<PresenceChangedEvent>(PresenceChangedEvent, presenceChangedNotifications) },
  ];
}

export interface Ingest {
  /** stops taking events and waits for those taken to be stored and published */
  stop(): Promise<void>;
}

interface Deps {
  nc: NatsConnection;
  prefix: string;
  inbox: Pick<InboxRepository, 'add'>;
  nextId: () => string;
  log: Logger;
  /** the wait before the `attempt`th retry of a failed inbox write (from 1) */
  retryDelayMs?: (attempt: number) => number;
  /**
   * notifications for the inbox held while it cannot be written, at most
   * (NOTIFY_INGEST_BACKLOG_MAX); live-only ones waiting behind them have a bound of the same
   * size of their own
   */
  backlogMax: number;
  /** notifications published live without being stored */
  unstored?: (count: number) => void;
  /** notifications neither stored nor published: another copy of a completion the inbox holds */
  duplicates?: (count: number) => void;
  /** live-only notifications dropped: more than `backlogMax` of them waited behind an inbox write */
  liveDropped?: (count: number) => void;
}

/**
 * The most notifications one inbox write takes: a backlog of up to NOTIFY_INGEST_BACKLOG_MAX
 * (1,000,000 at most) is written in such batches, in order. As one write, a retry after a
 * partial failure looked up every refused id in one `$in`, past the 16 MB command limit from
 * ~330,000 ids, and failed for ever (until 2026-11-28).
 */
export const INBOX_WRITE_MAX = 5_000;

/** 100 ms doubling to 5 s: a store blip costs a fraction of a second, an outage a write every 5 s. */
const storeRetryDelay = (attempt: number): number => Math.min(5_000, 100 * 2 ** (attempt - 1));

/**
 * Domain events to notifications. The replicas share one queue group, so each event is
 * taken by one of them: it gives each notification its id, stores the kept ones in the
 * inbox, and only then publishes each on its gamer's subject, where the replicas holding
 * that gamer's sockets pick it up (docs/notifications.md, "Fan-out"). A second copy of a
 * completion is refused by the inbox and goes nowhere ("Once per completion"). Events taken
 * while a batch is being written form the next batch: one bulk insert per batch, and
 * notifications are published in id order, so one replica never publishes a later id before
 * an earlier.
 */
export function startIngest(deps: Deps): Ingest {
  const { nc, prefix, inbox, nextId, log, retryDelayMs = storeRetryDelay, backlogMax, unstored = () => {}, duplicates = () => {}, liveDropped = () => {} } = deps;
  const names = natsNames(prefix);
  const queue: Draft[] = [];
  /** the queue's drafts for the inbox; the rest are live-only */
  let queuedStored = 0;
  /** live-only drafts are being dropped: said once per backlog, not per event */
  let droppingLive = false;
  let running: Promise<void> | undefined;
  let stopping = false;
  /** cuts a retry's wait short when stop() begins */
  let wake: (() => void) | undefined;
  /** the backlog is full: said once per outage, not per event */
  let overflowing = false;
  /** a write failed while the replica stopped: what is still queued goes out live, unstored, at once */
  let gaveUp = false;
  /** the batch being stored (its ids made), and whether an overflow already sent it out live */
  let inFlight: { made: (Notification & GamerRef)[]; published: boolean } | undefined;

  /**
   * Stores a batch, retrying a failed write until it succeeds: the events came over core NATS
   * (at most once), so nothing would redeliver them. The ids were made once, so a retry after
   * a write that partly succeeded stores the rest and finds the others already there. Gives
   * up only when the replica stops. Answers the ids of the batch's copies of completions the
   * inbox holds (domain/completion-key.ts), which it did not store: none when it gave up.
   */
  async function store(batch: (Notification & GamerRef)[]): Promise<ReadonlySet<string>> {
    for (let attempt = 1; ; attempt++) {
      try {
        const outcome = await inbox.add(batch);
        overflowing = false;
        droppingLive = false;
        return outcome.duplicates;
      } catch (error) {
        if (stopping) {
          log.error({ err: error, count: batch.length }, 'notifications not stored in the inbox: the replica is stopping, they go out live only');
          unstored(batch.length);
          gaveUp = true;
          return new Set();
        }
        log.error({ err: error, count: batch.length, attempt }, 'notifications not stored in the inbox yet: retrying, published once stored');
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, retryDelayMs(attempt));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    }
  }

  const withIds = (drafts: Draft[]) => drafts.map((d) => ({ ...d, id: nextId() }) as Notification & GamerRef);

  function publish(made: (Notification & GamerRef)[]): void {
    for (const { applicationId, gamerId, ...notification } of made) {
      try {
        nc.publish(names.notifyGamer(applicationId, gamerId), JSON.stringify(notification));
      } catch (error) {
        log.warn({ err: error }, 'notification not published');
      }
    }
  }

  async function drainQueue(): Promise<void> {
    while (queue.length > 0) {
      if (gaveUp) {
        // Stopping, the inbox away: no more writes, each of which may wait the driver's server
        // selection, past the pod's grace (with the backlog written INBOX_WRITE_MAX at a time)
        const rest = withIds(queue.splice(0, queue.length));
        queuedStored = 0;
        unstored(rest.filter((m) => isStoredNotificationType(m.type)).length);
        publish(rest);
        return;
      }
      const taken = queue.splice(0, INBOX_WRITE_MAX);
      queuedStored -= taken.filter((d) => isStoredNotificationType(d.type)).length;
      const made = withIds(taken);
      // Published only once stored (a resume's no-gap rule: docs, "Resume"); meanwhile later
      // events wait in the queue, so one replica still publishes in id order. A copy of a
      // completion the inbox holds is not published: its socket had the first (a resume
      // replays it), and the session drops repeats only by id, which a copy does not share.
      const batch = (inFlight = { made, published: false });
      const refused = await store(made.filter((m) => isStoredNotificationType(m.type)));
      inFlight = undefined;
      if (refused.size > 0) duplicates(refused.size);
      // an overflow sent it out already (take): stored now, it is not sent again
      if (!batch.published) publish(refused.size > 0 ? made.filter((m) => !refused.has(m.id)) : made);
    }
  }

  const take = (drafts: Draft[]) => {
    const stored = drafts.filter((d) => isStoredNotificationType(d.type)).length;
    // Only notifications for the inbox count against its backlog: live-only ones (a presence
    // change fans out to every online friend) waiting behind a slow write sent those out
    // unstored while the inbox was up (until 2026-11-28)
    if (queuedStored + stored > backlogMax) {
      // The store has been away long enough to fill the backlog: the replica's memory is
      // bounded, so what comes next goes out live only, as before the retry. Their ids are
      // made now, before the queued ones'; the batch being stored has lower ids, so it goes
      // out first, live (it is still stored when the inbox is back, and not sent again):
      // one replica's ids still rise in publish order. Sent after them, a client that got
      // one of these and then resumed would never have been sent that batch.
      if (!overflowing) log.error({ backlog: queue.length }, 'inbox unavailable and the backlog is full: new notifications go out live only, unstored, until it is written');
      overflowing = true;
      if (inFlight && !inFlight.published) {
        inFlight.published = true;
        publish(inFlight.made);
      }
      const made = withIds(drafts);
      unstored(made.filter((m) => isStoredNotificationType(m.type)).length);
      publish(made);
      return;
    }
    let admitted = drafts;
    const waitingLive = queue.length - queuedStored;
    if (stored < drafts.length && waitingLive > 0 && waitingLive + (drafts.length - stored) > backlogMax) {
      // Live-only notifications beyond their own bound are dropped: sent now they would pass
      // the batch being stored (a client resuming after their ids would never get it), and
      // nothing replays them anyway (docs/notifications.md, "Live only"). The bound is on what
      // waits: one event's fan-out behind nothing is taken whole (until 2026-11-29 a presence
      // change with more online friends than NOTIFY_INGEST_BACKLOG_MAX was always dropped).
      if (!droppingLive) log.error({ waiting: queue.length - queuedStored }, 'inbox write slow or away and live-only notifications pile up behind it: new ones are dropped until it is written');
      droppingLive = true;
      liveDropped(drafts.length - stored);
      admitted = drafts.filter((d) => isStoredNotificationType(d.type));
    }
    queuedStored += stored;
    queue.push(...admitted);
    running ??= drainQueue().finally(() => {
      running = undefined;
    });
  };

  // a subject NATS refused is subscribed to again: until 2026-11-29 its events stopped on every replica until a restart
  const subscriptions: KeptSubscription[] = translators(prefix).map(({ subject, translate }) =>
    keepSubscribed(nc, subject, { queue: names.notificationsIngestQueue, what: `no ${subject} event becomes a notification`, log }, (msg) => {
      let payload: unknown;
      try {
        payload = msg.json();
      } catch {
        payload = undefined;
      }
      const drafts = translate(payload);
      if (!drafts) {
        log.warn({ subject: msg.subject }, 'domain event ignored: not the shape the contracts describe');
        return;
      }
      if (drafts.length > 0) take(drafts);
    }),
  );

  return {
    async stop() {
      stopping = true;
      wake?.();
      await Promise.all(subscriptions.map((s) => s.drain()));
      while (running) await running;
    },
  };
}
