import { NotificationType, type Notification } from '@gfts/contracts';

/**
 * What makes two notifications one completion told twice (docs/notifications.md, "Once per
 * completion"): the tasks service announces a completion, and the reward a claim grants, at
 * least once (docs/tasks.md, "Announced at the write"), and every copy of an event becomes a
 * notification with an id of its own. Two notifications of one gamer are the same when they
 * have the same type, gamer task and time: a copy carries the time the tasks service stored
 * (its completion's, its claim's). The time keeps apart what is not a copy: an achievement
 * completed and claimed again after an admin's progress reset keeps its gamer task id. The
 * answer is unique within the gamer's inbox (the inbox index adds the application and the
 * gamer); every other notification is its own, and has no key.
 */
export function completionKey(notification: Notification): string | undefined {
  switch (notification.type) {
    case NotificationType.TASK_COMPLETED:
    case NotificationType.ACHIEVEMENT_COMPLETED:
    case NotificationType.INVENTORY_GRANTED:
      return `${notification.type}:${notification.data.gamerTaskId}:${notification.at}`;
    default:
      return undefined;
  }
}
