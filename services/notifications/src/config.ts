import { BaseConfig, ConfigError, GamersStreamConfig, loadConfig, StoreConfig } from '@gfts/platform';
import Type, { type Static, type TObject } from 'typebox';

const DAY_MS = 86_400_000;

const NotificationsSettings = {
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8083 }),
  ...BaseConfig,
  ...StoreConfig,
  NOTIFY_RETENTION_MS: Type.Integer({ minimum: 60_000, maximum: 365 * DAY_MS, default: 30 * DAY_MS, description: 'how long the inbox keeps a notification' }),
  NOTIFY_HEARTBEAT_MS: Type.Integer({ minimum: 1_000, maximum: 600_000, default: 30_000, description: 'ping interval; a socket that did not answer the previous ping is closed' }),
  NOTIFY_SEND_BUFFER_BYTES: Type.Integer({ minimum: 1_024, maximum: 16_777_216, default: 262_144, description: 'bytes that may wait to be sent on one socket; above, the client is too slow and is closed (4008); a frame on an empty buffer goes whatever its size' }),
  NOTIFY_PROGRESS_INTERVAL_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 1_000, description: 'least time between two task.progress messages of one task on one socket' }),
  NOTIFY_MAX_SOCKETS_PER_GAMER: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'sockets one gamer may hold on one replica; one more closes the oldest (4029)' }),
  NOTIFY_INGEST_BACKLOG_MAX: Type.Integer({ minimum: 100, maximum: 1_000_000, default: 10_000, description: 'notifications for the inbox a replica holds while the inbox cannot be written (each retried until stored, then published); beyond, new ones go out live only, unstored, and are counted (gfts_notifications_unstored_total); as many live-only ones may wait behind them, beyond which new ones are dropped (gfts_notifications_live_dropped_total; one event\'s fan-out behind nothing is taken whole)' }),
  NOTIFY_REPLAY_PAGE: Type.Integer({ minimum: 1, maximum: 1_000, default: 200, description: 'notifications read per inbox query while replaying a resume' }),
  LIVE_RELEASE_GRACE_MS: Type.Integer({ minimum: 0, maximum: 120_000, default: 10_000, description: 'how long a gamer whose last socket on this replica closed keeps its subscription and shows online; a reconnect within it costs no NATS write and no presence change; 0 releases at once' }),
  NOTIFY_DRAIN_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 2_000, description: 'on shutdown, time the sockets get to finish their close handshake (1001) before they are cut' }),
  PRESENCE_RECORD_INTERVAL_MS: Type.Integer({ minimum: 1_000, maximum: 600_000, default: 15_000, description: 'how often this replica writes its presence heartbeat (one key per replica; gamer keys are written on connect and close only); keep it well below the online window (PRESENCE_ONLINE_WINDOW_MS of friendship)' }),
  PRESENCE_WRITES_IN_FLIGHT: Type.Integer({ minimum: 1, maximum: 10_000, default: 64, description: 'most presence writes (a gamer\'s first connect or last close on this replica) awaiting NATS at once; the rest wait as marked keys, coalesced' }),
  ...GamersStreamConfig,
  ERASURE_ACK_WAIT_MS: Type.Integer({ minimum: 1000, maximum: 3_600_000, default: 30_000, description: 'time a delivered gamer.erased event has before it is redelivered' }),
  ERASURE_RETRY_BASE_MS: Type.Integer({ minimum: 10, maximum: 3_600_000, default: 1000, description: 'first redelivery delay of a failed gamer.erased event; doubles per attempt, at most 30 s' }),
  NOTIFY_ERASURE_FOLLOW_UP_WINDOW_MS: Type.Integer({ minimum: 60_000, maximum: 30 * DAY_MS, default: DAY_MS, description: 'how long after an erasure was asked another service\'s report of it still has the gamer\'s inbox deleted again (what its late events stored); a later report, from a service that lagged, leaves the inbox of a gamer who may have come back' }),
  NOTIFY_SWEEP_INTERVAL_MS: Type.Integer({ minimum: 1_000, maximum: DAY_MS, default: 3_600_000, description: 'period of the expired-notification sweep, where the store has no TTL index' }),
};
export type NotificationsConfig = Static<TObject<typeof NotificationsSettings>>;

export function readNotificationsConfig(env: Record<string, string | undefined> = process.env): NotificationsConfig {
  const config = loadConfig(NotificationsSettings, env);
  // the drain runs inside the grace: past it the process exits before its presence is
  // released, and the gamers of its sockets stay online until the presence window lapses
  if (config.NOTIFY_DRAIN_MS >= config.SHUTDOWN_GRACE_MS) {
    throw new ConfigError([`NOTIFY_DRAIN_MS (${config.NOTIFY_DRAIN_MS}) must be less than SHUTDOWN_GRACE_MS (${config.SHUTDOWN_GRACE_MS}): the sockets' drain runs within the shutdown's grace`]);
  }
  return config;
}
