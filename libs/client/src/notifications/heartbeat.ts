// The client's side of the live channel's heartbeat (docs/notifications.md, "Heartbeats"):
// a browser cannot see the service's WebSocket pings, so a connection that died without a
// close (a NAT entry dropped, a laptop asleep, a Wi-Fi hand-over) would look open for ever.

export interface HeartbeatOptions {
  /** how long an open connection goes between pings, ms (default 15000) */
  intervalMs: number;
  /** how long a ping may wait for any frame before the connection is taken for dead, ms (default 10000) */
  timeoutMs: number;
}

export const DEFAULT_HEARTBEAT: HeartbeatOptions = { intervalMs: 15_000, timeoutMs: 10_000 };

/** The shortest interval between pings: twice the service's pong pace (PONG_MIN_INTERVAL_MS, 1 s). */
export const MIN_INTERVAL_MS = 2_000;

/** The heartbeat ping frame (LivePing in libs/contracts). */
export const PING_FRAME = '{"type":"ping"}';

export function heartbeatOptions(given: Partial<HeartbeatOptions> | undefined): HeartbeatOptions {
  const options = { ...DEFAULT_HEARTBEAT, ...given };
  // the service answers at most one ping a second (PONG_MIN_INTERVAL_MS): twice that leaves
  // room for a ping the service took late, or one sent early after a notification answered
  if (!(Number.isFinite(options.intervalMs) && options.intervalMs >= MIN_INTERVAL_MS)) throw new RangeError(`heartbeat.intervalMs must be a finite number >= ${MIN_INTERVAL_MS}`);
  if (!(Number.isFinite(options.timeoutMs) && options.timeoutMs > 0)) throw new RangeError('heartbeat.timeoutMs must be a finite number > 0');
  return options;
}

/**
 * One connection's heartbeat: `intervalMs` after it opened (and after each answer) it sends a
 * ping; when no frame at all arrives within `timeoutMs` of a ping, `dead` is called once.
 * Any frame answers: a notification proves the connection as well as a pong does.
 */
export class ConnectionHeartbeat {
  readonly #options: HeartbeatOptions;
  readonly #ping: () => void;
  readonly #dead: () => void;
  #next: ReturnType<typeof setTimeout> | undefined;
  #deadline: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(options: HeartbeatOptions, ping: () => void, dead: () => void) {
    this.#options = options;
    this.#ping = ping;
    this.#dead = dead;
    this.#schedule();
  }

  /** A frame arrived. */
  heard(): void {
    if (this.#deadline === undefined || this.#stopped) return;
    clearTimeout(this.#deadline);
    this.#deadline = undefined;
    this.#schedule();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#next);
    clearTimeout(this.#deadline);
  }

  #schedule(): void {
    this.#next = setTimeout(() => {
      if (this.#stopped) return;
      this.#deadline = setTimeout(() => {
        if (this.#stopped) return;
        this.stop();
        this.#dead();
      }, this.#options.timeoutMs);
      try {
        this.#ping();
      } catch {
        // a socket that can no longer send is dead too: the deadline says so
      }
    }, this.#options.intervalMs);
  }
}
