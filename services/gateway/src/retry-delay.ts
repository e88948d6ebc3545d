/**
 * How long the proxy waits before it tries a GET again that a service answered 503 (one
 * shutting down: reply-from tries such a GET up to 10 times), or undefined to give up.
 * A short, growing, random wait: the next try goes out on another connection, most often to
 * another replica. The service's `Retry-After` (seconds, meant for clients) is not used:
 * reply-from would take "1" as 1 ms and be done in 10 ms.
 */
export function proxyRetryDelay(attempt: number, random: () => number = Math.random): number {
  return Math.round(42 * random() * (attempt + 1));
}
