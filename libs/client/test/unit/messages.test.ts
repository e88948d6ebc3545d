import { describe, expect, it } from 'vitest';
import { NOTIFICATION_TYPES, parseFrame, type Notification } from '../../src/notifications/messages.ts';

const at = '2026-11-23T12:00:00.000Z';
const user = { id: '6f1c1c1e-2a6c-4f55-9d1e-6a0f4b8c1d2e', displayName: 'Ann', avatar: '' };

describe('notification frames', () => {
  // the frames are typed by the document's Notification union: a field it lacks does not compile
  it('reads every type of the protocol, typed by its type', () => {
    const frames: Notification[] = [
      { id: '01', type: 'friend.request.received', at, data: { friendshipId: 'f1', user } },
      { id: '02', type: 'friend.request.accepted', at, data: { friendshipId: 'f1', user } },
      { id: '03', type: 'friend.request.cancelled', at, data: { friendshipId: 'f1', userId: user.id } },
      { id: '04', type: 'friend.removed', at, data: { friendshipId: 'f1', userId: user.id } },
      { id: '05', type: 'task.progress', at, data: { gamerTaskId: 'g1', taskId: 't1', progress: 2, targetValue: 3 } },
      { id: '06', type: 'task.completed', at, data: { gamerTaskId: 'g1', taskId: 't1' } },
      { id: '07', type: 'achievement.completed', at, data: { gamerTaskId: 'g2', taskId: 't2' } },
      { id: '08', type: 'inventory.granted', at, data: { gamerTaskId: 'g1', items: [{ inventoryItemId: 'i1', quantity: 5 }] } },
      { id: '09', type: 'presence.changed', at, data: { userId: user.id, status: 'offline', lastSeenAt: at } },
    ];
    expect(frames.map((f) => f.type)).toEqual([...NOTIFICATION_TYPES]);
    for (const frame of frames) expect(parseFrame(JSON.stringify(frame))).toEqual({ kind: 'notification', notification: frame });
  });

  it('narrows data by type', () => {
    const parsed = parseFrame(JSON.stringify({ id: '1', type: 'friend.removed', at, data: { friendshipId: 'f', userId: 'u' } }));
    if (parsed.kind !== 'notification' || parsed.notification.type !== 'friend.removed') throw new Error('not a friend.removed');
    // compiles only because `type` narrowed `data`
    expect(parsed.notification.data.userId).toBe('u');
  });

  it('keeps frames of types it does not know apart, so a newer service breaks nothing', () => {
    const frame = { id: '9', type: 'party.invited', at, data: { partyId: 'p' } };
    expect(parseFrame(JSON.stringify(frame))).toEqual({ kind: 'unknown', notification: frame });
  });

  it('accepts an offset time as well as UTC', () => {
    expect(parseFrame(JSON.stringify({ id: '1', type: 'task.completed', at: '2026-11-23T13:00:00+01:00', data: { gamerTaskId: 'g', taskId: 't' } })).kind).toBe('notification');
  });

  it.each([
    ['not JSON', '{"id":', 'not JSON'],
    ['an array', '[1,2]', 'not a JSON object'],
    ['null', 'null', 'not a JSON object'],
    ['no id', JSON.stringify({ type: 'task.completed', at, data: {} }), 'id'],
    ['an empty id', JSON.stringify({ id: '', type: 'task.completed', at, data: {} }), 'id'],
    ['a numeric id', JSON.stringify({ id: 7, type: 'task.completed', at, data: {} }), 'id'],
    ['no type', JSON.stringify({ id: '1', at, data: {} }), 'type'],
    ['a date without time', JSON.stringify({ id: '1', type: 'task.completed', at: '2026-11-23', data: {} }), 'at'],
    ['an impossible date', JSON.stringify({ id: '1', type: 'task.completed', at: '2026-13-45T00:00:00Z', data: {} }), 'at'],
    ['no data', JSON.stringify({ id: '1', type: 'task.completed', at }), 'data'],
    ['array data', JSON.stringify({ id: '1', type: 'task.completed', at, data: [] }), 'data'],
  ])('refuses %s', (_name, text, reason) => {
    const parsed = parseFrame(text);
    expect(parsed.kind).toBe('invalid');
    expect(parsed.kind === 'invalid' && parsed.reason).toContain(reason);
  });

  it('reads the service\'s answer to a heartbeat ping as a pong, not a notification; a frame with an id is never one', () => {
    expect(parseFrame('{"type":"pong","at":"2026-11-28T12:00:00.000Z"}')).toEqual({ kind: 'pong' });
    expect(parseFrame(JSON.stringify({ id: '1', type: 'pong', at: '2026-11-28T12:00:00.000Z', data: {} })).kind).toBe('unknown');
  });
});
