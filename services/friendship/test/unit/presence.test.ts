import { describe, expect, it } from 'vitest';
import { presenceOf, presenceRecipients, settledAnnouncement } from '../../src/domain/presence.ts';
import { gamerKey, presenceBoard } from '../../src/presence/board.ts';

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

describe('presenceBoard (per notifications replica: heartbeats, and gamer keys written once)', () => {
  const key = (n: number) => gamerKey('app', `gamer-${n}`);
  const ended = (n: number, at: number) => ({ applicationId: 'app', gamerId: `gamer-${n}`, at: new Date(at) });

  it('puts a gamer online with their first hold; another replica\'s hold changes nothing else; lastSeen follows the heartbeat', () => {
    const board = presenceBoard({ onlineWindowMs: WINDOW, maxEntries: 10 });
    board.beat('r1', T);
    expect(board.hold(key(1), 'r1', T)).toEqual({ change: { key: key(1), status: 'online', at: T }, ended: [] });
    expect(board.hold(key(1), 'r2', T + 5)).toEqual({ ended: [] });
    // no gamer key is written again: the replica's heartbeat keeps them online
    board.beat('r1', T + 45_000);
    expect(board.isOnline('app', 'gamer-1', T + 100_000)).toBe(true);
    expect(board.lastSeen('app', 'gamer-1')).toBe(T + 45_000);
    expect(board.onlineSince(key(1), T + 100_000)).toBe(T);
    expect(board.isOnline('other-app', 'gamer-1', T + 10)).toBe(false);
  });

  it('puts a gamer offline when the last replica holding them releases them, at the release time', () => {
    const board = presenceBoard({ onlineWindowMs: WINDOW, maxEntries: 10 });
    board.hold(key(1), 'r1', T);
    board.hold(key(1), 'r2', T + 1);
    expect(board.release(key(1), 'r1', T + 2)).toEqual({ ended: [] });
    expect(board.isOnline('app', 'gamer-1', T + 3)).toBe(true);
    expect(board.release(key(1), 'r2', T + 3)).toEqual({ change: { key: key(1), status: 'offline', at: T + 3 }, ended: [ended(1, T + 3)] });
    expect(board.isOnline('app', 'gamer-1', T + 4)).toBe(false);
    expect(board.lastSeen('app', 'gamer-1')).toBeUndefined();
    // a second release (a marker seen again after a reload) changes nothing
    expect(board.release(key(1), 'r2', T + 5)).toEqual({ ended: [] });
  });

  it('does not keep a gamer online through the hold of a replica whose heartbeat stopped', () => {
    const board = presenceBoard({ onlineWindowMs: WINDOW, maxEntries: 10 });
    board.hold(key(1), 'dead', T);
    board.hold(key(1), 'live', T + 50_000);
    expect(board.release(key(1), 'live', T + 70_000).change).toEqual({ key: key(1), status: 'offline', at: T + 70_000 });
  });

  it('sweeps a replica whose heartbeat left the window: every gamer it alone held goes offline at its last heartbeat', () => {
    const board = presenceBoard({ onlineWindowMs: WINDOW, maxEntries: 10 });
    board.beat('r1', T);
    board.beat('r2', T);
    board.hold(key(1), 'r1', T + 1);
    board.hold(key(2), 'r1', T + 2);
    board.hold(key(2), 'r2', T + 3);
    board.beat('r1', T + 30_000);
    board.beat('r2', T + 80_000);
    expect(board.sweep(T + 60_000)).toEqual({ updates: [], dead: [] });
    // r1 died after its heartbeat at +30 s: gamer-1 goes with it, gamer-2 stays (r2 holds them too)
    expect(board.sweep(T + 90_000)).toEqual({ updates: [{ change: { key: key(1), status: 'offline', at: T + 30_000 }, ended: [ended(1, T + 30_000)] }], dead: ['r1'] });
    expect(board.isOnline('app', 'gamer-2', T + 90_000)).toBe(true);
    expect(board.replicas).toBe(1);
    // and r2's release of gamer-2 is now the last one
    expect(board.release(key(2), 'r2', T + 95_000).change?.status).toBe('offline');
  });

  it('ends what a stopped replica still held when its heartbeat is deleted, at the delete', () => {
    const board = presenceBoard({ onlineWindowMs: WINDOW, maxEntries: 10 });
    board.beat('r1', T);
    board.hold(key(1), 'r1', T);
    board.hold(key(2), 'r1', T);
    expect(board.stopped('r1', T + 10).map((u) => u.change)).toEqual([
      { key: key(1), status: 'offline', at: T + 10 },
      { key: key(2), status: 'offline', at: T + 10 },
    ]);
    expect(board.size).toBe(0);
    expect(board.replicas).toBe(0);
  });

  it('after a reload, ends the holds and replicas the bucket no longer has (deletes missed while the watch was away)', () => {
    const board = presenceBoard({ onlineWindowMs: WINDOW, maxEntries: 10 });
    board.beat('r1', T);
    board.beat('r2', T);
    board.hold(key(1), 'r1', T);
    board.hold(key(2), 'r1', T);
    board.hold(key(3), 'r2', T);
    const updates = board.retainOnly({ holds: new Set([`r1.${key(2)}`]), holders: new Set(['r1']) }, T + 5);
    expect(updates.map((u) => u.change)).toEqual([
      { key: key(3), status: 'offline', at: T + 5 },
      { key: key(1), status: 'offline', at: T + 5 },
    ]);
    expect(board.isOnline('app', 'gamer-2', T + 5)).toBe(true);
  });

  it('holds at most maxEntries, dropping the longest online (answered as ended)', () => {
    const board = presenceBoard({ onlineWindowMs: WINDOW, maxEntries: 2 });
    board.hold(key(1), 'r', T);
    board.hold(key(2), 'r', T + 1);
    expect(board.hold(key(3), 'r', T + 2).ended).toEqual([ended(1, T + 2)]);
    expect(board.size).toBe(2);
    expect(board.lastSeen('app', 'gamer-1')).toBeUndefined();
  });
});

