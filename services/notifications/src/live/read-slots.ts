/**
 * At most `size` reads at once; the others wait their turn, in order. The catch-up after NATS
 * was away bounds its inbox reads with it, not its sockets: a socket whose client reads
 * slowly waits for its client without holding a read's place.
 */
export class ReadSlots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async run<T>(read: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await read();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
