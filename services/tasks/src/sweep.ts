import type { FastifyBaseLogger } from 'fastify';
import type { ClaimService } from './claim-service.ts';
import type { IdempotencyRepository, ProcessedEventRepository } from './repository/event-log-repository.ts';
import type { GamerTaskRepository } from './repository/gamer-task-repository.ts';

export interface SweepSettings {
  intervalMs: number;
  claimRecoveryAfterMs: number;
  processedEventRetentionMs: number;
  idempotencyKeyRetentionMs: number;
}

/**
 * The periodic housekeeping FerretDB's missing TTL indexes call for: finish claims left
 * half-done, delete expired gamer tasks, forget old processed-event ids and idempotency keys.
 * Every step is idempotent, so all replicas may run it at once.
 */
export class Sweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly deps: { gamerTasks: GamerTaskRepository; claims: ClaimService; processed: ProcessedEventRepository; keys: IdempotencyRepository; log: FastifyBaseLogger; settings: SweepSettings };

  constructor(deps: Sweeper['deps']) {
    this.deps = deps;
  }

  start(): void {
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.runOnce().finally(() => (this.running = undefined));
    }, this.deps.settings.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  async runOnce(now: Date = new Date()): Promise<void> {
    const { gamerTasks, claims, processed, keys, log, settings } = this.deps;
    try {
      const recovered = await claims.recover(new Date(now.getTime() - settings.claimRecoveryAfterMs));
      const expired = await gamerTasks.deleteExpired(now);
      const events = await processed.prune(new Date(now.getTime() - settings.processedEventRetentionMs));
      const prunedKeys = await keys.prune(new Date(now.getTime() - settings.idempotencyKeyRetentionMs));
      if (recovered + expired + events + prunedKeys > 0) log.info({ recovered, expired, events, keys: prunedKeys }, 'sweep');
    } catch (error) {
      log.warn({ err: error }, 'sweep failed; next period retries');
    }
  }
}
