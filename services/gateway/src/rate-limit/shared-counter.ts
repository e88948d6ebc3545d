import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { counterKey, decodeCount, encodeCount, grant, windowAt } from './window.ts';

export interface Count {
  /** requests in the window including this one; above max means refuse */
  current: number;
  /** milliseconds until the window resets */
  ttl: number;
}

/** A gamer's counter in one window as this replica last wrote (or read) it. */
export interface KnownCount {
  window: number;
  count: number;
  /** its revision in the bucket; 0: none yet (the next write creates the entry) */
  revision: number;
}

export interface Granted {
  /** the count before these requests; request i of the batch is number before + i + 1 */
  before: number;
  /** slots taken: the requests' own, then any leased beyond them */
  granted: number;
  ttl: number;
  /** the window counted in */
  window: number;
  /** the counter as this call left it, for the next call to start from (none after too many lost races) */
  known?: KnownCount;
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
 * gamer's budget in a NATS KV bucket shared by every replica: a write at the revision the
 * count was taken from, so that a concurrent writer makes it fail and this one read again,
 * and no two replicas can both take the last slot.
 *
 * The first attempt starts from `known`, what this replica last wrote in this window (or,
 * with nothing known, from an empty counter: the write then creates it), without reading:
 * a gamer is mostly served by one replica (a client keeps its connection), so a lease
 * costs one round trip instead of two. When another replica wrote meanwhile, that write
 * fails and costs one round trip more than reading first would have. A known count is
 * never above the true one (counts only rise within a window), so a refusal taken from it
 * without reading is right. The count is exact; a write that lands after the caller gave
 * up on it only over-counts, which is the conservative side. Reads may be direct gets from
 * a lagging replica of an R3 bucket: a stale count likewise costs a retry, never a wrong
 * refusal, and the write is checked by the stream leader.
 */
export async function incrementShared(
  kv: KV,
  limitKey: string,
  windowMs: number,
  max: number,
  requests = 1,
  wanted = requests,
  nowMs = Date.now(),
  known?: KnownCount,
): Promise<Granted> {
  const window = windowAt(nowMs, windowMs);
  const key = counterKey(limitKey, window);
  let guess: KnownCount | undefined = known?.window === window.index ? known : { window: window.index, count: 0, revision: 0 };
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    let from = guess;
    guess = undefined;
    if (!from) {
      const entry = await kv.get(key);
      // A deleted or purged entry still has a revision: write at it, as create would.
      from = { window: window.index, count: entry !== null && entry.operation === 'PUT' ? decodeCount(entry.value) : 0, revision: entry?.revision ?? 0 };
    }
    const before = from.count;
    const { granted, next } = grant(before, max, requests, wanted);
    if (granted === 0) return { before, granted, ttl: window.resetsInMs, window: window.index, known: from };
    try {
      const revision = await kv.put(key, encodeCount(next), { previousSeq: from.revision });
      return { before, granted, ttl: window.resetsInMs, window: window.index, known: { window: window.index, count: next, revision } };
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
  }
  return { before: max, granted: 0, ttl: window.resetsInMs, window: window.index };
}
