import { type LivePong, PONG_MIN_INTERVAL_MS } from '@gfts/contracts';

/**
 * Whether a client's frame is the heartbeat ping (`{"type":"ping"}`, LivePing in
 * libs/contracts): a JSON text frame whose object has that type. Anything else, binary or
 * not JSON included, is not one, and is ignored.
 */
export function isLivePing(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): boolean {
  if (isBinary) return false;
  const text = Array.isArray(data) ? Buffer.concat(data).toString() : Buffer.from(data as Buffer).toString();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { type?: unknown }).type === 'ping';
}

/** The answer to a ping, as sent. */
export function pongFrame(now: Date): string {
  const pong: LivePong = { type: 'pong', at: now.toISOString() };
  return JSON.stringify(pong);
}

/**
 * When a socket's ping gets its pong: at most one per PONG_MIN_INTERVAL_MS, so a client
 * that floods pings costs one frame a second, and one that pings on time always gets its answer.
 */
export class PongPacer {
  private lastAt = -Infinity;
  private readonly minIntervalMs: number;

  constructor(minIntervalMs = PONG_MIN_INTERVAL_MS) {
    this.minIntervalMs = minIntervalMs;
  }

  /** Whether a ping at `nowMs` (a monotonic clock: performance.now()) is answered (and, if so, counts as the last answer). */
  answers(nowMs: number): boolean {
    if (nowMs - this.lastAt < this.minIntervalMs) return false;
    this.lastAt = nowMs;
    return true;
  }
}
