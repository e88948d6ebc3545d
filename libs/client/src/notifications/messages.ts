// The frames of GET /api/v1/notifications/live (issue #12): JSON text frames
// {"id", "type", "at", "data"}, only ever about the connected gamer.
import type { operations } from '../generated/openapi.ts';

/** A gamer as lists show them: `{ id, displayName, avatar }`. */
export type UserSummary = operations['listFriends']['responses'][200]['content']['application/json'][number]['user'];
/** An item put into the inventory: `{ inventoryItemId, quantity }`. */
export type GrantedItem = operations['claimTask']['responses'][200]['content']['application/json'][number];

/** The `data` of each notification type. */
export interface NotificationData {
  /** to the target of a friend request */
  'friend.request.received': { friendshipId: string; user: UserSummary };
  /** to the requester, when the target accepts (or crosses the request with their own) */
  'friend.request.accepted': { friendshipId: string; user: UserSummary };
  /** to the target, when the requester withdraws the request */
  'friend.request.cancelled': { friendshipId: string };
  /** to the other side of an unfriend, and of a block (which it does not reveal) */
  'friend.removed': { friendshipId: string; userId: string };
  /** coalesced by the service to at most one per task per second; not kept in the inbox */
  'task.progress': { gamerTaskId: string; taskId: string; progress: number; targetValue: number };
  'task.completed': { gamerTaskId: string; taskId: string };
  'achievement.completed': { gamerTaskId: string; taskId: string };
  'inventory.granted': { items: GrantedItem[] };
}

export type NotificationType = keyof NotificationData;

export const NOTIFICATION_TYPES: readonly NotificationType[] = [
  'friend.request.received', 'friend.request.accepted', 'friend.request.cancelled', 'friend.removed',
  'task.progress', 'task.completed', 'achievement.completed', 'inventory.granted',
];

/** One notification; `type` narrows `data` (`if (n.type === 'friend.removed') n.data.userId`). */
export type Notification = {
  [T in NotificationType]: {
    /** sortable unique id: what `?since=` resumes after */
    id: string;
    type: T;
    /** ISO 8601 time of the event */
    at: string;
    data: NotificationData[T];
  };
}[NotificationType];

/** A well-formed frame of a type this client does not know (the service may add types). */
export interface UnknownNotification {
  id: string;
  type: string;
  at: string;
  data: Record<string, unknown>;
}

export type ParsedFrame =
  | { kind: 'notification'; notification: Notification }
  | { kind: 'unknown'; notification: UnknownNotification }
  | { kind: 'invalid'; reason: string };

const KNOWN = new Set<string>(NOTIFICATION_TYPES);
const ISO_8601 = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads one text frame. The envelope is checked (a non-empty `id` and `type`, an ISO 8601
 * `at`, an object `data`); `data` itself is trusted to match its type, which the service's
 * contract guarantees. Unknown types are reported apart, so a newer service never breaks an
 * older client.
 */
export function parseFrame(text: string): ParsedFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'invalid', reason: 'not JSON' };
  }
  if (!isObject(value)) return { kind: 'invalid', reason: 'not a JSON object' };
  const { id, type, at, data } = value;
  if (typeof id !== 'string' || id === '') return { kind: 'invalid', reason: 'id is not a non-empty string' };
  if (typeof type !== 'string' || type === '') return { kind: 'invalid', reason: 'type is not a non-empty string' };
  if (typeof at !== 'string' || !ISO_8601.test(at) || Number.isNaN(Date.parse(at))) return { kind: 'invalid', reason: 'at is not an ISO 8601 time' };
  if (!isObject(data)) return { kind: 'invalid', reason: 'data is not an object' };
  const frame = { id, type, at, data };
  return KNOWN.has(type) ? { kind: 'notification', notification: frame as Notification } : { kind: 'unknown', notification: frame };
}