describe('settledAnnouncement (the damping rule)', () => {
  const SETTLE = 10_000;

  it('announces a new status once it has held for the settle time', () => {
    expect(settledAnnouncement('offline', { status: 'online', since: T }, T + 3_000, SETTLE)).toEqual({ kind: 'wait', ms: 7_000 });
    expect(settledAnnouncement('offline', { status: 'online', since: T }, T + 10_000, SETTLE)).toEqual({ kind: 'announce' });
    expect(settledAnnouncement('online', { status: 'offline', since: T }, T + 10_001, SETTLE)).toEqual({ kind: 'announce' });
  });

  it('announces nothing when the status is the one last announced: a change undone within the settle time is never sent', () => {
    // online announced, a disconnect and a reconnect 2 s later: at the settle time the gamer is online again
    expect(settledAnnouncement('online', { status: 'online', since: T + 2_000 }, T + 10_000, SETTLE)).toEqual({ kind: 'none' });
    expect(settledAnnouncement('offline', { status: 'offline', since: T }, T + 60_000, SETTLE)).toEqual({ kind: 'none' });
  });

  it('counts a gamer never announced as offline: a first connect is announced, a brief visit never', () => {
    expect(settledAnnouncement(undefined, { status: 'online', since: T }, T + SETTLE, SETTLE)).toEqual({ kind: 'announce' });
    expect(settledAnnouncement(undefined, { status: 'offline', since: T }, T + SETTLE, SETTLE)).toEqual({ kind: 'none' });
  });

  it('with no settle time announces every change at once', () => {
    expect(settledAnnouncement('offline', { status: 'online', since: T }, T, 0)).toEqual({ kind: 'announce' });
  });
});

describe('presenceRecipients (who is told)', () => {
  const online = (ids: string[]) => (id: string) => ids.includes(id);

  it('tells the online friends only', () => {
    expect(presenceRecipients('me', ['a', 'b', 'c'], new Set(), online(['a', 'c']))).toEqual(['a', 'c']);
  });

  it('never tells a gamer blocked either way, even one a stale read still lists as a friend', () => {
    expect(presenceRecipients('me', ['a', 'b'], new Set(['b']), online(['a', 'b']))).toEqual(['a']);
  });

  it('never tells the gamer themself, and each friend once', () => {
    expect(presenceRecipients('me', ['me', 'a', 'a'], new Set(), online(['me', 'a']))).toEqual(['a']);
  });
});

describe('the board\'s ended sessions (until the directory has them)', () => {
  it('keeps a session\'s end until it is stored, and shows it as lastSeenAt meanwhile, never online', () => {
    const board = presenceBoard({ onlineWindowMs: WINDOW, maxEntries: 10 });
    const [app, gamer] = ['app', 'g'];
    board.hold(gamerKey(app, gamer), 'r1', T - 30_000);
    const { ended } = board.release(gamerKey(app, gamer), 'r1', T - 1_000);
    expect(ended).toEqual([{ applicationId: app, gamerId: gamer, at: new Date(T - 1_000) }]);
    expect(board.endedAt(app, gamer)).toBe(T - 1_000);
    // the directory still holds the session before: the friend list shows the one just ended (before: that older one)
    const older = new Date(T - 3_600_000);
    expect(presenceOf({ liveSeenAt: board.lastSeen(app, gamer), endedAt: board.endedAt(app, gamer), storedSeenAt: older }, T, WINDOW))
      .toEqual({ status: 'offline', lastSeenAt: new Date(T - 1_000).toISOString() });
    board.stored(ended);
    expect(board.endedAt(app, gamer)).toBeUndefined();
    // back online: nothing ended is kept
    board.hold(gamerKey(app, gamer), 'r1', T);
    board.release(gamerKey(app, gamer), 'r1', T + 1_000);
    board.hold(gamerKey(app, gamer), 'r1', T + 2_000);
    expect(board.endedAt(app, gamer)).toBeUndefined();
  });
});

