/**
 * Collects items for up to `delayMs` (or `maxItems`) and writes them with one call; each
 * `add` resolves once its item is written (or rejects with the write's error). Used for
 * processed-event records: one insert per batch instead of one per event.
 */
export class Batcher<T> {
  private pending: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly write: (items: T[]) => Promise<void>;
  private readonly delayMs: number;
  private readonly maxItems: number;

  constructor(write: (items: T[]) => Promise<void>, delayMs: number, maxItems: number) {
    this.write = write;
    this.delayMs = delayMs;
    this.maxItems = maxItems;
  }

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length >= this.maxItems) void this.flush();
      else this.timer ??= setTimeout(() => void this.flush(), this.delayMs);
    });
  }

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    try {
      await this.write(batch.map((b) => b.item));
      for (const b of batch) b.resolve();
    } catch (error) {
      for (const b of batch) b.reject(error);
    }
  }
}
