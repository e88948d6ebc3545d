import type { StatEvent } from '@gfts/contracts';
import { withRequestId } from '@gfts/platform';
import type { FastifyBaseLogger } from 'fastify';
import { achievementRecords, missingAchievements } from '../domain/achievements.ts';
import type { GamerTaskRecord } from '../domain/model.ts';
import { planGamerBatch, type Completion, type TaskChange } from '../domain/stat-batch.ts';
import { APPLIED_EVENTS_PRUNE_AT, prunableEventIds, statTotals } from '../domain/stat-event.ts';
import type { CatalogCache } from '../catalog-cache.ts';
import type { TaskEvents } from '../events.ts';
import type { ProcessedEventRepository } from '../repository/event-log-repository.ts';
import type { GamerTaskRepository } from '../repository/gamer-task-repository.ts';

export interface ProcessorFaults {
  /** called per event after the batch's task writes, before it is recorded as processed (tests) */
  afterApply?: (event: StatEvent) => void | Promise<void>;
}

/** A stat event as delivered: its payload, whether it came before, and its request id. */
export interface DeliveredEvent {
  event: StatEvent;
  redelivered: boolean;
  requestId: string;
}

/**
 * What became of one event of a batch: applied; a duplicate of one applied before; stale
 * (another replica moved one of the gamer's tasks meanwhile, so it must be applied again from
 * the new state: redeliver it); or failed on its own (the rest of the batch went on).
 */
export type EventOutcome = { kind: 'processed' } | { kind: 'duplicate' } | { kind: 'stale' } | { kind: 'failed'; error: unknown };

interface Deps {
  gamerTasks: GamerTaskRepository;
  processed: ProcessedEventRepository;
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

const gamerKey = (applicationId: string, gamerId: string) => `${applicationId}:${gamerId}`;

/**
 * Applies a batch of stat events: one read of the batch's processed ids, one read of its
 * gamers' tasks, each gamer's events applied in stream order in memory (domain/stat-batch.ts),
 * one bulkWrite of the changed tasks (each write conditional on the state it was planned
 * from), completions announced after the write, and one insert recording the events as
 * processed. A redelivered event changes nothing twice: a task remembers the events applied
 * to it, and the processed record (kept days) skips it before any work.
 */
export class StatBatchProcessor {
  private readonly deps: Deps;
  private readonly now: () => Date;

  constructor(deps: Deps) {
    this.deps = deps;
    this.now = deps.now ?? (() => new Date());
  }

  /** The outcome of each delivered event, in the batch's order. */
  async process(batch: DeliveredEvent[]): Promise<EventOutcome[]> {
    const { gamerTasks, processed } = this.deps;
    const now = this.now();
    const outcomes = new Map<DeliveredEvent, EventOutcome>();
    const done = await processed.findProcessed([...new Set(batch.map((d) => d.event.eventId))]);
    const seen = new Set<string>();
    const work = new Map<string, GamerWork>();
    for (const delivered of batch) {
      const { eventId, applicationId, gamerId } = delivered.event;
      if (done.has(eventId) || seen.has(eventId)) {
        outcomes.set(delivered, { kind: 'duplicate' });
        continue;
      }
      seen.add(eventId);
      const key = gamerKey(applicationId, gamerId);
      const gamer = work.get(key) ?? { applicationId, gamerId, items: [] };
      gamer.items.push(delivered);
      work.set(key, gamer);
    }

    const held = groupByGamer(await gamerTasks.activeOf([...work.values()], now));
    const created: GamerTaskRecord[] = [];
    const changes: TaskChange[] = [];
    const plans = new Map<string, { completed: Completion[]; completedEarlier: Completion[] }>();
    for (const [key, gamer] of work) {
      try {
        const events = gamer.items.map((d) => d.event);
        const tasks = held.get(key) ?? [];
        const fresh = await this.untrackedAchievements(gamer, tasks, events, now);
        created.push(...fresh);
        const plan = planGamerBatch([...tasks, ...fresh], events, now);
        changes.push(...plan.changes);
        plans.set(key, plan);
      } catch (error) {
        for (const d of gamer.items) outcomes.set(d, { kind: 'failed', error });
        work.delete(key);
      }
    }

    await gamerTasks.ensure(created);
    const { stale } = await gamerTasks.applyChanges(changes);
    const staleGamers = new Set(stale.map((c) => gamerKey(c.before.applicationId, c.before.gamerId)));

    const recorded: string[] = [];
    for (const [key, gamer] of work) {
      if (staleGamers.has(key)) {
        for (const d of gamer.items) outcomes.set(d, { kind: 'stale' });
        continue;
      }
      const plan = plans.get(key)!;
      for (const delivered of gamer.items) {
        const { eventId } = delivered.event;
        try {
          await this.deps.faults?.afterApply?.(delivered.event);
        } catch (error) {
          outcomes.set(delivered, { kind: 'failed', error });
          continue;
        }
        const announce = [
          ...plan.completed.filter((c) => c.eventId === eventId),
          // a delivery that wrote but was not acknowledged may not have announced them
          ...(delivered.redelivered ? plan.completedEarlier.filter((c) => c.eventId === eventId) : []),
        ];
        withRequestId(delivered.requestId, () => {
          for (const { task } of announce) this.announce(task, eventId);
        });
        outcomes.set(delivered, { kind: 'processed' });
        recorded.push(eventId);
      }
    }
    await processed.recordMany(recorded.map((_id) => ({ _id, processedAt: now })));
    await this.forgetRecorded(changes);
    return batch.map((d) => outcomes.get(d) ?? { kind: 'failed', error: new Error('event left without an outcome') });
  }

  /** Long applied-event lists of the written tasks lose the ids recorded as processed. */
  private async forgetRecorded(changes: TaskChange[]): Promise<void> {
    const long = changes.filter((c) => c.after.appliedEventIds.length > APPLIED_EVENTS_PRUNE_AT);
    if (long.length === 0) return;
    const recorded = await this.deps.processed.findProcessed([...new Set(long.flatMap((c) => c.after.appliedEventIds))]);
    const prunes = new Map(long.map((c) => [c.after.id, prunableEventIds(c.after, recorded)] as const).filter(([, ids]) => ids.length > 0));
    await this.deps.gamerTasks.forgetAppliedEvents(prunes);
  }

  /** Records of the achievements tied to these events' stats that the gamer has none of yet. */
  private async untrackedAchievements(gamer: GamerWork, held: GamerTaskRecord[], events: StatEvent[], now: Date): Promise<GamerTaskRecord[]> {
    const stats = new Set(events.flatMap((e) => [...statTotals(e).keys()]));
    const { achievements } = await this.deps.catalog.get(gamer.applicationId);
    const missing = missingAchievements(achievements, stats, new Set(held.map((t) => t.taskId)));
    return missing.length === 0 ? [] : achievementRecords(missing, gamer.applicationId, gamer.gamerId, now);
  }

  private announce(task: GamerTaskRecord, eventId: string): void {
    this.deps.events.completed({
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

function groupByGamer(tasks: GamerTaskRecord[]): Map<string, GamerTaskRecord[]> {
  const byGamer = new Map<string, GamerTaskRecord[]>();
  for (const task of tasks) {
    const key = gamerKey(task.applicationId, task.gamerId);
    const list = byGamer.get(key) ?? [];
    list.push(task);
    byGamer.set(key, list);
  }
  return byGamer;
}
