import { describe, expect, it } from 'vitest';
import { applyGame, type WindowState } from '../../src/domain/window.ts';

const fresh: WindowState = { progress: 0, games: 0, completed: false };

function play(values: number[], rule: { targetValue: number; numberOfGames: number }) {
  let state = fresh;
  const outcomes: string[] = [];
  for (const value of values) {
    const next = applyGame(state, value, rule);
    state = next.state;
    outcomes.push(next.outcome);
  }
  return { state, outcomes };
}

describe('the numberOfGames window rule', () => {
  const rule = { targetValue: 10, numberOfGames: 3 };

  it('completes when the target is reached exactly on game N', () => {
    const { state, outcomes } = play([3, 3, 4], rule);
    expect(state).toEqual({ progress: 10, games: 3, completed: true });
    expect(outcomes).toEqual(['progressed', 'progressed', 'completed']);
  });

  it('completes before game N when the target is reached early', () => {
    expect(play([7, 5], rule).state).toEqual({ progress: 12, games: 2, completed: true });
  });

  it('one short on game N resets, and the next game opens a fresh window', () => {
    const short = play([3, 3, 3], rule);
    expect(short.state).toEqual({ progress: 0, games: 0, completed: false });
    expect(short.outcomes).toEqual(['progressed', 'progressed', 'window-reset']);
    // the fresh window counts only its own games
    const after = play([3, 3, 3, 9, 1], rule);
    expect(after.state).toEqual({ progress: 10, games: 2, completed: true });
    // the old window's progress does not carry over
    const carried = play([3, 3, 3, 4], rule);
    expect(carried.state).toEqual({ progress: 4, games: 1, completed: false });
  });

  it('numberOfGames 0 means no limit', () => {
    const { state } = play(Array.from({ length: 50 }, () => 0).concat([10]), { targetValue: 10, numberOfGames: 0 });
    expect(state).toEqual({ progress: 10, games: 51, completed: true });
    expect(play([1, 1, 1, 1], { targetValue: 10, numberOfGames: 0 }).state).toEqual({ progress: 4, games: 4, completed: false });
  });

  it('a game with value 0 still counts as a game of the window', () => {
    const { state } = play([0, 0, 0], rule);
    expect(state).toEqual({ progress: 0, games: 0, completed: false });
    expect(play([0, 5], rule).state).toEqual({ progress: 5, games: 2, completed: false });
  });

  it('numberOfGames 1 needs the whole target in a single game', () => {
    expect(play([9], { targetValue: 10, numberOfGames: 1 }).state).toEqual({ progress: 0, games: 0, completed: false });
    expect(play([9, 10], { targetValue: 10, numberOfGames: 1 }).state).toEqual({ progress: 10, games: 1, completed: true });
  });

  it('a completed task takes no more progress', () => {
    const done = { progress: 10, games: 2, completed: true };
    expect(applyGame(done, 5, rule)).toEqual({ state: done, outcome: 'ignored' });
  });

  it('refuses negative and non-integer values', () => {
    expect(() => applyGame(fresh, -1, rule)).toThrow(RangeError);
    expect(() => applyGame(fresh, 1.5, rule)).toThrow(RangeError);
  });
});
