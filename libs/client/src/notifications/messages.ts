// The frames of GET /api/v1/notifications/live (issue #12): JSON text frames
// {"id", "type", "at", "data"}, only ever about the connected gamer.
import type { components } from '../generated/openapi.ts';

/**
 * One notification, as docs/openapi.json describes it (components.schemas.Notification):
 * a union discriminated by `type`, so `if (n.type === 'friend.removed') n.data.userId`.
 */
export type Notification = components['schemas']['Notification'];
export type NotificationType = Notification['type'];
/** The `data` of each notification type. */
export type NotificationData = { [T in NotificationType]: Extract<Notification, { type: T }>['data'] };
/** A gamer as lists show them: `{ id, displayName, avatar }`. */
export type UserSummary = NotificationData['friend.request.received']['user'];
/** A friend went online or offline: `{ userId, status, lastSeenAt }` (live only, never in the inbox). */
export type PresenceChange = NotificationData['presence.changed'];
/** An item put into the inventory: `{ inventoryItemId, quantity }`. */
export type GrantedItem = NotificationData['inventory.granted']['items'][number];

/** Every type of the protocol (issue #12), checked against the document's union below. */
export const NOTIFICATION_TYPES = [
  'friend.request.received', 'friend.request.accepted', 'friend.request.cancelled', 'friend.removed',
  'task.progress', 'task.completed', 'achievement.completed', 'inventory.granted', 'presence.changed',
] as const satisfies readonly NotificationType[];
// Fails to compile when the document gains a type this list lacks.
const _everyType: [Exclude<NotificationType, (typeof NOTIFICATION_TYPES)[number]>] extends [never] ? true : false = true;

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
  /** the service's answer to the client's heartbeat ping (LivePong): no id, no notification */
  | { kind: 'pong' }
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
  if (type === 'pong' && id === undefined) return { kind: 'pong' };
  if (typeof id !== 'string' || id === '') return { kind: 'invalid', reason: 'id is not a non-empty string' };
  if (typeof type !== 'string' || type === '') return { kind: 'invalid', reason: 'type is not a non-empty string' };
  if (typeof at !== 'string' || !ISO_8601.test(at) || Number.isNaN(Date.parse(at))) return { kind: 'invalid', reason: 'at is not an ISO 8601 time' };
  if (!isObject(data)) return { kind: 'invalid', reason: 'data is not an object' };
  const frame = { id, type, at, data };
  return KNOWN.has(type) ? { kind: 'notification', notification: frame as Notification } : { kind: 'unknown', notification: frame };
}
