import { describe, expect, it } from 'vitest';
import { presenceOf } from '../../src/domain/presence.ts';
import { presenceBoard, sightingKey } from '../../src/presence/board.ts';

const WINDOW = 60_000;
const T = Date.parse('2026-11-23T12:00:00.000Z');

describe('presenceOf', () => {
  it('is online while the latest sighting is younger than the window', () => {
    expect(presenceOf({ liveSeenAt: T - 59_999, storedSeenAt: undefined }, T, WINDOW)).toEqual({ status: 'online', lastSeenAt: new Date(T - 59_999).toISOString() });
    expect(presenceOf({ liveSeenAt: T - 60_000, storedSeenAt: undefined }, T, WINDOW).status).toBe('offline');
  });

  it('takes lastSeenAt from whichever is later, the board or the directory', () => {
    const stored = new Date(T - 3_600_000);
    expect(presenceOf({ liveSeenAt: undefined, storedSeenAt: stored }, T, WINDOW)).toEqual({ status: 'offline', lastSeenAt: stored.toISOString() });
    expect(presenceOf({ liveSeenAt: T - 10, storedSeenAt: stored }, T, WINDOW)).toEqual({ status: 'online', lastSeenAt: new Date(T - 10).toISOString() });
    // a directory time never makes a gamer online: only a live sighting does
    expect(presenceOf({ liveSeenAt: undefined, storedSeenAt: new Date(T - 10) }, T, WINDOW).status).toBe('offline');
  });

  it('is offline with lastSeenAt null for a gamer never seen', () => {
    expect(presenceOf({ liveSeenAt: undefined, storedSeenAt: undefined }, T, WINDOW)).toEqual({ status: 'offline', lastSeenAt: null });
  });
});

describe('presenceBoard', () => {
  const key = (n: number) => sightingKey('app', `gamer-${n}`);

  it('keeps the latest sighting per gamer; an older one changes nothing', () => {
    const board = presenceBoard({ onlineWindowMs: WINDOW, maxEntries: 10 });
    board.record(key(1), T);
    board.record(key(1), T - 5);
    expect(board.lastSeen('app', 'gamer-1')).toBe(T);
    board.record(key(1), T + 5);
    expect(board.lastSeen('app', 'gamer-1')).toBe(T + 5);
    expect(board.lastSeen('other-app', 'gamer-1')).toBeUndefined();
  });

  it('sweeps the sessions that left the window and answers them as ended', () => {
    const board = presenceBoard({ onlineWindowMs: WINDOW, maxEntries: 10 });
    board.record(key(1), T);
    board.record(key(2), T + 30_000);
    board.record(key(1), T + 40_000);
    expect(board.sweep(T + 60_000)).toEqual([]);
    expect(board.sweep(T + 90_000)).toEqual([{ applicationId: 'app', gamerId: 'gamer-2', at: new Date(T + 30_000) }]);
    expect(board.size).toBe(1);
    expect(board.sweep(T + 100_000)).toEqual([{ applicationId: 'app', gamerId: 'gamer-1', at: new Date(T + 40_000) }]);
    expect(board.size).toBe(0);
  });

  it('holds at most maxEntries, dropping the least recently seen (answered as ended)', () => {
    const board = presenceBoard({ onlineWindowMs: WINDOW, maxEntries: 2 });
    board.record(key(1), T);
    board.record(key(2), T + 1);
    expect(board.record(key(3), T + 2)).toEqual([{ applicationId: 'app', gamerId: 'gamer-1', at: new Date(T) }]);
    expect(board.size).toBe(2);
    expect(board.lastSeen('app', 'gamer-1')).toBeUndefined();
  });
});
