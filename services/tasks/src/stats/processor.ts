import type { StatEvent } from '@gfts/contracts';
import type { FastifyBaseLogger } from 'fastify';
import { missingAchievements } from '../domain/achievements.ts';
import { isActive } from '../domain/expiry.ts';
import type { GamerTaskRecord } from '../domain/model.ts';
import { gameUpdate, statTotals } from '../domain/stat-event.ts';
import type { CatalogCache } from '../catalog-cache.ts';
import type { TaskEvents } from '../events.ts';
import type { ProcessedEventRepository } from '../repository/event-log-repository.ts';
import type { GamerTaskRepository } from '../repository/gamer-task-repository.ts';
import { trackAchievements } from '../tracking.ts';
import { Batcher } from './batcher.ts';

const MAX_ATTEMPTS = 20;

export interface ProcessorFaults {
  /** called after the task writes of an event, before it is recorded as processed (tests) */
  afterApply?: (event: StatEvent) => void | Promise<void>;
}

export type ProcessOutcome = 'processed' | 'duplicate';

interface Deps {
  gamerTasks: GamerTaskRepository;
  processed: ProcessedEventRepository;
  catalog: CatalogCache;
  events: TaskEvents;
  log: FastifyBaseLogger;
  now?: () => Date;
  faults?: ProcessorFaults;
}

/**
 * Applies one stat event (one game of one gamer) to the gamer's active tasks tied to its
 * stats, exactly once per task: each task write is conditional on the task's version and
 * on the event not being among the task's applied events, so a redelivery, a
 * re-publication with a new message id, or a second replica changes nothing twice.
 * The event is recorded as processed only after every write, and acknowledged after that.
 */
export class StatEventProcessor {
  private readonly deps: Deps;
  private readonly now: () => Date;
  private readonly records: Batcher<{ _id: string; processedAt: Date }>;

  constructor(deps: Deps) {
    this.deps = deps;
    this.now = deps.now ?? (() => new Date());
    this.records = new Batcher((docs) => deps.processed.recordMany(docs), 10, 200);
  }

  async process(event: StatEvent, redelivered = false): Promise<ProcessOutcome> {
    const { gamerTasks, processed, catalog } = this.deps;
    if (await processed.has(event.eventId)) return 'duplicate';
    const now = this.now();
    const totals = statTotals(event);
    const stats = [...totals.keys()];
    const [found, cached] = await Promise.all([
      gamerTasks.findActiveForStats(event.applicationId, event.gamerId, stats, now),
      catalog.get(event.applicationId),
    ]);
    let tasks = found;
    const untracked = missingAchievements(cached.achievements, stats, new Set(found.map((t) => t.taskId)));
    if (untracked.length > 0) {
      await trackAchievements(gamerTasks, untracked, event.applicationId, event.gamerId, now);
      tasks = await gamerTasks.findActiveForStats(event.applicationId, event.gamerId, stats, now);
    }

    const results = await Promise.all(tasks.map((task) => this.applyTo(task, event.eventId, totals, now)));
    const completed: GamerTaskRecord[] = [];
    const parents = new Set<string>();
    for (const result of results) {
      if (!result) continue;
      const byThisEvent = result.task.completed && result.task.completedByEventId === event.eventId;
      if (byThisEvent && result.task.parentGamerTaskId) parents.add(result.task.parentGamerTaskId);
      // a redelivery republishes what the first delivery may have completed before a crash
      if (result.applied ? result.task.completed : byThisEvent && redelivered) completed.push(result.task);
    }
    for (const parentId of parents) {
      const parent = await this.completeParent(parentId, event.eventId, now);
      if (parent) completed.push(parent);
    }
    for (const task of completed) this.publishCompleted(task, event.eventId);
    await this.deps.faults?.afterApply?.(event);
    await this.records.add({ _id: event.eventId, processedAt: now });
    return 'processed';
  }

  /** One game on one task, re-reading and retrying when another writer got there first. */
  private async applyTo(initial: GamerTaskRecord, eventId: string, totals: Map<string, number>, now: Date): Promise<{ task: GamerTaskRecord; applied: boolean } | null> {
    let task = initial;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const update = gameUpdate(task, eventId, totals);
      if (!update) return { task, applied: false };
      const next: GamerTaskRecord = {
        ...task,
        progress: update.progress,
        games: update.games,
        completed: update.completed,
        appliedEventIds: update.appliedEventIds,
        ...(update.completed ? { completedAt: now, completedByEventId: eventId } : {}),
        version: task.version + 1,
      };
      if (await this.deps.gamerTasks.advance(next)) return { task: next, applied: true };
      const fresh = await this.deps.gamerTasks.refreshById(task.id);
      if (!fresh || !isActive(fresh.expiredAt, now)) return null;
      task = fresh;
    }
    throw new Error(`gamer task ${task.id} kept changing under event ${eventId}`);
  }

  /** A composite parent counts its completed children and completes when all have. */
  private async completeParent(parentId: string, eventId: string, now: Date): Promise<GamerTaskRecord | null> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const parent = attempt === 0 ? await this.deps.gamerTasks.findById(parentId) : await this.deps.gamerTasks.refreshById(parentId);
      if (!parent || parent.completed || !isActive(parent.expiredAt, now)) return null;
      const children = await this.deps.gamerTasks.findByIds(parent.children.map((c) => c.gamerTaskId));
      const done = children.filter((c) => c.completed).length;
      const allDone = parent.children.length > 0 && done === parent.children.length;
      if (!allDone && done <= parent.progress) return null;
      const next: GamerTaskRecord = {
        ...parent,
        progress: Math.max(parent.progress, done),
        completed: allDone,
        ...(allDone ? { completedAt: now, completedByEventId: eventId } : {}),
        version: parent.version + 1,
      };
      if (await this.deps.gamerTasks.advance(next)) return allDone ? next : null;
    }
    throw new Error(`composite gamer task ${parentId} kept changing under event ${eventId}`);
  }

  private publishCompleted(task: GamerTaskRecord, eventId: string): void {
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
