import type { StatEvent } from '@gfts/contracts';
import { applyGame, type GameOutcome } from './window.ts';
import type { TaskProgress } from './model.ts';

/**
 * A gamer's progress document remembers the events applied to it until they are recorded as
 * processed: its guard against an event applied but not recorded (a crash between the two)
 * that comes back after newer events of the gamer were applied, however many. Ids already
 * recorded are dropped from the list once it is longer than this (the processed record
 * guards them from then on), which keeps the document small: every write reads and writes it.
 */
export const APPLIED_EVENTS_PRUNE_AT = 16;

/** The ids of an applied list that may go because they are recorded as processed. */
export function prunableEventIds(applied: readonly string[], recorded: ReadonlySet<string>): string[] {
  if (applied.length <= APPLIED_EVENTS_PRUNE_AT) return [];
  return applied.filter((id) => recorded.has(id));
}

/** The event with every id in lower case, so "ABC…" and "abc…" are one event and one gamer. */
export function normaliseEvent(event: StatEvent): StatEvent {
  return {
    ...event,
    eventId: event.eventId.toLowerCase(),
    applicationId: event.applicationId.toLowerCase(),
    gamerId: event.gamerId.toLowerCase(),
  };
}

/** The game's amount of each stat; a stat named twice in one event counts once, summed. */
export function statTotals(event: Pick<StatEvent, 'stats'>): Map<string, number> {
  const totals = new Map<string, number>();
  for (const { applicationStatsId, value } of event.stats) totals.set(applicationStatsId, (totals.get(applicationStatsId) ?? 0) + value);
  return totals;
}

export interface GameUpdate {
  outcome: GameOutcome;
  progress: number;
  games: number;
  completed: boolean;
  /** the task's applied event ids with this one */
  appliedEventIds: string[];
}

/**
 * What one event does to one gamer task, or null when it must not touch it (already
 * completed, already applied, or not tied to a stat of the event).
 */
export function gameUpdate(task: TaskProgress, eventId: string, totals: Map<string, number>): GameUpdate | null {
  if (task.completed || task.statKey === null || task.appliedEventIds.includes(eventId)) return null;
  const value = totals.get(task.statKey);
  if (value === undefined) return null;
  const { state, outcome } = applyGame({ progress: task.progress, games: task.games, completed: task.completed }, value, task);
  return { outcome, ...state, appliedEventIds: [...task.appliedEventIds, eventId] };
}
