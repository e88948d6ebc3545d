import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { counterKey, decodeCount, encodeCount, nextStep, windowAt } from './window.ts';

export interface Count {
  /** requests in the window including this one; above max means refuse */
  current: number;
  /** milliseconds until the window resets */
  ttl: number;
}

/** Enough for many replicas racing on one gamer; beyond it the caller falls back (bounded work). */
const MAX_ATTEMPTS = 16;

function isConflict(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/**
 * Counts one request against a gamer's budget in a NATS KV bucket shared by every replica.
 * Read, then create (first request of the window) or update at the revision read: a
 * concurrent writer makes the write fail and this one read again, so no two replicas can
 * both take the last slot. The count is exact; a write that lands after the caller gave up
 * on it only over-counts, which is the conservative side.
 */
export async function incrementShared(kv: KV, limitKey: string, windowMs: number, max: number, nowMs = Date.now()): Promise<Count> {
  const window = windowAt(nowMs, windowMs);
  const key = counterKey(limitKey, window);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get(key);
    const live = entry !== null && entry.operation === 'PUT';
    const step = nextStep(live ? decodeCount(entry.value) : 0, max);
    if (step.kind === 'exceeded') return { current: step.current, ttl: window.resetsInMs };
    try {
      // A deleted or purged entry still has a revision: update at it, as create would.
      if (entry === null) await kv.create(key, encodeCount(step.next));
      else await kv.update(key, encodeCount(step.next), entry.revision);
      return { current: step.next, ttl: window.resetsInMs };
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
  }
  throw new Error(`rate-limit counter still contended after ${MAX_ATTEMPTS} attempts`);
}
