/** An entry moves to the most-recently-used end at most once per this many ms. */
const REORDER_EVERY_MS = 1_000;

/**
 * A bounded map whose entries end at a time of their own (a token's `exp`): the least
 * recently used entry goes first when full (used to within a second: a hot entry is moved
 * up at most once a second: moving it is a delete and an insert of the Map, and the stat
 * consumer reads a definition per task of every gamer of a batch), an expired entry is
 * never returned. Holds
 * results of pure, costly checks keyed by their exact input (a bearer token, an identity
 * assertion), so a hit is exactly as valid as the check it stands for, until it expires.
 */
export class ExpiringCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAtMs: number; usedAtMs?: number }>();

  private readonly maxEntries: number;

  /** `maxEntries` 0 turns the cache off (nothing is kept). */
  constructor(maxEntries: number) {
    this.maxEntries = maxEntries;
  }

  get(key: string, nowMs: number): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (nowMs >= entry.expiresAtMs) {
      this.entries.delete(key);
      return undefined;
    }
    // most recently used last: Map keeps insertion order
    if (entry.usedAtMs === undefined || nowMs - entry.usedAtMs >= REORDER_EVERY_MS) {
      entry.usedAtMs = nowMs;
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry.value;
  }

  /**
   * An entry already expired is not kept (a token verified within the clock tolerance after
   * its `exp`): it would never be returned, and would push out a live one.
   */
  set(key: string, value: V, expiresAtMs: number, nowMs: number): void {
    if (this.maxEntries <= 0) return;
    this.entries.delete(key);
    if (expiresAtMs <= nowMs) return;
    this.entries.set(key, { value, expiresAtMs });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
