/**
 * Items waiting to be applied, in arrival order, applied one batch at a time: a batch goes
 * when `size` items wait, or `waitMs` after an item arrived to an unfull queue. The stat
 * consumer pulls into it; `push` makes the puller wait while a full batch is queued, so the
 * pull stops while the store is behind.
 */
export class BatchQueue<T> {
  private readonly size: number;
  private readonly waitMs: number;
  private readonly apply: (batch: T[]) => Promise<void>;
  private readonly items: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  /** pushers waiting for the next batch to leave */
  private readonly roomWaiters: (() => void)[] = [];

  constructor(size: number, waitMs: number, apply: (batch: T[]) => Promise<void>) {
    this.size = size;
    this.waitMs = waitMs;
    this.apply = apply;
  }

  /** What waits, not yet handed to `apply`. */
  get waiting(): readonly T[] {
    return this.items;
  }

  /**
   * Queues an item. Resolves at once, or, when that makes a full batch, once the next batch
   * has left the queue (its `apply` started), not when everything queued is applied.
   */
  push(item: T): Promise<void> {
    this.items.push(item);
    if (this.items.length >= this.size) return this.nextRoom();
    this.timer ??= setTimeout(() => void this.drain(), this.waitMs);
    return Promise.resolve();
  }

  /** Applies what waits, batch after batch; one drain at a time. Resolves when none waits. */
  drain(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    // Assigned before the drain can end: `.finally` runs after this statement even when
    // nothing waits. (An async function that returns without awaiting runs its own finally
    // before the assignment, which then kept a settled drain here for good: the consumer
    // stopped applying anything.)
    this.draining ??= this.applyAll().finally(() => {
      this.draining = undefined;
      this.roomMade();
      // an item pushed after the last look at the queue, before this ran, found the drain
      // still going: with a batch of one it armed no timer, and stayed queued (until 2026-11-28)
      if (this.items.length >= this.size) void this.drain();
      else if (this.items.length > 0) this.timer ??= setTimeout(() => void this.drain(), this.waitMs);
    });
    return this.draining;
  }

  private async applyAll(): Promise<void> {
    while (this.items.length > 0) {
      const batch = this.items.splice(0, this.size);
      this.roomMade();
      await this.apply(batch);
    }
  }

  /**
   * Resolves once the next batch leaves the queue (its `apply` started). Every waiter is told
   * (the stat consumer leaves some pushes unawaited and waits on whichever lane frees first).
   */
  nextRoom(): Promise<void> {
    const made = new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    void this.drain();
    return made;
  }

  private roomMade(): void {
    for (const resolve of this.roomWaiters.splice(0)) resolve();
  }
}
