import type { FastifyBaseLogger } from 'fastify';
import type { ClaimService } from './claim-service.ts';
import type { ErasureService } from './erasure/erasure-service.ts';
import type { IdempotencyRepository, ProcessedEventRepository } from './repository/event-log-repository.ts';
import type { GamerProgressRepository } from './repository/gamer-progress-repository.ts';
import type { GamerTaskRepository } from './repository/gamer-task-repository.ts';
import type { LeaseRepository } from './repository/lease-repository.ts';

export interface SweepSettings {
  intervalMs: number;
  claimRecoveryAfterMs: number;
  processedEventRetentionMs: number;
  idempotencyKeyRetentionMs: number;
  /** expired gamer tasks removed per step, their progress entries with them */
  expiryPage: number;
  /** ERASURE_REPUBLISH_AFTER_MS: an unfinished erasure job's event is published again this long after its last publication */
  erasureRepublishAfterMs: number;
}

/** The lease that picks the replica sweeping this period. */
export const SWEEP_LEASE = 'sweep';

/**
 * The periodic housekeeping FerretDB's missing TTL indexes call for: finish claims left
 * half-done, delete expired gamer tasks and their progress entries, forget old processed-event ids and idempotency keys,
 * publish the events of erasure jobs a crash left unpublished.
 * One replica sweeps per period, the holder of the `sweep` lease (until 2026-11-29 every
 * replica did, each finding the same pages: after a daily reset's millions of expired tasks,
 * the reads times the replicas). Every step is idempotent, so a second sweep (a lease that
 * ran out during a long one) changes nothing.
 */
export class Sweeper {
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private running: Promise<void> | undefined;
  private readonly deps: {
    gamerTasks: GamerTaskRepository; progress: Pick<GamerProgressRepository, 'dropExpired'>; claims: ClaimService; erasures: ErasureService; processed: ProcessedEventRepository; keys: IdempotencyRepository; log: FastifyBaseLogger; settings: SweepSettings;
    /** the lease and this replica's name in it; without one, every tick sweeps */
    lease?: { leases: Pick<LeaseRepository, 'take' | 'release'>; holder: string };
    /** the time a renewal between pages takes (tests) */
    clock?: () => Date;
  };

  constructor(deps: Sweeper['deps']) {
    this.deps = deps;
  }

  start(): void {
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.tick().then(() => undefined).finally(() => (this.running = undefined));
    }, this.deps.settings.intervalMs);
    this.timer.unref();
  }

  /**
   * One period: sweeps when this replica holds the lease. It is taken for nine tenths of a
   * period and renewed at every page of a long sweep; another replica takes it only half a
   * period after it ran out by its own clock (clocks differ), or at once when its holder
   * stopped and gave it back. Whether it swept.
   */
  async tick(now: Date = new Date()): Promise<boolean> {
    if (!(await this.holdLease(now))) return false;
    // renewals on the tick's own time line: `now` plus what has passed since
    const started = performance.now();
    const clock = this.deps.clock ?? (() => new Date(now.getTime() + (performance.now() - started)));
    await this.runOnce(now, () => this.holdLease(clock()));
    return true;
  }

  /** Takes or renews the lease; true without one (every tick sweeps). */
  private async holdLease(now: Date): Promise<boolean> {
    const { lease, log, settings } = this.deps;
    if (!lease) return true;
    const until = new Date(now.getTime() + Math.floor(settings.intervalMs * 0.9));
    return lease.leases.take(SWEEP_LEASE, lease.holder, now, until, Math.floor(settings.intervalMs / 2)).catch((error: unknown) => {
      log.warn({ err: error }, 'sweep lease not read; next period retries');
      return false;
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.running;
    const { lease } = this.deps;
    await lease?.leases.release(SWEEP_LEASE, lease.holder).catch(() => undefined);
  }

  /**
   * `keep`: asked between pages of a long step and between steps; false (the lease was lost)
   * ends the sweep there. Erasures go first: a legal duty, a few documents, and not to wait
   * behind a daily reset's backlog of expired tasks (until 2026-11-29 they came last, and a
   * failure of any step before skipped them). Each step fails on its own.
   */
  async runOnce(now: Date = new Date(), keep: () => Promise<boolean> = async () => true): Promise<void> {
    const { claims, erasures, processed, keys, log, settings } = this.deps;
    const ago = (ms: number) => new Date(now.getTime() - ms);
    const steps: [string, () => Promise<number>][] = [
      // erasures whose event is not known to be in JetStream (a crash after storing the job, a publish not acknowledged)
      ['erasures', () => erasures.publishLeftOver(ago(settings.claimRecoveryAfterMs))],
      // unfinished erasures before their event leaves the stream (a service down for weeks)
      ['republished', () => erasures.republishUnfinished(ago(settings.erasureRepublishAfterMs))],
      ['recovered', () => claims.recover(ago(settings.claimRecoveryAfterMs))],
      ['expired', () => this.deleteExpired(now, keep)],
      ['events', () => processed.prune(ago(settings.processedEventRetentionMs))],
      ['keys', () => keys.prune(ago(settings.idempotencyKeyRetentionMs))],
    ];
    const done: Record<string, number> = {};
    for (const [i, [name, step]] of steps.entries()) {
      done[name] = await step().catch((error: unknown) => {
        log.warn({ err: error, step: name }, 'sweep step failed; next period retries');
        return 0;
      });
      // a sweep whose lease another replica took (a long step ran past it) stops here (until
      // 2026-11-29 it ran its later steps beside the new holder's)
      if (i < steps.length - 1 && (this.stopping || !(await keep()))) break;
    }
    if (Object.values(done).some((n) => n > 0)) log.info(done, 'sweep');
  }

  /**
   * Expired gamer tasks, a page at a time, each page's progress entries after it (a crash in
   * between: the consumer drops them). A large backlog (the first sweep over old data) is
   * worked through page by page until the replica stops; the next sweep goes on from there.
   */
  private async deleteExpired(now: Date, keep: () => Promise<boolean>): Promise<number> {
    const { gamerTasks, progress, settings } = this.deps;
    let removed = 0;
    for (;;) {
      const page = await gamerTasks.deleteExpiredPage(now, settings.expiryPage);
      await progress.dropExpired(page.removed);
      removed += page.removed.length;
      // the lease renewed at every page: a long sweep keeps it, and stops where it lost it
      if (page.found < settings.expiryPage || this.stopping || !(await keep())) return removed;
    }
  }
}
