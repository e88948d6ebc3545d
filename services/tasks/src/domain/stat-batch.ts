import type { StatEvent } from '@gfts/contracts';
import { isActive } from './expiry.ts';
import type { GamerTaskRecord } from './model.ts';
import { gameUpdate, statTotals } from './stat-event.ts';

/** One gamer task's change from a batch: the state it was read in, the state to write, and why. */
export interface TaskChange {
  before: GamerTaskRecord;
  after: GamerTaskRecord;
  /** the batch's events that changed it, in stream order */
  eventIds: string[];
  /**
   * Set when every game only added progress (no completion, no window reset): then the
   * change holds from any state within these bounds, so it can be written as an increment
   * that commutes with other replicas' increments. Null: it is written as the exact state.
   */
  increment: Increment | null;
}

/** Progress and games to add, valid while progress < progressBelow and games <= gamesAtMost. */
export interface Increment {
  progress: number;
  games: number;
  progressBelow: number;
  /** null: no games limit (numberOfGames 0) */
  gamesAtMost: number | null;
}

export interface Completion {
  task: GamerTaskRecord;
  eventId: string;
}

export interface GamerBatchPlan {
  changes: TaskChange[];
  /** tasks completed by this batch's events, each with the event that completed it */
  completed: Completion[];
  /**
   * tasks an event of this batch had completed before (a delivery that wrote but was not
   * acknowledged): a redelivery announces them again, so no completion goes unannounced
   */
  completedEarlier: Completion[];
}

/**
 * One gamer's events of a batch applied in stream order to the gamer's active tasks, in
 * memory, with the game rule (window.ts) per task tied to one of an event's stats. A
 * composite parent counts its completed children and completes with the last of them
 * (design.md "A composite parent completes when all its children have completed"). An
 * event a task already shows as applied changes it no more.
 */
export function planGamerBatch(tasks: GamerTaskRecord[], events: StatEvent[], now: Date): GamerBatchPlan {
  const read = new Map(tasks.filter((t) => isActive(t.expiredAt, now)).map((t) => [t.id, t]));
  const current = new Map(read);
  const changedBy = new Map<string, string[]>();
  const onlyProgressed = new Set(read.keys());
  const completed: Completion[] = [];
  const note = (task: GamerTaskRecord, eventId: string) => {
    current.set(task.id, task);
    const ids = changedBy.get(task.id) ?? [];
    if (!ids.includes(eventId)) ids.push(eventId);
    changedBy.set(task.id, ids);
  };

  for (const event of events) {
    const totals = statTotals(event);
    for (const task of [...current.values()]) {
      const update = gameUpdate(task, event.eventId, totals);
      if (!update) continue;
      const next: GamerTaskRecord = {
        ...task,
        progress: update.progress,
        games: update.games,
        completed: update.completed,
        appliedEventIds: update.appliedEventIds,
        ...(update.completed ? { completedAt: now, completedByEventId: event.eventId } : {}),
      };
      note(next, event.eventId);
      if (update.outcome !== 'progressed') onlyProgressed.delete(task.id);
      if (!next.completed) continue;
      completed.push({ task: next, eventId: event.eventId });
      const parent = next.parentGamerTaskId ? current.get(next.parentGamerTaskId) : undefined;
      const parentNext = parent ? parentAfterChild(parent, current, event.eventId, now) : null;
      if (parentNext) {
        onlyProgressed.delete(parentNext.id);
        note(parentNext, event.eventId);
        if (parentNext.completed) completed.push({ task: parentNext, eventId: event.eventId });
      }
    }
  }

  const eventIds = new Set(events.map((e) => e.eventId));
  return {
    changes: [...changedBy].map(([id, ids]) => {
      const before = read.get(id)!;
      const after = current.get(id)!;
      return { before, after, eventIds: ids, increment: onlyProgressed.has(id) ? incrementOf(before, after) : null };
    }),
    completed,
    completedEarlier: [...read.values()].filter((t) => t.completed && t.completedByEventId !== null && eventIds.has(t.completedByEventId))
      .map((task) => ({ task, eventId: task.completedByEventId! })),
  };
}

/** A parent's state once a child completed: progress is its number of completed children. */
function parentAfterChild(parent: GamerTaskRecord, current: Map<string, GamerTaskRecord>, eventId: string, now: Date): GamerTaskRecord | null {
  if (parent.completed) return null;
  const done = parent.children.filter((c) => current.get(c.gamerTaskId)?.completed).length;
  if (done <= parent.progress) return null;
  const all = done === parent.children.length;
  return { ...parent, progress: done, completed: all, ...(all ? { completedAt: now, completedByEventId: eventId } : {}) };
}

/**
 * The increment form of a change whose games all only progressed: from any state with
 * progress + added < targetValue and games + played < numberOfGames, the same games again
 * only progress (values are non-negative, window.ts), so the result is the sum.
 */
function incrementOf(before: GamerTaskRecord, after: GamerTaskRecord): Increment {
  const progress = after.progress - before.progress;
  const games = after.games - before.games;
  return {
    progress,
    games,
    progressBelow: before.targetValue - progress,
    gamesAtMost: before.numberOfGames > 0 ? before.numberOfGames - 1 - games : null,
  };
}
