import { answerLost, ApiProblem } from './client.ts';

/** The longest wait between two polls of a page. */
export const POLL_BACKOFF_MAX_MS = 30_000;

export type PollOutcome = 'ok' | 'failed' | 'unavailable';

/**
 * How a poll failed: `unavailable` when the API asked for room (429, 503), did not answer
 * at all (fetch's TypeError: network down, gateway gone) or not in time (this client's
 * timeout, the gateway's 504: until 2026-11-29 polled again at the usual pace); `failed` for
 * any other answer (a 404, a 502 of a service down), worth asking again at the usual pace.
 */
export function failureKind(error: unknown): Exclude<PollOutcome, 'ok'> {
  if (answerLost(error)) return 'unavailable';
  if (error instanceof ApiProblem) return error.status === 429 || error.status === 503 ? 'unavailable' : 'failed';
  return error instanceof TypeError ? 'unavailable' : 'failed';
}

/**
 * The wait before a page's next poll: `everyMs` after a success or an ordinary failure;
 * after an `unavailable` one, twice the last wait, at most 30 s, so a console left open
 * does not hammer an API that is already struggling; the first success goes back to `everyMs`.
 */
export function nextPollDelay(lastMs: number, everyMs: number, outcome: PollOutcome): number {
  if (outcome !== 'unavailable') return everyMs;
  return Math.min(Math.max(lastMs, everyMs) * 2, Math.max(everyMs, POLL_BACKOFF_MAX_MS));
}
