// @gfts/client: the typed REST client and the live notifications client.
export { createApiClient, type ApiClient, type ApiClientOptions, type Problem, type components, type operations, type paths } from './api.ts';
export type { TokenSource } from './token.ts';
export {
  BEFORE_EVERY_ID, CloseCode, connectNotifications, NotificationsCallError, NotificationsClient, resumePoint,
  type AuthMode, type ConnectionState, type NotificationsClientOptions, type NotificationsEvents, type StopReason,
  type WebSocketConstructor, type WebSocketLike,
} from './notifications/client.ts';
export { backoffCeiling, backoffDelay, backoffOptions, DEFAULT_BACKOFF, type BackoffOptions } from './notifications/backoff.ts';
export { DEFAULT_HEARTBEAT, type HeartbeatOptions } from './notifications/heartbeat.ts';
export { liveUrl, LIVE_PATH, TICKET_PATH } from './notifications/live-url.ts';
export {
  NOTIFICATION_TYPES, parseFrame,
  type GrantedItem, type Notification, type NotificationData, type NotificationType, type ParsedFrame, type PresenceChange, type UnknownNotification, type UserSummary,
} from './notifications/messages.ts';
