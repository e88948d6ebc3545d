import type { StatEvent } from '@gfts/contracts';
import { ExpiringCache, withMessageContext, withRequestId, type MessageSpan } from '@gfts/platform';
import type { FastifyBaseLogger } from 'fastify';
import { achievementRecords, missingAchievements } from '../domain/achievements.ts';
import { isActive } from '../domain/expiry.ts';
import type { GamerTaskRecord, TaskProgress } from '../domain/model.ts';
import { planGamerBatch, type GamerBatchPlan, type TaskChange } from '../domain/stat-batch.ts';
import { APPLIED_EVENTS_PRUNE_AT, prunableEventIds, statTotals } from '../domain/stat-event.ts';
import type { CachedCatalog, CatalogCache } from '../catalog-cache.ts';
import type { TaskEvents } from '../events.ts';
import type { AchievementStatsRepository } from '../repository/achievement-stats-repository.ts';
import type { ProcessedEventRepository } from '../repository/event-log-repository.ts';
import { eventIdsOf, progressKey, type GamerProgress, type GamerProgressRepository, type ProgressWrite } from '../repository/gamer-progress-repository.ts';
import type { GamerTaskRepository } from '../repository/gamer-task-repository.ts';
import { isStoreOutage, isStoreUnavailable } from '../repository/store.ts';

export interface ProcessorFaults {
  /** called per event after the batch's task writes, before it is recorded as processed (tests) */
  afterApply?: (event: StatEvent) => void | Promise<void>;
  /** called with the batch's events once its progress write landed, before its completions are announced (tests: a reply lost after the commit) */
  afterWrite?: (events: StatEvent[]) => void | Promise<void>;
  /** called per gamer of a batch before its progress write; true: the write is not sent, as if another writer had moved the gamer (tests: stale) */
  staleWrite?: (events: StatEvent[]) => boolean;
  /** called with the batch's events after its reads, before its progress write (tests: a write held while other batches settle) */
  beforeWrite?: (events: StatEvent[]) => void | Promise<void>;
}

/** A stat event as delivered: its payload, whether it came before, and its request id. */
export interface DeliveredEvent {
  event: StatEvent;
  /**
   * the server delivered it before (for logs and tests; since 2026-11-28 what a delivery
   * announces does not depend on it: any delivery announces what its event completed)
   */
  redelivered: boolean;
  requestId: string;
  /** the message's span: what the event causes (task events) continues its trace */
  trace?: MessageSpan;
}

/**
 * What became of one event of a batch: applied; a duplicate of one applied before; stale
 * (another replica moved one of the gamer's tasks meanwhile, so it must be applied again from
 * the new state: redeliver it); interrupted (its batch was still failing as a whole, the store
 * away, when the replica stopped: no fault of the event's, so it comes back as a stale one
 * does, not dead-lettered on its last delivery); or failed on its own (the rest of the batch
 * went on).
 */
export type EventOutcome = { kind: 'processed' } | { kind: 'duplicate' } | { kind: 'stale' } | { kind: 'interrupted' } | { kind: 'failed'; error: unknown };

/**
 * Completions this process announced lately, by event and gamer task. An event whose
 * completion went out and which then failed before its acknowledgement (its batch's
 * settling failed, the store's reply was lost) comes back, and a delivery announces what the
 * progress document says its event completed, because another delivery (a replica's, or
 * another copy's) may have written it without announcing it. When this process announced it, it
 * is not announced twice. About a minute of completions at the bench's 1,000 events/s
 * (0.36 completions per event; ~4 MB); a redelivery after a crash, or to another replica,
 * may still announce one again (at least once: docs/tasks.md).
 */
const ANNOUNCED_KEPT = 20_000;
const ANNOUNCED_FOR_MS = 10 * 60_000;

interface Deps {
  gamerTasks: GamerTaskRepository;
  progress: GamerProgressRepository;
  processed: ProcessedEventRepository;
  unlockStats: AchievementStatsRepository;
  catalog: CatalogCache;
  events: TaskEvents;
  log: FastifyBaseLogger;
  now?: () => Date;
  faults?: ProcessorFaults;
}

interface GamerWork {
  applicationId: string;
  gamerId: string;
  items: DeliveredEvent[];
}

/** What a batch planned for one gamer. */
interface GamerPlan {
  gamer: GamerWork;
  plan: GamerBatchPlan;
  write: ProgressWrite;
  /** the gamer's applied list once the write lands */
  applied: string[];
}

/**
 * Applies a batch of stat events: one read of its gamers' progress documents, one of the
 * batch's processed ids, each gamer's events applied in stream order in memory
 * (domain/stat-batch.ts), one conditional write per gamer in one bulkWrite (each on
 * condition of the state it was planned from), completions announced, the unlock-rate
 * counters moved in at most two more bulk writes, and one insert recording the events as
 * processed. A redelivered event changes
 * nothing twice: the progress document remembers the events applied to it, and the
 * processed record (kept days) skips it before any work.
 */
