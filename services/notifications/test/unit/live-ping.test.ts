import { NotificationType, type Notification } from '@gfts/contracts';
import type { WebSocket } from 'ws';
import { describe, expect, it } from 'vitest';
import { isLivePing, PongPacer, pongFrame } from '../../src/domain/live-ping.ts';
import type { LiveMetrics } from '../../src/live/metrics.ts';
import { Session } from '../../src/live/session.ts';
import { FakeSocket } from '../support/fake-socket.ts';

const text = (value: string) => Buffer.from(value);

describe('the client heartbeat ping', () => {
  it('is a JSON text frame of an object whose type is ping, other fields allowed', () => {
    expect(isLivePing(text('{"type":"ping"}'), false)).toBe(true);
    expect(isLivePing(text('{"type":"ping","n":3}'), false)).toBe(true);
    expect(isLivePing([text('{"type":'), text('"ping"}')], false)).toBe(true);
  });

  it('is nothing else: binary, not JSON, another type, not an object', () => {
    expect(isLivePing(text('{"type":"ping"}'), true)).toBe(false);
    expect(isLivePing(text('ping'), false)).toBe(false);
    expect(isLivePing(text('{"type":"PING"}'), false)).toBe(false);
    expect(isLivePing(text('{"type":{"$ne":1}}'), false)).toBe(false);
    expect(isLivePing(text('["ping"]'), false)).toBe(false);
    expect(isLivePing(text('null'), false)).toBe(false);
    expect(isLivePing(text('"ping"'), false)).toBe(false);
  });

  it('is answered with a pong that carries no id (never a resume point)', () => {
    expect(JSON.parse(pongFrame(new Date('2026-11-28T12:00:00.000Z')))).toEqual({ type: 'pong', at: '2026-11-28T12:00:00.000Z' });
  });

  it('paces pongs on a monotonic clock, not the wall clock: a clock stepped back stops no pong', () => {
    const socket = new FakeSocket();
    const session = new Session(socket as unknown as WebSocket, { applicationId: 'app', gamerId: 'g' }, { sendBufferBytes: 1_000_000, progressIntervalMs: 1000, replayPage: 2 }, { closed: () => {}, sent: () => {} }, false);
    session.answerPing(new Date(1_000_000), 5_000);
    // the wall clock went back an hour; a second later on the monotonic clock
    session.answerPing(new Date(1_000_000 - 3_600_000), 6_000);
    expect(socket.sent).toHaveLength(2);
  });

  it('gets at most one pong per interval, and always one after it', () => {
    const pacer = new PongPacer(1_000);
    expect([0, 10, 999, 1_000, 1_500, 2_000, 5_000].map((ms) => pacer.answers(ms))).toEqual([true, false, false, true, false, true, true]);
  });
});

describe('Session pong', () => {
  const limits = { sendBufferBytes: 1_000_000, progressIntervalMs: 1000, replayPage: 2 };
  const gamer = { applicationId: 'app', gamerId: 'g' };

  it('answers a ping in order with the notifications, not counted as one sent, and not more than once a second', () => {
    const socket = new FakeSocket();
    let sent = 0;
    const metrics: LiveMetrics = { closed: () => {}, sent: () => void (sent += 1) };
    const session = new Session(socket as unknown as WebSocket, gamer, limits, metrics, false);
    const done: Notification = { id: '0190a000-0000-7000-8000-000000000001', type: NotificationType.TASK_COMPLETED, at: '2026-11-28T12:00:00.000Z', data: { gamerTaskId: 'g1', taskId: 't' } };
    session.deliver({ notification: done, text: JSON.stringify(done) });
    session.answerPing(new Date(10_000), 10_000);
    session.answerPing(new Date(10_500), 10_500);
    session.answerPing(new Date(11_000), 11_000);
    expect(socket.sent.map((frame) => (JSON.parse(frame) as { type: string }).type)).toEqual(['task.completed', 'pong', 'pong']);
    expect(sent).toBe(1);
  });

  it('closes a client that stopped reading with 4008 for its pongs too', () => {
    const socket = new FakeSocket();
    Object.defineProperty(socket, 'bufferedAmount', { value: 1_000_000 });
    const closes: number[] = [];
    socket.close = ((code: number) => void closes.push(code)) as FakeSocket['close'];
    const session = new Session(socket as unknown as WebSocket, gamer, limits, { closed: () => {}, sent: () => {} }, false);
    session.answerPing(new Date(10_000), 10_000);
    expect(socket.sent).toEqual([]);
    expect(closes).toEqual([4008]);
  });
});
