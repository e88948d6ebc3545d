import { randomUUID } from 'node:crypto';
import type { FriendshipEvent, PresenceChangedEvent } from '@gfts/contracts';
import { describe, expect, it } from 'vitest';
import { friendshipNotifications, presenceChangedNotifications, taskCompletedNotification } from '../../src/domain/translate.ts';

const app = randomUUID();
const ann = randomUUID();
const bob = randomUUID();
const at = '2026-11-23T12:00:00.000Z';
const relation = randomUUID();
const blockId = randomUUID();
const event = (type: FriendshipEvent['type'], extra: Partial<FriendshipEvent> = {}): FriendshipEvent =>
  ({ type, applicationId: app, friendshipId: relation, actorId: ann, targetId: bob, occurredAt: at, ...extra });

describe('friendship events as notifications', () => {
  it('tells the target of a request, with the sender\'s summary', () => {
    const actor = { id: ann, displayName: 'Ann', avatar: 'a.png' };
    expect(friendshipNotifications(event('requested', { actor }))).toEqual([
      { applicationId: app, gamerId: bob, type: 'friend.request.received', at, data: { friendshipId: relation, user: actor } },
    ]);
  });

  it('a block of a friend is the unfriend\'s notification exactly, with the friendship id', () => {
    const unfriend = friendshipNotifications(event('removed'));
    const block = friendshipNotifications(event('blocked', { friendshipId: blockId, removedRelation: { friendshipId: relation, status: 'accepted', requesterId: bob } }));
    expect(block).toEqual(unfriend);
    expect(JSON.stringify(block)).not.toContain(blockId);
  });

  it('a block of a gamer the blocker had asked is a cancel; of one who had asked the blocker, nothing', () => {
    const cancel = friendshipNotifications(event('cancelled'));
    expect(friendshipNotifications(event('blocked', { friendshipId: blockId, removedRelation: { friendshipId: relation, status: 'pending', requesterId: ann } }))).toEqual(cancel);
    expect(friendshipNotifications(event('blocked', { friendshipId: blockId, removedRelation: { friendshipId: relation, status: 'pending', requesterId: bob } }))).toEqual([]);
  });

  it('says nothing of a block without a relation, an unblock or a rejection', () => {
    expect(friendshipNotifications(event('blocked', { friendshipId: blockId }))).toEqual([]);
    expect(friendshipNotifications(event('unblocked', { friendshipId: blockId }))).toEqual([]);
    expect(friendshipNotifications(event('rejected'))).toEqual([]);
  });
});

describe('task events as notifications', () => {
  it('an achievement completes as achievement.completed, a task as task.completed', () => {
    const base = { applicationId: app, gamerId: ann, gamerTaskId: randomUUID(), taskId: randomUUID(), parentGamerTaskId: null, completedAt: at, eventId: 'e1' };
    expect(taskCompletedNotification({ ...base, isAchievement: true }).type).toBe('achievement.completed');
    expect(taskCompletedNotification({ ...base, isAchievement: false })).toEqual({
      applicationId: app, gamerId: ann, type: 'task.completed', at, data: { gamerTaskId: base.gamerTaskId, taskId: base.taskId },
    });
  });
});

describe('presence changes as notifications', () => {
  const cat = randomUUID();
  const change = (recipients: string[]): PresenceChangedEvent =>
    ({ applicationId: app, gamerId: ann, status: 'offline', lastSeenAt: at, occurredAt: at, recipients });

  it('tells each recipient once, with the contract\'s fields, and never the gamer themself', () => {
    expect(presenceChangedNotifications(change([bob, cat, bob, ann]))).toEqual([
      { applicationId: app, gamerId: bob, type: 'presence.changed', at, data: { userId: ann, status: 'offline', lastSeenAt: at } },
      { applicationId: app, gamerId: cat, type: 'presence.changed', at, data: { userId: ann, status: 'offline', lastSeenAt: at } },
    ]);
  });

  it('tells nobody when there is nobody to tell', () => {
    expect(presenceChangedNotifications(change([]))).toEqual([]);
  });
});
