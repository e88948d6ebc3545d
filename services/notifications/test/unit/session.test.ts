import { NotificationType, type Notification } from '@gfts/contracts';
import type { WebSocket } from 'ws';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { uuidv7Floor } from '../../src/domain/ids.ts';
import type { LiveMetrics } from '../../src/live/metrics.ts';
import { Session } from '../../src/live/session.ts';
import { FakeSocket } from '../support/fake-socket.ts';

const metrics: LiveMetrics = { closed: () => {}, sent: () => {} };
const limits = { sendBufferBytes: 1_000_000, progressIntervalMs: 1000, replayPage: 2 };
const gamer = { applicationId: 'app', gamerId: 'g' };
/**
 * Stored notifications are named '01', '02' … here, and carry ids of this minute (UUIDv7 of
 * now + that many ms): a replay keeps only recent ids for its live check, as real ones are.
 */
const base = Date.now();
const labels = new Map<string, string>();
const idOf = (label: string) => (label.length > 2 ? label : uuidv7Floor(base + Number(label)));
const completed = (label: string): Notification => {
  const id = idOf(label);
  labels.set(id, label);
  return { id, type: NotificationType.TASK_COMPLETED, at: '2026-11-23T00:00:00.000Z', data: { gamerTaskId: `t-${label}`, taskId: 'x' } };
};
const outgoing = (n: Notification) => ({ notification: n, text: JSON.stringify(n) });
const ids = (socket: FakeSocket) => socket.sent.map((t) => {
  const { id } = JSON.parse(t) as Notification;
  return labels.get(id) ?? id;
});

/** An inbox holding `stored` (ids ascending) that answers the pages after an id. */
const inboxOf = (stored: Notification[], onRead?: () => void) => ({
  after: async (_gamer: unknown, after: string, limit: number) => {
    onRead?.();
    return stored.filter((n) => n.id > after).slice(0, limit);
  },
});

function resumingSession() {
  const socket = new FakeSocket();
  const session = new Session(socket as unknown as WebSocket, gamer, limits, metrics, true);
  return { socket, session };
}

