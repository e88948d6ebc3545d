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
    lease?: { leases: Pick<LeaseRepository, 'take'>; holder: string };
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
   * One period: sweeps when this replica holds the lease (taken for nine tenths of a period,
   * so that the next period's first replica finds it free). Whether it swept.
   */
  async tick(now: Date = new Date()): Promise<boolean> {
    const { lease, log, settings } = this.deps;
    if (lease) {
      const until = new Date(now.getTime() + Math.floor(settings.intervalMs * 0.9));
      const held = await lease.leases.take(SWEEP_LEASE, lease.holder, now, until).catch((error: unknown) => {
        log.warn({ err: error }, 'sweep lease not read; next period retries');
        return false;
      });
      if (!held) return false;
    }
    await this.runOnce(now);
    return true;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.running;
  }

  async runOnce(now: Date = new Date()): Promise<void> {
    const { claims, processed, keys, log, settings } = this.deps;
    try {
      const recovered = await claims.recover(new Date(now.getTime() - settings.claimRecoveryAfterMs));
      const expired = await this.deleteExpired(now);
      const events = await processed.prune(new Date(now.getTime() - settings.processedEventRetentionMs));
      const prunedKeys = await keys.prune(new Date(now.getTime() - settings.idempotencyKeyRetentionMs));
      // erasures whose event is not known to be in JetStream (a crash after storing the job, a publish not acknowledged)
      const erasures = await this.deps.erasures.publishLeftOver(new Date(now.getTime() - settings.claimRecoveryAfterMs));
      // unfinished erasures before their event leaves the stream (a service down for weeks)
      const republished = await this.deps.erasures.republishUnfinished(new Date(now.getTime() - settings.erasureRepublishAfterMs));
      if (recovered + expired + events + prunedKeys + erasures + republished > 0) log.info({ recovered, expired, events, keys: prunedKeys, erasures, republished }, 'sweep');
    } catch (error) {
      log.warn({ err: error }, 'sweep failed; next period retries');
    }
  }

  /**
   * Expired gamer tasks, a page at a time, each page's progress entries after it (a crash in
   * between: the consumer drops them). A large backlog (the first sweep over old data) is
   * worked through page by page until the replica stops; the next sweep goes on from there.
   */
  private async deleteExpired(now: Date): Promise<number> {
    const { gamerTasks, progress, settings } = this.deps;
    let removed = 0;
    for (;;) {
      const page = await gamerTasks.deleteExpiredPage(now, settings.expiryPage);
      await progress.dropExpired(page.removed);
      removed += page.removed.length;
      if (page.found < settings.expiryPage || this.stopping) return removed;
    }
  }
}
