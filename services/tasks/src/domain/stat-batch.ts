import type { StatEvent } from '@gfts/contracts';
import { isActive } from './expiry.ts';
import type { TaskProgress } from './model.ts';
import { gameUpdate, statTotals } from './stat-event.ts';

/** One gamer task's change from a batch: the state it was read in, the state to write, and why. */
export interface TaskChange<T extends TaskProgress = TaskProgress> {
  before: T;
  after: T;
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

export interface Completion<T extends TaskProgress = TaskProgress> {
  task: T;
  eventId: string;
}

export interface GamerBatchPlan<T extends TaskProgress = TaskProgress> {
  changes: TaskChange<T>[];
  /** tasks completed by this batch's events, each with the event that completed it */
  completed: Completion<T>[];
  /**
   * tasks an event of this batch had completed before (a delivery that wrote but was not
   * acknowledged, or another copy of the event): announced again, so no completion goes
   * unannounced
   */
  completedEarlier: Completion<T>[];
}

/**
 * One gamer's events of a batch applied in stream order to the gamer's active tasks, in
 * memory, with the game rule (window.ts) per task tied to one of an event's stats. A
 * composite parent counts its completed children and completes with the last of them
 * (design.md "A composite parent completes when all its children have completed"). An
 * event a task already shows as applied changes it no more.
 */
export function planGamerBatch<T extends TaskProgress>(tasks: T[], events: StatEvent[], now: Date): GamerBatchPlan<T> {
  const read = new Map(tasks.filter((t) => isActive(t.expiredAt, now)).map((t) => [t.id, t]));
  const current = new Map(read);
  const changedBy = new Map<string, string[]>();
  const onlyProgressed = new Set(read.keys());
  const completed: Completion<T>[] = [];
  const note = (task: T, eventId: string) => {
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
      const next: T = {
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

  // A parent behind its children: another replica completed one of them while this gamer's
  // parent write was refused as stale, and the child's redelivered event no longer moves the
  // child. The parent catches up here, with the event that completed its last child if it is
  // one of this batch's, else the batch's last event; never with an event the parent already
  // shows as applied (a redelivery): the write is refused for it, and its read-back would
  // take the refused catch-up for landed. A batch of such events only leaves the parent to
  // the gamer's next event.
  for (const parent of [...current.values()].filter((t) => t.children.length > 0 && !t.completed)) {
    const applied = new Set(read.get(parent.id)!.appliedEventIds);
    const fresh = events.map((e) => e.eventId).filter((id) => !applied.has(id));
    const children = parent.children.map((c) => current.get(c.gamerTaskId)).filter((c) => c?.completed);
    const cause = children.map((c) => c!.completedByEventId).filter((id): id is string => id !== null && fresh.includes(id)).at(-1) ?? fresh.at(-1);
    const next = cause ? parentAfterChild(parent, current, cause, now) : null;
    if (!next || !cause) continue;
    onlyProgressed.delete(next.id);
    note(next, cause);
    if (next.completed) completed.push({ task: next, eventId: cause });
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
function parentAfterChild<T extends TaskProgress>(parent: T, current: Map<string, T>, eventId: string, now: Date): T | null {
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
function incrementOf(before: TaskProgress, after: TaskProgress): Increment {
  const progress = after.progress - before.progress;
  const games = after.games - before.games;
  return {
    progress,
    games,
    progressBelow: before.targetValue - progress,
    gamesAtMost: before.numberOfGames > 0 ? before.numberOfGames - 1 - games : null,
  };
}
