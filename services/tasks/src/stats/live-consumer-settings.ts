import type { ConsumerConfig } from '@nats-io/jetstream';

/** The durable consumer's settings a replica acts on: the last delivery, and how long a delivery has. */
export interface DeliverySettings {
  maxDeliver: number;
  ackWaitMs: number;
}

/** The delivery settings a consumer's configuration holds; a max_deliver of -1 (or none) is no limit. */
export function deliverySettingsOf(config: Pick<ConsumerConfig, 'max_deliver' | 'ack_wait'>, fallback: DeliverySettings): DeliverySettings {
  const maxDeliver = config.max_deliver === undefined || config.max_deliver < 1 ? Number.POSITIVE_INFINITY : config.max_deliver;
  const ackWaitMs = config.ack_wait && config.ack_wait > 0 ? Math.floor(config.ack_wait / 1_000_000) : fallback.ackWaitMs;
  return { maxDeliver, ackWaitMs };
}

/**
 * The shared consumer's delivery settings as the server holds them, not as this replica's
 * configuration says: during a rollout that changes STATS_MAX_DELIVER or STATS_ACK_WAIT_MS,
 * the first new replica updates the consumer, and the old ones must not decide a requeue or
 * a dead letter on the old count (the server then drops an event an old replica nak'ed as
 * not yet on its last delivery, or keeps delivering one it dead-lettered early), nor keep a
 * batch alive at the old pace. Read again when older than a while; a failed read keeps the
 * last one.
 */
export class LiveConsumerSettings {
  private settings: DeliverySettings;
  private readAt: number;
  private reading: Promise<DeliverySettings> | undefined;
  private readonly read: () => Promise<Pick<ConsumerConfig, 'max_deliver' | 'ack_wait'>>;
  private readonly now: () => number;

  constructor(initial: DeliverySettings, read: () => Promise<Pick<ConsumerConfig, 'max_deliver' | 'ack_wait'>>, now: () => number = () => performance.now()) {
    this.settings = initial;
    this.read = read;
    this.now = now;
    this.readAt = Number.NEGATIVE_INFINITY;
  }

  /** The settings last read (the configured ones until a read answered). */
  get current(): DeliverySettings {
    return this.settings;
  }

  /** Whether the settings were read no more than `maxAgeMs` ago. */
  isFresh(maxAgeMs: number): boolean {
    return this.now() - this.readAt <= maxAgeMs;
  }

  /** Takes settings read elsewhere (the consumer's info its pull started with). */
  adopt(config: Pick<ConsumerConfig, 'max_deliver' | 'ack_wait'>): void {
    this.settings = deliverySettingsOf(config, this.settings);
    this.readAt = this.now();
  }

  /**
   * The settings, read again first when older than maxAgeMs (one read at a time; a failed
   * read keeps these). `waitMs`: how long to wait for that read at most; past it, the settings
   * last read (the read goes on, for the next caller).
   */
  async fresh(maxAgeMs: number, waitMs?: number): Promise<DeliverySettings> {
    if (this.isFresh(maxAgeMs)) return this.settings;
    this.reading ??= this.read()
      .then((config) => {
        this.adopt(config);
        return this.settings;
      })
      .catch(() => this.settings)
      .finally(() => {
        this.reading = undefined;
      });
    if (waitMs === undefined) return this.reading;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<DeliverySettings>((resolve) => {
      timer = setTimeout(() => resolve(this.settings), waitMs);
    });
    return Promise.race([this.reading, late]).finally(() => clearTimeout(timer));
  }
}
