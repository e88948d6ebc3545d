import { SHUTTING_DOWN_RETRY_AFTER_S } from '@gfts/platform';

/**
 * How long the proxy waits before it tries again a GET a service answered 503 (reply-from
 * tries such a GET up to 10 times, whatever the cause: a replica shutting down, a
 * dependency of the service away): a short, growing, random wait, about a second over the
 * ten tries; the next try often goes out on another connection, to another replica. The
 * service's `Retry-After` (seconds, meant for clients) is not used: reply-from would take
 * "1" as 1 ms and be done in 10 ms. Never 0: reply-from takes 0 as "do not retry". Only
 * within RETRY_503_WINDOW_MS of the first 503 (retryWindow).
 */
/**
 * Whether a request that failed before any answer is tried again at once: a GET or HEAD
 * (nothing changes twice) whose connection broke (undici's UND_ERR_SOCKET, ECONNRESET),
 * which is what a kept-alive connection the service closed a moment before looks like (a
 * replica stopping closes its idle connections while the gateway may be reusing one). Once:
 * a service that keeps breaking connections is down, a 502.
 */
export function retriesReusedConnection(method: string, err: unknown, attempt: number): boolean {
  const code = (err as { code?: string } | null | undefined)?.code;
  return attempt === 0 && (method === 'GET' || method === 'HEAD') && (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET');
}

export function proxyRetryDelay(attempt: number, random: () => number = Math.random): number {
  return Math.max(1, Math.round(42 * random() * (attempt + 1)));
}

/**
 * How long after its first 503 a GET is still tried again: the tries meant for a replica
 * shutting down (a fast 503 each) take about a second. A service that answers 503 only after
 * waiting on a dependency itself (its NATS read's 2 s) was asked ten more times, the client
 * waiting eleven of those answers (until 2026-11-28).
 */
export const RETRY_503_WINDOW_MS = 1_500;

/**
 * Whether a service's 503 says another replica would answer now: one that is stopping says
 * `Retry-After: 1`. A 503 that asks for a longer wait (the service's store away: 5 s) is the
 * client's to wait out; tried again here, it came after twice the service's wait, each try
 * on the store that is away (until 2026-11-29).
 */
export function tryAnotherReplica(retryAfter: string | string[] | undefined): boolean {
  const value = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
  return value !== undefined && /^\d+$/.test(value) && Number(value) <= SHUTTING_DOWN_RETRY_AFTER_S;
}

/** Whether a request's 503 may be tried again, by the time since its first one (`request`: the object reply-from hands each try). */
export function retryWindow(windowMs: number = RETRY_503_WINDOW_MS): (request: object, nowMs?: number) => boolean {
  const firsts = new WeakMap<object, number>();
  return (request, nowMs = performance.now()) => {
    const first = firsts.get(request);
    if (first === undefined) {
      firsts.set(request, nowMs);
      return true;
    }
    return nowMs - first <= windowMs;
  };
}
