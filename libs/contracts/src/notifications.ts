import Type, { type Static, type TSchema } from 'typebox';
import { DateTime, OkResponse, PageQuery, Uuid } from './common.ts';
import { Problem } from './errors.ts';
import { Presence, UserSummary } from './friendship.ts';
import { RewardItem } from './tasks.ts';

/**
 * Notifications to game clients (issue 12; docs/notifications.md): the live WebSocket, the
 * 30-day inbox and the ticket browsers connect with. Every shape once, here.
 */
export const NotificationType = {
  FRIEND_REQUEST_RECEIVED: 'friend.request.received',
  FRIEND_REQUEST_ACCEPTED: 'friend.request.accepted',
  FRIEND_REQUEST_CANCELLED: 'friend.request.cancelled',
  FRIEND_REMOVED: 'friend.removed',
  TASK_PROGRESS: 'task.progress',
  TASK_COMPLETED: 'task.completed',
  ACHIEVEMENT_COMPLETED: 'achievement.completed',
  INVENTORY_GRANTED: 'inventory.granted',
  PRESENCE_CHANGED: 'presence.changed',
} as const;
export type NotificationType = (typeof NotificationType)[keyof typeof NotificationType];

/**
 * A notification id: a UUID version 7 made monotonic within its process, so ids sort by the
 * time they were made (the inbox's order, the paging cursor and the resume point).
 */
export const NotificationId = Type.String({ format: 'uuid', description: 'notification id (UUIDv7: sorts by creation time)' });

const friendshipId = Uuid;
export const FriendRequestReceivedData = Type.Object({ friendshipId, user: UserSummary }, { additionalProperties: false, description: 'to the target of a friend request; user is the sender' });
export const FriendRequestAcceptedData = Type.Object({ friendshipId, user: UserSummary }, { additionalProperties: false, description: 'to the sender of a request; user is the gamer who accepted' });
export const FriendRequestCancelledData = Type.Object({ friendshipId, userId: Uuid }, { additionalProperties: false, description: 'to the target of a request its sender withdrew; userId is the sender' });
export const FriendRemovedData = Type.Object({ friendshipId, userId: Uuid }, { additionalProperties: false, description: 'to the other side of an unfriend (or of a block, which it does not reveal); userId is who removed' });
export const TaskProgressData = Type.Object(
  { gamerTaskId: Uuid, taskId: Uuid, progress: Type.Integer({ minimum: 0 }), targetValue: Type.Integer({ minimum: 0 }) },
  { additionalProperties: false, description: 'live only (never in the inbox), at most one per task per second' },
);
export const TaskCompletedData = Type.Object({ gamerTaskId: Uuid, taskId: Uuid }, { additionalProperties: false });
export const InventoryGrantedData = Type.Object(
  { items: Type.Array(RewardItem), gamerTaskId: Uuid },
  { additionalProperties: false, description: 'items put into the inventory by a claim of gamerTaskId' },
);
export const PresenceChangedData = Type.Object(
  { userId: Uuid, status: Presence.properties.status, lastSeenAt: Presence.properties.lastSeenAt },
  { additionalProperties: false, description: 'to each friend with a live connection when userId goes online or offline (settled: docs/notifications.md); live only, never in the inbox' },
);

export type FriendRequestReceivedData = Static<typeof FriendRequestReceivedData>;
export type FriendRequestAcceptedData = Static<typeof FriendRequestAcceptedData>;
export type FriendRequestCancelledData = Static<typeof FriendRequestCancelledData>;
export type FriendRemovedData = Static<typeof FriendRemovedData>;
export type TaskProgressData = Static<typeof TaskProgressData>;
export type TaskCompletedData = Static<typeof TaskCompletedData>;
export type InventoryGrantedData = Static<typeof InventoryGrantedData>;
export type PresenceChangedData = Static<typeof PresenceChangedData>;

/** What `data` holds for each type. */
export interface NotificationDataOf {
  'friend.request.received': FriendRequestReceivedData;
  'friend.request.accepted': FriendRequestAcceptedData;
  'friend.request.cancelled': FriendRequestCancelledData;
  'friend.removed': FriendRemovedData;
  'task.progress': TaskProgressData;
  'task.completed': TaskCompletedData;
  'achievement.completed': TaskCompletedData;
  'inventory.granted': InventoryGrantedData;
  'presence.changed': PresenceChangedData;
}

