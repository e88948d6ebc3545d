/** Where a gamer task stands in its numberOfGames window. */
export interface WindowState {
  progress: number;
  games: number;
  completed: boolean;
}

export interface WindowRule {
  targetValue: number;
  /** 0: no limit */
  numberOfGames: number;
}

export type GameOutcome = 'completed' | 'progressed' | 'window-reset' | 'ignored';

/**
 * One game that carried the task's stat (design.md "Within numberOfGames"): progress and
 * games count up together; the task completes when progress reaches targetValue on or
 * before game numberOfGames; when game numberOfGames ends short, both start again from
 * zero, so the next game opens a fresh window. numberOfGames 0 means no limit. A completed
 * task takes no more progress.
 */
export function applyGame(state: WindowState, value: number, rule: WindowRule): { state: WindowState; outcome: GameOutcome } {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`a stat value is a non-negative integer, got ${value}`);
  if (state.completed) return { state, outcome: 'ignored' };
  const progress = state.progress + value;
  const games = state.games + 1;
  if (progress >= rule.targetValue) return { state: { progress, games, completed: true }, outcome: 'completed' };
  if (rule.numberOfGames > 0 && games >= rule.numberOfGames) return { state: { progress: 0, games: 0, completed: false }, outcome: 'window-reset' };
  return { state: { progress, games, completed: false }, outcome: 'progressed' };
}
