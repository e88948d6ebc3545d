/**
 * Bytes of stat events a replica holds (pulled, not yet settled), against a bound: the pull
 * waits while they are over it. The count bounds (a batch, two waiting per lane) alone let
 * events near the size limit (192 KiB each) fill a pod's memory: ~4,000 held, ~750 MB.
 * Pure bookkeeping: no I/O, no timers.
 */
export class ByteBudget {
  private readonly max: number;
  private bytes = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(maxBytes: number) {
    this.max = maxBytes;
  }

  get held(): number {
    return this.bytes;
  }

  take(bytes: number): void {
    this.bytes += bytes;
  }

  give(bytes: number): void {
    this.bytes = Math.max(0, this.bytes - bytes);
    if (this.bytes > this.max) return;
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves at once while the bytes held are within the bound, else once they are again. */
  room(): Promise<void> {
    if (this.bytes <= this.max) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