const frame = <T extends NotificationType, D extends TSchema>(type: T, data: D) =>
  Type.Object({ id: NotificationId, type: Type.Literal(type), at: DateTime, data }, { additionalProperties: false });

/**
 * One notification: a WebSocket text frame, and an inbox entry. Only ever about the gamer
 * it is sent to.
 */
export const Notification = Type.Union(
  [
    frame(NotificationType.FRIEND_REQUEST_RECEIVED, FriendRequestReceivedData),
    frame(NotificationType.FRIEND_REQUEST_ACCEPTED, FriendRequestAcceptedData),
    frame(NotificationType.FRIEND_REQUEST_CANCELLED, FriendRequestCancelledData),
    frame(NotificationType.FRIEND_REMOVED, FriendRemovedData),
    frame(NotificationType.TASK_PROGRESS, TaskProgressData),
    frame(NotificationType.TASK_COMPLETED, TaskCompletedData),
    frame(NotificationType.ACHIEVEMENT_COMPLETED, TaskCompletedData),
    frame(NotificationType.INVENTORY_GRANTED, InventoryGrantedData),
    frame(NotificationType.PRESENCE_CHANGED, PresenceChangedData),
  ],
);
export type Notification = { [T in NotificationType]: { id: string; type: T; at: string; data: NotificationDataOf[T] } }[NotificationType];

/**
 * The live channel's one client message: a heartbeat a client sends to learn that the
 * connection still carries frames both ways (a browser cannot see WebSocket pings, so
 * without it a silently dead connection goes unnoticed). Anything else a client sends is
 * ignored.
 */
export const LivePing = Type.Object(
  { type: Type.Literal('ping') },
  { description: 'client to server, a text frame: answered with one LivePong (at most one per PONG_MIN_INTERVAL_MS per socket; pings in between get none)' },
);
export type LivePing = Static<typeof LivePing>;

/**
 * The answer to a LivePing. It has no `id` and is no notification: it never moves a client's
 * resume point, and it goes only to a client that sent a ping.
 */
export const LivePong = Type.Object(
  { type: Type.Literal('pong'), at: DateTime },
  { additionalProperties: false, description: 'server to client, only in answer to a LivePing; `at` is the server\'s time' },
);
export type LivePong = Static<typeof LivePong>;

/** A socket gets at most one pong per this many ms: a client needs no faster heartbeat, and a flood of pings costs one frame a second. */
export const PONG_MIN_INTERVAL_MS = 1_000;

/** Types kept in the inbox and replayed on resume: all but task.progress and presence.changed (live only). */
export const isStoredNotificationType = (type: NotificationType): boolean => type !== NotificationType.TASK_PROGRESS && type !== NotificationType.PRESENCE_CHANGED;

/**
 * WebSocket close codes the service sends (docs/notifications.md, "Close codes"). 1001 and
 * 1011 are the protocol's own; 4xxx are private-use codes of this API.
 */
export const NotificationCloseCode = {
  /** the replica is shutting down: reconnect, with since (a gateway shutting down cuts the socket: 1006) */
  GOING_AWAY: 1001,
  /** the client sent a frame over 4 KiB (a client sends only heartbeat pings; anything else is ignored) */
  MESSAGE_TOO_BIG: 1009,
  /** the replica failed on its side (for example the inbox could not be read for a replay, or NATS ended the gamer's subscription) */
  INTERNAL_ERROR: 1011,
  /**
   * while the replica caught up with the inbox (a resume's replay, or a catch-up after its NATS
   * connection was back, the store slow), more than NOTIFY_SEND_BUFFER_BYTES of live
   * notifications waited behind it. Reconnect with since
   */
  TRY_AGAIN_LATER: 1013,
  /** the client read too slowly: more than NOTIFY_SEND_BUFFER_BYTES waited to be sent. Reconnect with since */
  SLOW_CONSUMER: 4008,
  /** the gamer opened more than NOTIFY_MAX_SOCKETS_PER_GAMER sockets on one replica: the oldest is closed */
  TOO_MANY_SOCKETS: 4029,
  /** the gamer was erased (DELETE /api/v1/{applicationId}/gamers/{gamerId}): their data is gone; do not reconnect with this identity */
  GAMER_ERASED: 4410,
} as const;

export const NotificationIdParams = Type.Object({ id: NotificationId }, { additionalProperties: false });
export type NotificationIdParams = Static<typeof NotificationIdParams>;

/** Tickets are base64url, 48 bytes of sealed payload and tag plus a 12-byte nonce. */
export const TICKET_PATTERN = '^[A-Za-z0-9_-]{40,400}$';

