import { randomUUID } from 'node:crypto';
import { NotificationType, type Notification } from '@gfts/contracts';
import { describe, expect, it } from 'vitest';
import { completionKey } from '../../src/domain/completion-key.ts';

const gamerTaskId = randomUUID();
const taskId = randomUUID();
const completed = (type: 'task.completed' | 'achievement.completed', at = '2026-11-28T12:00:00.000Z'): Notification =>
  ({ id: randomUUID(), type, at, data: { gamerTaskId, taskId } });
const granted = (at = '2026-11-28T12:00:00.000Z', of = gamerTaskId): Notification =>
  ({ id: randomUUID(), type: NotificationType.INVENTORY_GRANTED, at, data: { gamerTaskId: of, items: [{ inventoryItemId: randomUUID(), quantity: 1 }] } });

describe('completionKey: when two notifications are one completion told twice', () => {
  it('keys two copies of a completion, or of a grant, alike whatever their ids', () => {
    // the key itself, not only two equal answers (undefined for both would be equal too)
    expect(completionKey(completed('task.completed'))).toBe(`task.completed:${gamerTaskId}:2026-11-28T12:00:00.000Z`);
    expect(completionKey(completed('task.completed'))).toBe(completionKey(completed('task.completed')));
    expect(completionKey(completed('achievement.completed'))).toBe(`achievement.completed:${gamerTaskId}:2026-11-28T12:00:00.000Z`);
    expect(completionKey(granted())).toBe(`inventory.granted:${gamerTaskId}:2026-11-28T12:00:00.000Z`);
    expect(completionKey(granted())).toBe(completionKey(granted()));
  });

  it('keys one gamer task completed or granted again at another time apart: an achievement after a progress reset', () => {
    expect(completionKey(completed('achievement.completed', '2026-11-28T12:00:00.000Z'))).not.toBe(completionKey(completed('achievement.completed', '2026-11-29T08:00:00.000Z')));
    expect(completionKey(granted('2026-11-28T12:00:00.000Z'))).not.toBe(completionKey(granted('2026-11-29T08:00:00.000Z')));
  });

  it('keys each type of one gamer task apart, and each gamer task apart', () => {
    const keys = [completionKey(completed('task.completed')), completionKey(completed('achievement.completed')), completionKey(granted()), completionKey(granted(undefined, randomUUID()))];
    expect(keys.every((k) => typeof k === 'string')).toBe(true);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('leaves every other notification without a key: each is its own', () => {
    const others: Notification[] = [
      { id: randomUUID(), type: NotificationType.FRIEND_REQUEST_RECEIVED, at: '2026-11-28T12:00:00.000Z', data: { friendshipId: randomUUID(), user: { id: randomUUID(), displayName: 'Ann', avatar: '' } } },
      { id: randomUUID(), type: NotificationType.FRIEND_REMOVED, at: '2026-11-28T12:00:00.000Z', data: { friendshipId: randomUUID(), userId: randomUUID() } },
      { id: randomUUID(), type: NotificationType.TASK_PROGRESS, at: '2026-11-28T12:00:00.000Z', data: { gamerTaskId, taskId, progress: 1, targetValue: 2 } },
    ];
    for (const notification of others) expect(completionKey(notification)).toBeUndefined();
  });
});
