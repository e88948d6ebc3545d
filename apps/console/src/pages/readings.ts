import { ApiProblem } from '../api/client.ts';

/** One poll's answer of a health call: its value, or why it failed. */
export type Reading<T> = { ok: true; value: T } | { ok: false; reason: string; error: unknown };

export async function read<T>(call: Promise<T>): Promise<Reading<T>> {
  try {
    return { ok: true, value: await call };
  } catch (e) {
    return { ok: false, reason: (e as Error).message, error: e };
  }
}

export type GatewayState = 'checking' | 'ready' | 'unreachable';

/**
 * The gateway's state from the Health page's readings: ready when it answered any of them,
 * a success or one of its problems (a service that is down answers 502 problem+json through
 * the gateway, with a `code`); unreachable when none got an answer from it: network errors,
 * or an error without a code, which something in front of it answered (an ingress's 502
 * page while the gateway is down: until 2026-11-28 that read as "ready"); checking before
 * the first reading.
 */
export function gatewayState(readings: readonly (Reading<unknown> | undefined)[]): GatewayState {
  const done = readings.filter((r) => r !== undefined);
  if (done.length === 0) return 'checking';
  return done.some((r) => r.ok || (r.error instanceof ApiProblem && typeof r.error.problem.code === 'string')) ? 'ready' : 'unreachable';
}
