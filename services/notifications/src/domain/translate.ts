import {
  FriendshipEventType,
  NotificationType,
  type FriendshipEvent,
  type InventoryGrantedEvent,
  type NotificationDataOf,
  type PresenceChangedEvent,
  type TaskCompletedEvent,
  type TaskProgressEvent,
  type UserSummary,
} from '@gfts/contracts';

/** A notification decided for one gamer, before it gets its id. */
export type Draft = {
  [T in NotificationType]: { applicationId: string; gamerId: string; type: T; at: string; data: NotificationDataOf[T] };
}[NotificationType];

const to = <T extends NotificationType>(applicationId: string, gamerId: string, type: T, at: string, data: NotificationDataOf[T]) =>
  ({ applicationId, gamerId, type, at, data }) as Draft;

/** A gamer summary for an event that did not carry one (an older friendship service). */
const summaryOf = (event: FriendshipEvent): UserSummary => event.actor ?? { id: event.actorId, displayName: '', avatar: '' };

/**
 * What the other side of a friendship change is told (issue 12). Every notification goes to
 * the event's target and is about the actor's act on their shared relation only:
 *
 * - requested: the target receives the request, with the sender's summary;
 * - accepted: the requester learns it was accepted, with the accepter's summary;
 * - cancelled: the target learns the request was withdrawn;
 * - removed: the other friend learns the friendship ended;
 * - rejected: nothing (a sender is not told of a refusal);
 * - blocked: the blocked gamer learns only what they lost, the way they would have learnt it
 *   without a block: a friendship ended (friend.removed, with the friendship's id, never the
 *   block's), a request to them withdrawn (friend.request.cancelled); their own pending
 *   request vanishes silently, as a rejected one does; no relation, nothing at all;
 * - unblocked: nothing.
 */
export function friendshipNotifications(event: FriendshipEvent): Draft[] {
  const { applicationId, friendshipId, actorId, targetId, occurredAt: at } = event;
  switch (event.type) {
    case FriendshipEventType.REQUESTED:
      return [to(applicationId, targetId, NotificationType.FRIEND_REQUEST_RECEIVED, at, { friendshipId, user: summaryOf(event) })];
    case FriendshipEventType.ACCEPTED:
      return [to(applicationId, targetId, NotificationType.FRIEND_REQUEST_ACCEPTED, at, { friendshipId, user: summaryOf(event) })];
    case FriendshipEventType.CANCELLED:
      return [to(applicationId, targetId, NotificationType.FRIEND_REQUEST_CANCELLED, at, { friendshipId, userId: actorId })];
    case FriendshipEventType.REMOVED:
      return [to(applicationId, targetId, NotificationType.FRIEND_REMOVED, at, { friendshipId, userId: actorId })];
    case FriendshipEventType.BLOCKED: {
      const removed = event.removedRelation;
      if (!removed) return [];
      const relationId = removed.friendshipId;
      if (removed.status === 'accepted') return [to(applicationId, targetId, NotificationType.FRIEND_REMOVED, at, { friendshipId: relationId, userId: actorId })];
      if (removed.requesterId === actorId) return [to(applicationId, targetId, NotificationType.FRIEND_REQUEST_CANCELLED, at, { friendshipId: relationId, userId: actorId })];
      return [];
    }
    default:
      return [];
  }
}

export function taskCompletedNotification(event: TaskCompletedEvent): Draft {
  const type = event.isAchievement ? NotificationType.ACHIEVEMENT_COMPLETED : NotificationType.TASK_COMPLETED;
  return to(event.applicationId, event.gamerId, type, event.completedAt, { gamerTaskId: event.gamerTaskId, taskId: event.taskId });
}

export function taskProgressNotification(event: TaskProgressEvent): Draft {
  const { gamerTaskId, taskId, progress, targetValue } = event;
  return to(event.applicationId, event.gamerId, NotificationType.TASK_PROGRESS, event.occurredAt, { gamerTaskId, taskId, progress, targetValue });
}

export function inventoryGrantedNotification(event: InventoryGrantedEvent): Draft {
  return to(event.applicationId, event.gamerId, NotificationType.INVENTORY_GRANTED, event.grantedAt, { items: event.items, gamerTaskId: event.gamerTaskId });
}

/**
 * A settled presence change: one live-only `presence.changed` to each recipient the
 * friendship service chose (friends online, never across a block). The gamer is never
 * told of their own presence.
 */
export function presenceChangedNotifications(event: PresenceChangedEvent): Draft[] {
  const { applicationId, gamerId, status, lastSeenAt, occurredAt } = event;
  const recipients = new Set(event.recipients);
  recipients.delete(gamerId);
  return [...recipients].map((friend) => to(applicationId, friend, NotificationType.PRESENCE_CHANGED, occurredAt, { userId: gamerId, status, lastSeenAt }));
}
