/**
 * Runs tasks with bounded concurrency, never two of the same key at once: tasks of one key
 * run one after the other in submission order, tasks of different keys in parallel. The
 * stat consumer keys by gamer, so one gamer's games apply in stream order within a replica.
 */
export class KeyedRunner {
  private readonly limit: number;
  private running = 0;
  private readonly tails = new Map<string, Promise<void>>();
  private capacityWaiters: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];

  constructor(limit: number) {
    this.limit = Math.max(1, limit);
  }

  get size(): number {
    return this.running;
  }

  /** Resolves once a new task may be submitted without exceeding the limit. */
  async capacity(): Promise<void> {
    while (this.running >= this.limit) await new Promise<void>((resolve) => this.capacityWaiters.push(resolve));
  }

  run(key: string, task: () => Promise<void>): void {
    this.running++;
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next: Promise<void> = previous
      .then(task)
      .catch(() => undefined)
      .finally(() => {
        this.running--;
        if (this.tails.get(key) === next) this.tails.delete(key);
        this.capacityWaiters.shift()?.();
        if (this.running === 0) {
          const waiters = this.idleWaiters;
          this.idleWaiters = [];
          for (const resolve of waiters) resolve();
        }
      });
    this.tails.set(key, next);
  }

  /** Resolves when every submitted task has finished. */
  async idle(): Promise<void> {
    if (this.running === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }
}
