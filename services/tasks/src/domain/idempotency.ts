import { createHash } from 'node:crypto';
import { normaliseFamily } from './family.ts';

/**
 * What an Idempotency-Key stands for: the request body after normalisation, so
 * {"family":"DAILY"} and {"family":"daily"} are the same request.
 */
export function assignFingerprint(body: { family: unknown; numberOfTasks: unknown }): string {
  const canonical = JSON.stringify({ family: normaliseFamily(body.family), numberOfTasks: body.numberOfTasks });
  return createHash('sha256').update(canonical).digest('hex');
}

export interface StoredKey {
  fingerprint: string;
  state: 'pending' | 'done';
  startedAt: Date;
}

export type KeyDecision = 'replay' | 'reused' | 'in-progress' | 'take-over';

/**
 * What to do with a request whose key was seen before: another body is a misuse (409); a
 * finished request is replayed; one still running is in progress (409 at once), unless it
 * has been running so long that its process must have died, when this request takes it over.
 */
export function decideOnKey(stored: StoredKey, fingerprint: string, now: Date, abandonAfterMs: number): KeyDecision {
  if (stored.fingerprint !== fingerprint) return 'reused';
  if (stored.state === 'done') return 'replay';
  return now.getTime() - stored.startedAt.getTime() > abandonAfterMs ? 'take-over' : 'in-progress';
}