export class StatBatchProcessor {
  private readonly deps: Deps;
  private readonly now: () => Date;
  private readonly announced = new ExpiringCache<true>(ANNOUNCED_KEPT);

  constructor(deps: Deps) {
    this.deps = deps;
    this.now = deps.now ?? (() => new Date());
  }

  /** The outcome of each delivered event, in the batch's order. */
  async process(batch: DeliveredEvent[]): Promise<EventOutcome[]> {
    return (await this.write(batch)).settle();
  }

  /**
   * A batch that failed on its data, not on the store (isStoreOutage): each gamer's events
   * processed on their own, in stream order, so only the gamers whose data fails get failed
   * outcomes (they use up deliveries and end as dead letters) and the others are applied.
   * The store away meanwhile still fails the whole call, to be tried again in place.
   */
  async processEachGamer(batch: DeliveredEvent[]): Promise<EventOutcome[]> {
    const groups = new Map<string, DeliveredEvent[]>();
    for (const delivered of batch) {
      const key = progressKey(delivered.event);
      const group = groups.get(key);
      if (group) group.push(delivered);
      else groups.set(key, [delivered]);
    }
    const outcomes = new Map<DeliveredEvent, EventOutcome>();
    for (const group of groups.values()) {
      try {
        const answered = await this.process(group);
        group.forEach((d, i) => outcomes.set(d, answered[i]!));
      } catch (error) {
        if (isStoreOutage(error)) throw error;
        for (const d of group) outcomes.set(d, { kind: 'failed', error });
      }
    }
    return batch.map((d) => outcomes.get(d)!);
  }