describe('Session resume', () => {
  it('replays what was missed, then what came live meanwhile, each once', async () => {
    const { socket, session } = resumingSession();
    const stored = [completed('01'), completed('02'), completed('03')];
    // 03 is stored and also arrives live during the replay; 04 only arrives live
    let reads = 0;
    await session.replay(inboxOf(stored, () => {
      if (reads++ > 0) return;
      session.deliver(outgoing(completed('03')));
      session.deliver(outgoing(completed('04')));
    }), idOf('00'));
    expect(ids(socket)).toEqual(['01', '02', '03', '04']);
  });

  it('drops a replayed notification whose live copy arrives after the replay ended', async () => {
    const { socket, session } = resumingSession();
    // stored before the inbox read, published by the ingest only after the replay finished
    await session.replay(inboxOf([completed('01'), completed('02')]), idOf('00'));
    session.deliver(outgoing(completed('02')));
    session.deliver(outgoing(completed('03')));
    expect(ids(socket)).toEqual(['01', '02', '03']);
  });

  it('drops a replayed notification\'s live copy that comes after a newer one (another ingest replica published it first)', async () => {
    const { socket, session } = resumingSession();
    await session.replay(inboxOf([completed('01')]), idOf('00'));
    // replica B publishes 02 while replica A, which stored 01 before the replay read it, has not published it yet
    session.deliver(outgoing(completed('02')));
    session.deliver(outgoing(completed('01')));
    expect(ids(socket)).toEqual(['01', '02']);
  });

  it('forgets the replayed ids a minute after the replay, when no live copy can still come', async () => {
    vi.useFakeTimers({ now: Date.now(), toFake: ['Date'] });
    try {
      const { socket, session } = resumingSession();
      await session.replay(inboxOf([completed('01')]), idOf('00'));
      vi.advanceTimersByTime(59_000);
      session.deliver(outgoing(completed('01')));
      vi.advanceTimersByTime(2_000);
      // not a case the ingest produces (it publishes within the minute): shows the set is gone
      session.deliver(outgoing(completed('01')));
      expect(ids(socket)).toEqual(['01', '01']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps for its live check only the replayed ids recent enough to still arrive live', async () => {
    const { socket, session } = resumingSession();
    // a resume from two hours back: one old notification, one of this minute
    const old = completed(uuidv7Floor(base - 2 * 3_600_000));
    await session.replay(inboxOf([old, completed('05')]), uuidv7Floor(base - 3 * 3_600_000));
    // the recent one's live copy is dropped; the old one is not remembered (published two
    // hours ago, it cannot come live now: a copy would be sent again)
    session.deliver(outgoing(completed('05')));
    session.deliver(outgoing(old));
    expect(ids(socket)).toEqual([old.id, '05', old.id]);
  });

  it('sends live task.progress whatever was replayed (it is never stored)', async () => {
    const { socket, session } = resumingSession();
    await session.replay(inboxOf([completed('05')]), idOf('00'));
    const progress: Notification = { id: '03', type: NotificationType.TASK_PROGRESS, at: '2026-11-23T00:00:00.000Z', data: { gamerTaskId: 'p', taskId: 'x', progress: 1, targetValue: 5 } };
    session.deliver(outgoing(progress));
    expect(ids(socket)).toEqual(['05', '03']);
    session.close(1000, 'done');
  });

  it('drops a live task.progress of a task whose completion the replay sent', async () => {
    const { socket, session } = resumingSession();
    const progress = (id: string, gamerTaskId: string): Notification => ({ id, type: NotificationType.TASK_PROGRESS, at: '2026-11-23T00:00:00.000Z', data: { gamerTaskId, taskId: 'x', progress: 4, targetValue: 5 } });
    // completed('01') is task t-01; its late progress (an earlier stat batch's) comes after the resume
    await session.replay(inboxOf([completed('01')]), idOf('00'));
    session.deliver(outgoing(progress('02', 't-01')));
    // the live copy of the replayed completion, then the same late progress again
    session.deliver(outgoing(completed('01')));
    session.deliver(outgoing(progress('03', 't-01')));
    // another task's progress still goes out
    session.deliver(outgoing(progress('04', 't-other')));
    expect(ids(socket)).toEqual(['01', '04']);
    session.close(1000, 'done');
  });
});

describe('Session catch-up after NATS was away', () => {
  const liveSession = () => {
    const socket = new FakeSocket();
    return { socket, session: new Session(socket as unknown as WebSocket, gamer, limits, metrics, false) };
  };

  it('sends what was stored after the last stored notification it sent, then what came live before its turn, in order and once', async () => {
    const { socket, session } = liveSession();
    session.deliver(outgoing(completed('05')));
    session.markGap();
    // live again before the catch-up's turn came: 07 arrived, 06 was missed. 07 is held: sent
    // before 06, a client that dropped in between would resume after 07 and never get 06
    session.deliver(outgoing(completed('07')));
    expect(ids(socket)).toEqual(['05']);
    await session.catchUp(inboxOf([completed('03'), completed('05'), completed('06'), completed('07')]));
    // 06's live copy, published late, is not sent twice either
    session.deliver(outgoing(completed('06')));
    session.deliver(outgoing(completed('08')));
    expect(ids(socket)).toEqual(['05', '06', '07', '08']);
  });

  it('whose turn comes after NATS left again keeps its gap for the next catch-up', async () => {
    const { socket, session } = liveSession();
    session.deliver(outgoing(completed('05')));
    session.markGap();
    // the first reconnect's catch-up reaches this socket only after NATS dropped again
    session.markGap();
    await session.catchUp(inboxOf([completed('05'), completed('06')]), () => false);
    expect(ids(socket)).toEqual(['05']);
    // what was stored during both absences comes with the next reconnect's catch-up
    await session.catchUp(inboxOf([completed('05'), completed('06'), completed('07')]), () => true);
    session.deliver(outgoing(completed('08')));
    expect(ids(socket)).toEqual(['05', '06', '07', '08']);
  });

  it('with no stored notification sent yet, sends what was stored since it opened', async () => {
    const { socket, session } = liveSession();
    const older = completed(uuidv7Floor(session.openedAt - 1_000));
    const newer = completed(uuidv7Floor(session.openedAt + 1));
    session.markGap();
    await session.catchUp(inboxOf([older, newer]));
    expect(ids(socket)).toEqual([newer.id]);
  });

  it('keeps across catch-ups only the replayed ids that can still arrive live', async () => {
    vi.useFakeTimers({ now: Date.now(), toFake: ['Date'] });
    try {
      const { socket, session } = resumingSession();
      const start = Date.now();
      const first = completed(uuidv7Floor(start));
      await session.replay(inboxOf([first]), uuidv7Floor(start - 1_000));
      // NATS flaps: a catch-up 50 s later, another 50 s after that, each within the last one's minute
      const second = completed(uuidv7Floor(start + 50_000));
      const third = completed(uuidv7Floor(start + 100_000));
      vi.setSystemTime(start + 50_000);
      session.markGap();
      await session.catchUp(inboxOf([first, second]));
      vi.setSystemTime(start + 100_000);
      session.markGap();
      await session.catchUp(inboxOf([first, second, third]));
      // the first, 100 s old, is no longer kept (a live copy of it cannot come now); the second is
      session.deliver(outgoing(first));
      session.deliver(outgoing(second));
      expect(ids(socket)).toEqual([first.id, second.id, third.id, first.id]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps a resume\'s replayed ids through a catch-up that sent nothing', async () => {
    const { socket, session } = resumingSession();
    await session.replay(inboxOf([completed('01')]), idOf('00'));
    session.markGap();
    await session.catchUp(inboxOf([completed('01')]));
    // the ingest replica that stored 01 before the resume read it publishes it only now
    session.deliver(outgoing(completed('01')));
    session.deliver(outgoing(completed('02')));
    expect(ids(socket)).toEqual(['01', '02']);
  });

  it('after a resume with nothing stored sent since, reads from the resume point', async () => {
    const { socket, session } = resumingSession();
    await session.replay(inboxOf([]), idOf('04'));
    session.markGap();
    await session.catchUp(inboxOf([completed('03'), completed('05')]));
    expect(ids(socket)).toEqual(['05']);
  });

  it('does nothing without a gap, and rejects when the inbox cannot be read', async () => {
    const { socket, session } = liveSession();
    await session.catchUp({ after: async () => { throw new Error('never read'); } });
    session.markGap();
    await expect(session.catchUp({ after: async () => { throw new Error('store away'); } })).rejects.toThrow('store away');
    expect(socket.sent).toEqual([]);
  });
});

describe('Session with a gap opened during a resume\'s replay', () => {
  it('holds what arrives live until the gap\'s catch-up sent what the inbox got, and sends nothing twice', async () => {
    const { socket, session } = resumingSession();
    let reads = 0;
    // NATS leaves while the resume reads its first page; 03 arrived live before it left
    await session.replay(inboxOf([completed('01'), completed('02'), completed('03')], () => {
      if (reads++ > 0) return;
      session.deliver(outgoing(completed('03')));
      session.markGap();
    }), idOf('00'));
    expect(ids(socket)).toEqual(['01', '02', '03']);
    // NATS is back before this socket's catch-up turn: 05 arrives live, 04 was missed
    session.deliver(outgoing(completed('05')));
    expect(ids(socket)).toEqual(['01', '02', '03']);
    await session.catchUp(inboxOf([completed('01'), completed('02'), completed('03'), completed('04'), completed('05')]));
    session.deliver(outgoing(completed('03')));
    session.deliver(outgoing(completed('06')));
    expect(ids(socket)).toEqual(['01', '02', '03', '04', '05', '06']);
  });
});

describe('Session bounds', () => {
  afterEach(() => vi.useRealTimers());

  /** A socket whose client reads `perTick` bytes every 20 ms. */
  class ReadingSocket extends FakeSocket {
    override bufferedAmount = 0;
    closedWith: number | undefined;
    constructor(perTick: number) {
      super();
      const timer = setInterval(() => {
        this.bufferedAmount = Math.max(0, this.bufferedAmount - perTick);
      }, 20);
      this.on('close', () => clearInterval(timer));
    }
    override send(text: string): void {
      super.send(text);
      this.bufferedAmount += Buffer.byteLength(text);
    }
    override close(code?: number): void {
      this.closedWith = code;
      super.close();
    }
  }
  const small = { ...limits, sendBufferBytes: 2_000, replayPage: 50 };
  const many = Array.from({ length: 40 }, (_, i) => completed(String(10 + i).padStart(2, '0')));

  it('paces a replay to what its client reads, instead of cutting a healthy client as slow', async () => {
    vi.useFakeTimers();
    const socket = new ReadingSocket(500);
    const session = new Session(socket as unknown as WebSocket, gamer, small, metrics, true);
    const replay = session.replay(inboxOf(many), idOf('00'));
    await vi.advanceTimersByTimeAsync(5_000);
    await replay;
    expect(socket.closedWith).toBeUndefined();
    expect(socket.sent).toHaveLength(40);
    session.close(1000, 'done');
  });

  it('cuts a client that reads nothing of a replay for 10 s as slow (4008)', async () => {
    vi.useFakeTimers();
    const socket = new ReadingSocket(0);
    const session = new Session(socket as unknown as WebSocket, gamer, small, metrics, true);
    const replay = session.replay(inboxOf(many), idOf('00'));
    await vi.advanceTimersByTimeAsync(9_000);
    expect(socket.closedWith).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1_100);
    await replay;
    expect(socket.closedWith).toBe(4008);
  });

  it('paces the release of what was held during the replay as the replay itself', async () => {
    vi.useFakeTimers();
    const socket = new ReadingSocket(500);
    const closed: number[] = [];
    const session = new Session(socket as unknown as WebSocket, gamer, small, { closed: (code) => closed.push(code), sent: () => {} }, true);
    const stored = many.slice(0, 20);
    const live = many.slice(20, 28);
    let reads = 0;
    // while the replay reads, eight newer ones arrive live (about 1.4 KB held, under the 2 KB bound)
    const replay = session.replay(inboxOf(stored, () => {
      if (reads++ === 0) for (const n of live) session.deliver(outgoing(n));
    }), idOf('00'));
    await vi.advanceTimersByTimeAsync(5_000);
    await replay;
    expect(closed).toEqual([]);
    expect(ids(socket)).toEqual([...stored, ...live].map((n) => labels.get(n.id)));
    // live again once released
    session.deliver(outgoing(completed('90')));
    expect(ids(socket).at(-1)).toBe('90');
    session.close(1000, 'done');
  });

  it('reads no further for a socket its client is closing, and cuts nothing as slow', async () => {
    vi.useFakeTimers();
    const socket = new ReadingSocket(0);
    const closed: number[] = [];
    const session = new Session(socket as unknown as WebSocket, gamer, { ...small, replayPage: 5 }, { closed: (code) => closed.push(code), sent: () => {} }, true);
    let reads = 0;
    const replay = session.replay(inboxOf(many, () => void reads++), idOf('00'));
    await vi.advanceTimersByTimeAsync(100);
    socket.readyState = 2; // CLOSING: the client's close frame arrived
    const readsAtClose = reads;
    await vi.advanceTimersByTimeAsync(20_000);
    await replay;
    expect(reads).toBe(readsAtClose);
    expect(closed).toEqual([]);
  });

  // one frame larger than a small send buffer (NOTIFY_SEND_BUFFER_BYTES may be 1,024; a grant of
  // 20 items or a request with a long avatar is more)
  const large = (label: string): Notification => ({ ...completed(label), data: { gamerTaskId: `t-${label}`, taskId: 'x'.repeat(1_500) } }) as Notification;
  const tiny = { ...limits, sendBufferBytes: 1_024 };

  it('sends a frame larger than the send buffer when nothing waits, live and replayed; cuts as slow what piles up behind it', async () => {
    const socket = new ReadingSocket(0);
    const session = new Session(socket as unknown as WebSocket, gamer, tiny, metrics, true);
    await session.replay(inboxOf([large('01')]), idOf('00'));
    expect([ids(socket), socket.closedWith]).toEqual([['01'], undefined]);
    // the client read it: the next large one goes too
    socket.bufferedAmount = 0;
    session.deliver(outgoing(large('02')));
    expect([ids(socket), socket.closedWith]).toEqual([['01', '02'], undefined]);
    // unread, anything more is over the bound
    session.deliver(outgoing(completed('03')));
    expect(socket.closedWith).toBe(4008);
  });

  it('holds one frame larger than the send buffer during a catch-up, and closes 1013 only for more', () => {
    const socket = new ReadingSocket(0);
    const session = new Session(socket as unknown as WebSocket, gamer, tiny, metrics, false);
    session.markGap();
    session.deliver(outgoing(large('01')));
    expect(socket.closedWith).toBeUndefined();
    session.deliver(outgoing(completed('02')));
    expect(socket.closedWith).toBe(1013);
  });

  it('closes with 1013 a socket whose held notifications outgrow the send buffer while it waits for its catch-up', async () => {
    const socket = new ReadingSocket(0);
    const session = new Session(socket as unknown as WebSocket, gamer, small, metrics, false);
    session.markGap();
    for (let i = 0; i < 40 && !session.isClosed; i++) session.deliver(outgoing(completed(String(10 + i))));
    expect(socket.closedWith).toBe(1013);
    expect(socket.sent).toEqual([]);
  });
});

describe('Session on a socket its client is closing', () => {
  it('holds nothing for it either: no false 1013 while its close handshake runs', async () => {
    const socket = new FakeSocket();
    const closed: number[] = [];
    const session = new Session(socket as unknown as WebSocket, gamer, { ...limits, sendBufferBytes: 1_024 }, { closed: (code) => closed.push(code), sent: () => {} }, true);
    socket.readyState = 2;
    for (let i = 0; i < 20; i++) session.deliver(outgoing(completed(String(10 + i))));
    await session.replay(inboxOf([completed('01')]), idOf('00'));
    expect([socket.sent, closed]).toEqual([[], []]);
  });

  it('writes nothing more, and closes nothing as slow', () => {
    const socket = new FakeSocket();
    const closed: number[] = [];
    const session = new Session(socket as unknown as WebSocket, gamer, { ...limits, sendBufferBytes: 1_024 }, { closed: (code) => closed.push(code), sent: () => {} }, false);
    session.deliver(outgoing(completed('01')));
    socket.readyState = 2; // CLOSING: the client's close frame arrived, the handshake runs
    for (let i = 0; i < 20; i++) session.deliver(outgoing(completed(String(10 + i))));
    expect(ids(socket)).toEqual(['01']);
    expect(closed).toEqual([]);
  });
});