export const LiveQuery = Type.Object(
  {
    since: Type.Optional(Type.String({ format: 'uuid', description: 'id of the last notification the client received: what came after it is replayed first, then live ones follow' })),
    ticket: Type.Optional(Type.String({ pattern: TICKET_PATTERN, description: 'single-use ticket from POST /api/v1/notifications/ticket, for clients that cannot send an Authorization header (browsers)' })),
  },
  { additionalProperties: false },
);
export type LiveQuery = Static<typeof LiveQuery>;

export const TicketResponse = Type.Object(
  {
    ticket: Type.String({ pattern: TICKET_PATTERN, description: 'pass as ?ticket= to GET /api/v1/notifications/live, once' }),
    expiresAt: DateTime,
  },
  { additionalProperties: false },
);
export type TicketResponse = Static<typeof TicketResponse>;

/** GET /api/v1/notifications: a page, and what came after a notification the client has (design.md: resume with ?since=<id>). */
export const InboxQuery = Type.Object(
  {
    ...PageQuery.properties,
    since: Type.Optional(Type.String({ format: 'uuid', description: 'id of the newest notification the client has: only those after it are listed, oldest first; the Link\'s next page has since = the last one shown (a cursor beside it is not read)' })),
  },
  { additionalProperties: false },
);
export type InboxQuery = Static<typeof InboxQuery>;

const errors = { 400: Problem, 401: Problem, 404: Problem, 429: Problem };
const BASE = '/api/v1/notifications';

const LIVE_DESCRIPTION =
  'A WebSocket (RFC 6455): send `Connection: Upgrade`, `Upgrade: websocket`; the answer is 101 Switching Protocols. ' +
  'Credentials: the Authorization bearer header, or `?ticket=` (POST /api/v1/notifications/ticket) where a header cannot be set; ' +
  'without valid ones the upgrade is refused with 401. The server sends JSON text frames shaped as the `Notification` schema ' +
  '(components.schemas.Notification), pings every NOTIFY_HEARTBEAT_MS and closes with the codes of docs/notifications.md ' +
  '(1001 going away, 1009 a client frame over 4 KiB, 1011 a failure on the server\'s side, 1013 try again later: too much waited behind a catch-up, ' +
  '4008 slow consumer, 4029 too many sockets, 4410 gamer erased; reconnect with since, backing off, on all but 4029 and 4410). A client may send `{"type":"ping"}` (components.schemas.LivePing) ' +
  'to learn that the connection is alive, which a browser cannot learn from WebSocket pings: the server answers `{"type":"pong","at":…}` ' +
  '(components.schemas.LivePong, no id: not a notification), at most once a second per socket; anything else a client sends is ignored. ' +
  '`?since=<id>` first replays the stored notifications after ' +
  'that id, oldest first, then live ones follow, with no gap and no duplicate. A plain GET without the upgrade answers 426.';

/** The notifications endpoints. The ticket and the live upgrade are answered by the gateway in front of the service. */
export const notificationsRoutes = {
  list: {
    method: 'GET', url: BASE,
    schema: {
      operationId: 'listNotifications', summary: 'The caller\'s notification inbox, newest first (30 days; task.progress and presence.changed are never kept); with since, only what came after that notification, oldest first', tags: ['notifications'],
      querystring: InboxQuery, response: { 200: Type.Array(Notification), ...errors },
    },
  },
  remove: {
    method: 'DELETE', url: `${BASE}/:id`,
    schema: {
      operationId: 'deleteNotification', summary: 'Delete one notification of the caller\'s inbox', tags: ['notifications'],
      params: NotificationIdParams, response: { 200: OkResponse, ...errors },
    },
  },
  ticket: {
    method: 'POST', url: `${BASE}/ticket`,
    schema: {
      operationId: 'createNotificationTicket', summary: 'A single-use ticket, valid NOTIFY_TICKET_TTL_MS (at most 30 s), to open the live channel without an Authorization header', tags: ['notifications'],
      response: { 200: TicketResponse, ...errors },
    },
  },
  live: {
    method: 'GET', url: `${BASE}/live`, websocket: true,
    schema: {
      operationId: 'openNotificationChannel', summary: 'The live notification channel (WebSocket)', description: LIVE_DESCRIPTION, tags: ['notifications'],
      querystring: LiveQuery, response: { 400: Problem, 401: Problem, 426: Problem, 429: Problem },
    },
  },
} as const;