  /**
   * A batch up to its progress write and the completions it landed announced; `settle` does
   * the rest (progress announced, completions counted, the events recorded as processed) and
   * answers the outcomes. Once this resolves the next batch may start, while this one
   * settles: it reads the progress this one wrote, so a gamer's events still apply in stream
   * order, and its completions are announced after this one's.
   */
  async write(batch: DeliveredEvent[]): Promise<{ settle: () => Promise<EventOutcome[]> }> {
    const { gamerTasks, progress, processed } = this.deps;
    const now = this.now();
    const outcomes = new Map<DeliveredEvent, EventOutcome>();
    // the progress documents before the processed records: an event recorded (and then
    // pruned from its document) between the two reads shows in the second
    const held = await progress.read(batch.map((d) => d.event), now);
    const done = await processed.findProcessed([...new Set(batch.map((d) => d.event.eventId))]);
    // an event's first delivery in the batch; a repeat of it ends as that one does (below)
    const firstCopies = new Map<string, DeliveredEvent>();
    const repeats = new Map<DeliveredEvent, DeliveredEvent>();
    const work = new Map<string, GamerWork>();
    for (const delivered of batch) {
      const { eventId, applicationId, gamerId } = delivered.event;
      if (done.has(eventId)) {
        outcomes.set(delivered, { kind: 'duplicate' });
        continue;
      }
      const first = firstCopies.get(eventId);
      if (first) {
        repeats.set(delivered, first);
        continue;
      }
      firstCopies.set(eventId, delivered);
      const key = progressKey(delivered.event);
      const gamer = work.get(key) ?? { applicationId, gamerId, items: [] };
      gamer.items.push(delivered);
      work.set(key, gamer);
    }

    // The catalogs before the per-gamer work: one the store cannot serve now (unavailable)
    // fails the batch, which is tried again without using deliveries, not each of its events;
    // one that cannot be read at all (a broken document) fails that application's events,
    // which end as dead letters instead of holding the batch for ever.
    const applications = [...new Set([...work.values()].map((g) => g.applicationId))];
    const catalogs = new Map<string, CachedCatalog | { unreadable: unknown }>();
    await Promise.all(applications.map(async (app) => {
      try {
        catalogs.set(app, await this.deps.catalog.get(app));
      } catch (error) {
        if (isStoreUnavailable(error)) throw error;
        catalogs.set(app, { unreadable: error });
      }
    }));
    const untracked: { gamer: GamerWork; held: GamerProgress; active: TaskProgress[]; fresh: GamerTaskRecord[] }[] = [];
    for (const [key, gamer] of work) {
      try {
        const progressHeld = held.get(key) ?? { tasks: [], applied: [], orphans: [], epoch: '', pruned: null };
        const active = progressHeld.tasks.filter((t) => isActive(t.expiredAt, now));
        const catalog = catalogs.get(gamer.applicationId)!;
        if ('unreadable' in catalog) throw catalog.unreadable;
        const fresh = this.untrackedAchievements(gamer, catalog, active, gamer.items.map((d) => d.event), now);
        untracked.push({ gamer, held: progressHeld, active, fresh });
      } catch (error) {
        for (const d of gamer.items) outcomes.set(d, { kind: 'failed', error });
      }
    }

    // the gamer tasks of newly tracked achievements exist before their progress does, and
    // are counted as tracked at once: a retry of the batch finds them inserted and would not
    // count them (until 2026-11-28 they were counted at the settling, so any failure of the
    // progress write or after it left the counter one short for each)
    const created = untracked.flatMap((u) => u.fresh);
    const tracked = await gamerTasks.ensure(created);
    if (tracked.length > 0) await this.deps.unlockStats.record(tracked, [], now);
    const stored = await this.storedInstead(created, tracked);

    const plans: GamerPlan[] = [];
    for (const { gamer, held: { tasks, applied, orphans, epoch, pruned }, active, fresh: made } of untracked) {
      try {
        const events = gamer.items.map((d) => d.event);
        const fresh = made.map((r) => ({ ...(stored.get(r.id) ?? r), appliedEventIds: applied }));
        const plan = planGamerBatch<TaskProgress>([...active, ...fresh], events, now);
        // an orphan achievement entry tracked again in this batch is replaced, not dropped
        const replaced = new Set(fresh.map((r) => r.id));
        const dropped = [...tasks.filter((t) => !isActive(t.expiredAt, now)).map((t) => t.id), ...orphans.map((o) => o.id)].filter((id) => !replaced.has(id));
        const droppingOrphans = orphans.filter((o) => !replaced.has(o.id));
        const write = { owner: gamer, changes: plan.changes, added: fresh, replacing: orphans.filter((o) => replaced.has(o.id)), dropped, droppingOrphans, epoch, pruned };
        plans.push({ gamer, plan, write, applied: [...applied, ...eventIdsOf(plan.changes)] });
      } catch (error) {
        for (const d of gamer.items) outcomes.set(d, { kind: 'failed', error });
      }
    }

    await this.deps.faults?.beforeWrite?.(batch.map((d) => d.event));
    const staleWrite = this.deps.faults?.staleWrite;
    const forced = staleWrite ? plans.filter((p) => staleWrite(p.gamer.items.map((d) => d.event))) : [];
    const { stale } = await progress.write((forced.length === 0 ? plans : plans.filter((p) => !forced.includes(p))).map((p) => p.write), now);
    const staleWrites = new Set([...stale, ...forced.map((p) => p.write)]);
    const landed = plans.filter((p) => !staleWrites.has(p.write));
    for (const { gamer } of plans.filter((p) => staleWrites.has(p.write))) for (const d of gamer.items) outcomes.set(d, { kind: 'stale' });
    await this.deps.faults?.afterWrite?.(batch.map((d) => d.event));
    // announced as soon as the store holds them, not behind the previous batch's records
    this.announceCompleted(landed);
    return { settle: () => this.settle(batch, landed, outcomes, repeats, now) };
  }

  /** The completions of the gamers whose writes landed, in the batch's order. */
  private announceCompleted(landed: GamerPlan[]): void {
    for (const { gamer, plan } of landed) {
      for (const delivered of gamer.items) {
        const { eventId } = delivered.event;
        const announce = [
          ...plan.completed.filter((c) => c.eventId === eventId),
          // A delivery that wrote but was not acknowledged may not have announced them: a
          // redelivery of it, or a first delivery of another copy of the event (published
          // twice), finds them completed by this event and announces them (at least once).
          ...plan.completedEarlier.filter((c) => c.eventId === eventId),
        ];
        if (announce.length === 0) continue;
        const at = Date.now();
        const fresh = announce.filter(({ task }) => this.announced.get(`${eventId}:${task.id}`, at) === undefined);
        if (fresh.length === 0) continue;
        withMessageContext(delivered.trace, () => withRequestId(delivered.requestId, () => {
          for (const { task } of fresh) {
            // one that did not go out is announced again by a redelivery
            if (this.announce(task, eventId)) this.announced.set(`${eventId}:${task.id}`, true, at + ANNOUNCED_FOR_MS, at);
          }
        }));
      }
    }
  }

