/**
 * How long the proxy waits before it tries again a GET a service answered 503 (reply-from
 * tries such a GET up to 10 times, whatever the cause: a replica shutting down, a
 * dependency of the service away): a short, growing, random wait, about a second over the
 * ten tries; the next try often goes out on another connection, to another replica. The
 * service's `Retry-After` (seconds, meant for clients) is not used: reply-from would take
 * "1" as 1 ms and be done in 10 ms. Never 0: reply-from takes 0 as "do not retry".
 */
export function proxyRetryDelay(attempt: number, random: () => number = Math.random): number {
  return Math.max(1, Math.round(42 * random() * (attempt + 1)));
}
