/**
 * Pure parts of the notifications bench (`bench/run.sh --notifications`): open-loop pacing,
 * the delivery audit (every event reaches its gamer exactly once), memory per connection,
 * the knee of the offered rates and the reconnect storm's timings. No I/O here, so the unit
 * tests pin the arithmetic the results depend on.
 */

/**
 * Open-loop pacing: how many events are due `elapsedMs` into a phase offered at `ratePerS`,
 * capped at `total`. The publisher sends `due − sent` on every tick, so a late tick catches
 * up in a burst instead of slowing the offered rate down (coordinated omission).
 */
export function dueCount(elapsedMs: number, ratePerS: number, total: number): number {
  if (!(elapsedMs > 0) || !(ratePerS > 0)) return 0;
  return Math.min(total, Math.floor((elapsedMs * ratePerS) / 1000));
}

/** The gamer of the `seq`-th event: round robin, so every gamer gets one before any gets two. */
export function gamerOfEvent(seq: number, gamers: number): number {
  return seq % gamers;
}

/** Bytes per connection from the resident size before and after opening `connections`. */
export function bytesPerConnection(rssBefore: number, rssAfter: number, connections: number): number {
  if (!(connections > 0) || !Number.isFinite(rssBefore) || !Number.isFinite(rssAfter)) return Number.NaN;
  return (rssAfter - rssBefore) / connections;
}

export interface AuditResult {
  /** events published */
  expected: number;
  /** distinct events received by their own gamer */
  received: number;
  /** events never received */
  missing: number;
  /** deliveries of an event (or a notification id) its gamer had already received */
  duplicates: number;
  /** events received by a socket of another gamer (must be 0) */
  misrouted: number;
}

/**
 * Every event published for a gamer must reach that gamer's socket exactly once, live or
 * replayed on resume: no gap (missing), no duplicate, nothing delivered to anyone else.
 * Events are keyed by a unique key the bench put into them (the gamer task id); duplicates
 * are also counted by notification id, as a client would see them.
 */
export class DeliveryAudit {
  private readonly owner = new Map<string, number>();
  private readonly seen = new Set<string>();
  private readonly seenIds = new Set<string>();
  private duplicates = 0;
  private misrouted = 0;

  expect(key: string, gamer: number): void {
    this.owner.set(key, gamer);
  }

  /** a delivery to `gamer`'s socket; answers false for a duplicate or misrouted one */
  receive(key: string, notificationId: string, gamer: number): boolean {
    const owner = this.owner.get(key);
    if (owner !== gamer) {
      this.misrouted++;
      return false;
    }
    if (this.seen.has(key) || this.seenIds.has(notificationId)) {
      this.duplicates++;
      return false;
    }
    this.seen.add(key);
    this.seenIds.add(notificationId);
    return true;
  }

  has(key: string): boolean {
    return this.seen.has(key);
  }

  result(keys?: Iterable<string>): AuditResult {
    let expected = 0;
    let received = 0;
    for (const key of keys ?? this.owner.keys()) {
      expected++;
      if (this.seen.has(key)) received++;
    }
    return { expected, received, missing: expected - received, duplicates: this.duplicates, misrouted: this.misrouted };
  }
}

export interface RatePhase {
  rate: number;
  /** p99 event→socket, ms */
  p99: number;
  /** events not delivered by the end of the phase's drain */
  missing: number;
  /** achieved publish rate (the publisher may fall behind the offered one) */
  offeredPerS: number;
}

/**
 * The knee: the highest rate that met the latency aim with nothing missing, and the lowest
 * that did not (undefined when every rate met it, or none did).
 */
export function kneeOf(phases: readonly RatePhase[], aimP99Ms: number): { highestMet: number | undefined; lowestMissed: number | undefined } {
  const sorted = [...phases].sort((a, b) => a.rate - b.rate);
  const meets = (p: RatePhase) => p.missing === 0 && Number.isFinite(p.p99) && p.p99 <= aimP99Ms && p.offeredPerS >= 0.95 * p.rate;
  let highestMet: number | undefined;
  let lowestMissed: number | undefined;
  for (const p of sorted) {
    if (meets(p)) {
      if (lowestMissed === undefined) highestMet = p.rate;
    } else {
      lowestMissed ??= p.rate;
    }
  }
  return { highestMet, lowestMissed };
}

/**
 * Times of the reconnect storm, in ms from the cut: when the first and last socket were back
 * (upgrade accepted), and the 50th/99th percentile of a socket's time back. `backAt` holds
 * one entry per socket that came back.
 */
export function stormTimes(cutAt: number, backAt: readonly number[], sockets: number): { back: number; first: number; p50: number; p99: number; last: number; allBack: boolean } {
  const times = backAt.map((t) => t - cutAt).sort((a, b) => a - b);
  const at = (p: number) => (times.length === 0 ? Number.NaN : times[Math.min(times.length, Math.max(1, Math.ceil((p / 100) * times.length))) - 1]!);
  return {
    back: times.length,
    first: times[0] ?? Number.NaN,
    p50: at(50),
    p99: at(99),
    last: times.at(-1) ?? Number.NaN,
    allBack: times.length >= sockets,
  };
}

/** Source addresses for the load client: 127.0.0.1 … 127.0.0.N (the whole 127/8 is local). */
export function sourceAddresses(n: number): string[] {
  const count = Math.max(1, Math.min(250, Math.floor(n)));
  return Array.from({ length: count }, (_, i) => `127.0.0.${i + 1}`);
}