  private async settle(batch: DeliveredEvent[], landed: GamerPlan[], outcomes: Map<DeliveredEvent, EventOutcome>, repeats: Map<DeliveredEvent, DeliveredEvent>, now: Date): Promise<EventOutcome[]> {
    const { processed } = this.deps;
    const recorded: string[] = [];
    for (const { gamer } of landed) {
      for (const delivered of gamer.items) {
        try {
          await this.deps.faults?.afterApply?.(delivered.event);
        } catch (error) {
          outcomes.set(delivered, { kind: 'failed', error });
          continue;
        }
        outcomes.set(delivered, { kind: 'processed' });
        recorded.push(delivered.event.eventId);
      }
    }
    // progress bars move behind the next batch's reads, which completions do not wait for
    this.announceProgress(landed.flatMap((p) => p.plan.changes), now);
    // Unlock rates move with the batch: what it (or an unacknowledged earlier delivery of its
    // events) completed, counted once whatever is redelivered (what it tracked was counted at
    // the write).
    const completions = landed.flatMap((p) => [...p.plan.completed, ...p.plan.completedEarlier]);
    await this.deps.unlockStats.record([], completions.map((c) => c.task), now);
    await processed.recordMany(recorded.map((_id) => ({ _id, processedAt: now })));
    await this.forgetRecorded(landed);
    // A repeat is a duplicate only of a copy that was processed: acknowledged after a copy
    // that comes back (stale, failed), it could end the one delivery that would bring it back.
    for (const [repeat, first] of repeats) {
      const outcome = outcomes.get(first);
      outcomes.set(repeat, outcome?.kind === 'processed' ? { kind: 'duplicate' } : (outcome ?? { kind: 'failed', error: new Error('event left without an outcome') }));
    }
    return batch.map((d) => outcomes.get(d) ?? { kind: 'failed', error: new Error('event left without an outcome') });
  }

  /** Long applied-event lists lose the ids recorded as processed. */
  private async forgetRecorded(landed: GamerPlan[]): Promise<void> {
    const long = landed.filter((p) => p.applied.length > APPLIED_EVENTS_PRUNE_AT);
    if (long.length === 0) return;
    const recorded = await this.deps.processed.findProcessed([...new Set(long.flatMap((p) => p.applied))]);
    const prunes = new Map(long.map((p) => [progressKey(p.gamer), prunableEventIds(p.applied, recorded)] as const).filter(([, ids]) => ids.length > 0));
    await this.deps.progress.forgetApplied(prunes);
  }

  /**
   * The stored records of achievements that were tracked already (their gamer task was there,
   * its progress entry was not: a replica stopped between the two writes, or the entry's write
   * went stale), by id. Progress is planned against what the gamer task holds, not against the
   * catalog now: an edited target or stat would otherwise decide the completion while the
   * task kept the old one (until 2026-11-28). One read, only when some record was there.
   */
  private async storedInstead(created: GamerTaskRecord[], inserted: GamerTaskRecord[]): Promise<Map<string, GamerTaskRecord>> {
    const insertedIds = new Set(inserted.map((r) => r.id));
    const existing = created.filter((r) => !insertedIds.has(r.id)).map((r) => r.id);
    if (existing.length === 0) return new Map();
    return new Map((await this.deps.gamerTasks.findByIds(existing)).map((r) => [r.id, r] as const));
  }

  /** Records of the achievements tied to these events' stats that the gamer has none of yet. */
  private untrackedAchievements(gamer: GamerWork, { achievements }: CachedCatalog, held: TaskProgress[], events: StatEvent[], now: Date): GamerTaskRecord[] {
    const stats = new Set(events.flatMap((e) => [...statTotals(e).keys()]));
    const missing = missingAchievements(achievements, stats, new Set(held.map((t) => t.taskId)));
    if (missing.length === 0) return [];
    // a composite missing one child's entry is missing as a whole: its held parent and
    // other children keep their progress (fresh copies would overwrite them in the plan,
    // and their entries' "not there yet" conditions would make the write stale for ever)
    const heldIds = new Set(held.map((t) => t.id));
    return achievementRecords(missing, gamer.applicationId, gamer.gamerId, now).filter((r) => !heldIds.has(r.id));
  }

  /**
   * One task.progress per task the batch moved without completing it (a completion is
   * announced as such): the state this replica wrote, for clients' progress bars.
   */
  private announceProgress(changes: TaskChange[], now: Date): void {
    for (const { before, after } of changes) {
      if (after.completed || after.statKey === null || after.progress === before.progress) continue;
      this.deps.events.progressed({
        applicationId: after.applicationId,
        gamerId: after.gamerId,
        gamerTaskId: after.id,
        taskId: after.taskId,
        isAchievement: after.isAchievement,
        progress: after.progress,
        targetValue: after.targetValue,
        occurredAt: now.toISOString(),
      });
    }
  }

  private announce(task: TaskProgress, eventId: string): boolean {
    return this.deps.events.completed({
      applicationId: task.applicationId,
      gamerId: task.gamerId,
      gamerTaskId: task.id,
      taskId: task.taskId,
      parentGamerTaskId: task.parentGamerTaskId,
      isAchievement: task.isAchievement,
      completedAt: (task.completedAt ?? this.now()).toISOString(),
      eventId,
    });
  }
}
