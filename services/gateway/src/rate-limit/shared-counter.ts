import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { counterKey, decodeCount, encodeCount, grant, windowAt } from './window.ts';

export interface Count {
  /** requests in the window including this one; above max means refuse */
  current: number;
  /** milliseconds until the window resets */
  ttl: number;
}

export interface Granted {
  /** the count before these requests; request i of the batch is number before + i + 1 */
  before: number;
  /** slots taken: the requests' own, then any leased beyond them */
  granted: number;
  ttl: number;
  /** the window counted in */
  window: number;
}

/**
 * Racers on one counter are the replicas (each sends one batch per gamer at a time), and
 * every lost race is another's win, so this is ample; should it run out, the batch is
 * refused, the conservative answer.
 */
const MAX_ATTEMPTS = 16;

function isConflict(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/**
 * Counts `requests`, and up to `wanted` slots in all (a lease: see grant), against a
 * gamer's budget in a NATS KV bucket shared by every replica. Read, then create (first
 * request of the window) or update at the revision read: a concurrent writer makes the
 * write fail and this one read again, so no two replicas can both take the last slot. The
 * count is exact; a write that lands after the caller gave up on it only over-counts,
 * which is the conservative side. Reads may be direct gets from a lagging replica of an R3
 * bucket: a stale count is never higher than the true one (counts only rise within a
 * window), so it can cost a retry but never a wrong refusal, and the write is checked by
 * the stream leader.
 */
export async function incrementShared(kv: KV, limitKey: string, windowMs: number, max: number, requests = 1, wanted = requests, nowMs = Date.now()): Promise<Granted> {
  const window = windowAt(nowMs, windowMs);
  const key = counterKey(limitKey, window);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get(key);
    const before = entry !== null && entry.operation === 'PUT' ? decodeCount(entry.value) : 0;
    const { granted, next } = grant(before, max, requests, wanted);
    if (granted === 0) return { before, granted, ttl: window.resetsInMs, window: window.index };
    try {
      // A deleted or purged entry still has a revision: update at it, as create would.
      if (entry === null) await kv.create(key, encodeCount(next));
      else await kv.update(key, encodeCount(next), entry.revision);
      return { before, granted, ttl: window.resetsInMs, window: window.index };
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
  }
  return { before: max, granted: 0, ttl: window.resetsInMs, window: window.index };
}
