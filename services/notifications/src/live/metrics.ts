import { NotificationCloseCode } from '@gfts/contracts';
import { Counter, Gauge, type Registry } from 'prom-client';

export interface LiveMetrics {
  /** a socket this replica closed, by why */
  closed(code: number): void;
  /** a notification written to a socket */
  sent(): void;
}

type CloseCode = (typeof NotificationCloseCode)[keyof typeof NotificationCloseCode];

/** Every close code the server sends has its reason (the type says so): until 2026-11-29 1013 was counted as "1013", outside the alert and the documented list. */
export const CLOSE_REASONS: Record<CloseCode | 1006, string> = {
  [NotificationCloseCode.GOING_AWAY]: 'going_away',
  [NotificationCloseCode.MESSAGE_TOO_BIG]: 'message_too_big',
  [NotificationCloseCode.INTERNAL_ERROR]: 'internal_error',
  [NotificationCloseCode.TRY_AGAIN_LATER]: 'catch_up_overflow',
  [NotificationCloseCode.SLOW_CONSUMER]: 'slow_consumer',
  [NotificationCloseCode.TOO_MANY_SOCKETS]: 'too_many_sockets',
  [NotificationCloseCode.GAMER_ERASED]: 'gamer_erased',
  1006: 'heartbeat_missed',
};

/** The live channel on /metrics: open sockets, gamers in their release grace, notifications sent, sockets closed by the server and why. */
export function liveMetrics(registry: Registry, sockets: () => number, lingering: () => number): LiveMetrics {
  new Gauge({ name: 'gfts_notifications_sockets', help: 'open live-channel sockets on this replica', registers: [registry], collect() {
    this.set(sockets());
  } });
  new Gauge({ name: 'gfts_notifications_lingering_gamers', help: 'gamers without a socket on this replica still subscribed and shown online (LIVE_RELEASE_GRACE_MS)', registers: [registry], collect() {
    this.set(lingering());
  } });
  const sent = new Counter({ name: 'gfts_notifications_sent_total', help: 'notifications written to live sockets', registers: [registry] });
  const closed = new Counter({ name: 'gfts_notifications_closed_total', help: 'live sockets the server closed, by reason', labelNames: ['reason'], registers: [registry] });
  return {
    closed: (code) => closed.inc({ reason: (CLOSE_REASONS as Record<number, string>)[code] ?? String(code) }),
    sent: () => sent.inc(),
  };
}
