/** One write of a gamer's key: put it (held here) or delete it (released). */
export interface PresenceWrite {
  key: string;
  op: 'put' | 'delete';
  /** the ledger's generation when the write left (a rewrite makes older answers void) */
  generation: number;
}

/**
 * What this replica wants in the presence bucket (the gamers it holds sockets of) against
 * what it knows to be there, and the writes that bring the two together. Pure bookkeeping
 * for presence/holder.ts: no I/O, no timers.
 *
 * - A hold or a release only marks the key: a gamer who connects and leaves before a
 *   write went out costs no write at all, and a storm of connects is a set of keys, not a
 *   queue of promises.
 * - One write per key at a time; the next one is decided when it is answered.
 * - A write that failed may still have landed ("unsure"): a release after a failed put still
 *   deletes, a hold after a failed delete still puts.
 * - Failed writes wait for `retryFailed` (the next heartbeat) instead of spinning.
 */
export function presenceLedger() {
  /** keys of the gamers held here */
  const wanted = new Set<string>();
  /** keys that are, or may be ("unsure"), in the bucket */
  const stored = new Map<string, 'present' | 'unsure'>();
  /** keys whose wanted and stored state may differ */
  const dirty = new Set<string>();
  /** keys with a write awaiting its answer */
  const busy = new Set<string>();
  /** keys whose last write failed */
  const failedKeys = new Set<string>();
  let generation = 0;

  /**
   * The answer to a write that left before a rewrite: a put may have landed after the purge
   * (answered or not), so the key may be in the bucket again; the key is decided anew. Until
   * 2026-11-28 such an answer was ignored: a gamer released meanwhile kept a key nobody
   * deleted, online for their friends while this replica lived.
   */
  function staleAnswer(write: PresenceWrite): void {
    if (write.op === 'put' && !stored.has(write.key)) stored.set(write.key, 'unsure');
    dirty.add(write.key);
  }

  return {
    hold(key: string): void {
      wanted.add(key);
      dirty.add(key);
    },
    release(key: string): void {
      wanted.delete(key);
      dirty.add(key);
    },

    /** The next write to make, if any (a key already being written waits for its answer). */
    next(): PresenceWrite | undefined {
      for (const key of dirty) {
        if (busy.has(key)) continue;
        dirty.delete(key);
        const state = stored.get(key);
        let op: PresenceWrite['op'] | undefined;
        if (wanted.has(key)) {
          if (state !== 'present') op = 'put';
        } else if (state !== undefined) {
          op = 'delete';
        }
        if (!op) continue;
        busy.add(key);
        failedKeys.delete(key);
        // from the moment a write leaves, the key may be in the bucket, or gone from it: a
        // delete that failed may have landed (its answer lost), so a hold after it puts the
        // key again (until 2026-11-29 it was still taken for present, and the gamer, connected,
        // stayed offline for their friends while the socket lived)
        stored.set(key, 'unsure');
        return { key, op, generation };
      }
      return undefined;
    },

    written(write: PresenceWrite): void {
      busy.delete(write.key);
      if (write.generation !== generation) return staleAnswer(write);
      if (write.op === 'put') stored.set(write.key, 'present');
      else stored.delete(write.key);
    },

    failed(write: PresenceWrite): void {
      busy.delete(write.key);
      if (write.generation !== generation) return staleAnswer(write);
      failedKeys.add(write.key);
    },

    /** Failed keys are written again (called at each heartbeat). */
    retryFailed(): void {
      for (const key of failedKeys) dirty.add(key);
      failedKeys.clear();
    },

    /**
     * The bucket lost this replica's keys (purged, or NATS lost it): every held gamer is
     * written again. A key of a gamer let go whose delete had not been answered yet (or had
     * failed) is deleted again: were the keys not all gone after all, it would otherwise be
     * forgotten in the bucket, that gamer online for as long as this replica lives.
     */
    rewriteAll(): void {
      generation++;
      const known = new Set([...stored.keys(), ...failedKeys]);
      stored.clear();
      failedKeys.clear();
      dirty.clear();
      for (const key of known) {
        if (wanted.has(key)) continue;
        stored.set(key, 'unsure');
        dirty.add(key);
      }
      for (const key of wanted) dirty.add(key);
    },

    /** keys waiting for a write (failed ones not counted: they wait for the next heartbeat) */
    get pending(): number {
      return dirty.size;
    },
    get held(): number {
      return wanted.size;
    },
  };
}
export type PresenceLedger = ReturnType<typeof presenceLedger>;
