import type { StatEvent } from '@gfts/contracts';
import { applyGame, type GameOutcome } from './window.ts';
import type { GamerTaskRecord } from './model.ts';

/**
 * How many recent event ids a gamer task remembers: its guard against an event applied
 * but not yet recorded as processed (a crash between the two), which comes back within
 * STATS_ACK_WAIT_MS (30 s), far fewer games than this. Kept small because every write of
 * the task reads and writes the list (on the local store, cost grows with document size).
 */
export const APPLIED_EVENTS_KEPT = 16;

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
  /** the task's recent event ids with this one, the oldest dropped beyond the bound */
  appliedEventIds: string[];
}

/**
 * What one event does to one gamer task, or null when it must not touch it (already
 * completed, already applied, or not tied to a stat of the event).
 */
export function gameUpdate(task: GamerTaskRecord, eventId: string, totals: Map<string, number>): GameUpdate | null {
  if (task.completed || task.statKey === null || task.appliedEventIds.includes(eventId)) return null;
  const value = totals.get(task.statKey);
  if (value === undefined) return null;
  const { state, outcome } = applyGame({ progress: task.progress, games: task.games, completed: task.completed }, value, task);
  return { outcome, ...state, appliedEventIds: [...task.appliedEventIds, eventId].slice(-APPLIED_EVENTS_KEPT) };
}
