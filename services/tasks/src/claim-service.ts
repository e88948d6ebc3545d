import { ErrorCode, type Identity, type RewardItem } from '@gfts/contracts';
import { conflict, notFound } from '@gfts/platform';
import type { FastifyBaseLogger } from 'fastify';
import type { GamerTaskRecord } from './domain/model.ts';
import type { TaskEvents } from './events.ts';
import type { ErasureJobRepository } from './repository/erasure-job-repository.ts';
import type { GamerProgressRepository } from './repository/gamer-progress-repository.ts';
import type { GamerTaskRepository } from './repository/gamer-task-repository.ts';
import type { InventoryRepository } from './repository/inventory-repository.ts';
import type { GrantDoc } from './repository/store.ts';
import type { ClaimMetrics } from './stats/metrics.ts';

export interface ClaimFaults {
  /** called between starting the claim and writing its grants (tests: an erasure there) */
  beforeGrant?: (task: GamerTaskRecord) => void | Promise<void>;
  /** called between writing the grants and finishing the claim (tests: a crash there) */
  afterGrant?: (task: GamerTaskRecord) => void | Promise<void>;
}

/** The grants of a claim: one per reward, with an id that can be written only once. */
export function grantsOf(task: GamerTaskRecord, now: Date): GrantDoc[] {
  return task.task.rewards.map((reward, index) => ({
    _id: `${task.id}:${index}`,
    applicationId: task.applicationId,
    gamerId: task.gamerId,
    gamerTaskId: task.id,
    inventoryItemId: reward.inventoryItemId,
    quantity: reward.quantity,
    grantedAt: now,
  }));
}

/** The `rewarded` label of a claim: whether its task carries rewards, so that a claim must write grants. */
function rewarded(task?: GamerTaskRecord): 'true' | 'false' {
  return task !== undefined && task.task.rewards.length > 0 ? 'true' : 'false';
}

/** A claim started (step 1) at least `afterMs` ago and not finished: its request is gone. */
function isAbandoned(task: GamerTaskRecord, now: Date, afterMs: number): boolean {
  return task.claimState === 'claiming' && task.claimStartedAt !== null && now.getTime() - task.claimStartedAt.getTime() >= afterMs;
}

/**
 * Claim exactly once, without multi-document transactions:
 *   1. mark the gamer task `claiming`, on condition that it is unclaimed, when its progress
 *      entry shows it completed (the completion is copied onto it): of any number of
 *      concurrent claims (on any replica) exactly one write matches;
 *   2. insert the grants into the inventory ledger, one per reward, keyed
 *      `<gamerTaskId>:<index>`: writing them again adds nothing, so this step can be
 *      repeated any number of times;
 *   3. mark the task `claimed`.
 * A crash after 1 or 2 leaves the task `claiming`; recovery (at start and in the periodic
 * sweep) repeats 2 and 3. Rewards land in the inventory exactly once.
 */
export class ClaimService {
  private readonly gamerTasks: GamerTaskRepository;
  private readonly progress: GamerProgressRepository;
  private readonly inventory: InventoryRepository;
  private readonly events: TaskEvents;
  private readonly metrics: ClaimMetrics;
  private readonly log: FastifyBaseLogger;
  private readonly faults: ClaimFaults;
  private readonly erasures: Pick<ErasureJobRepository, 'erasingSince'>;
  private readonly recoveryAfterMs: number;

  constructor(deps: { gamerTasks: GamerTaskRepository; progress: GamerProgressRepository; inventory: InventoryRepository; erasures: Pick<ErasureJobRepository, 'erasingSince'>; events: TaskEvents; metrics: ClaimMetrics; log: FastifyBaseLogger; recoveryAfterMs: number; faults?: ClaimFaults }) {
    this.gamerTasks = deps.gamerTasks;
    this.erasures = deps.erasures;
    this.progress = deps.progress;
    this.inventory = deps.inventory;
    this.events = deps.events;
    this.metrics = deps.metrics;
    this.log = deps.log;
    this.faults = deps.faults ?? {};
    this.recoveryAfterMs = deps.recoveryAfterMs;
  }

  async claim(identity: Identity, gamerTaskId: string): Promise<RewardItem[]> {
    const id = gamerTaskId.toLowerCase();
    const now = new Date();
    // the completion is the progress entry's; step 1 copies it onto the gamer task
    const started = await this.gamerTasks.beginClaim(id, identity, now, await this.progress.completionOf(identity, id, now));
    switch (started.kind) {
      case 'notFound':
        this.metrics.claims.inc({ outcome: 'not_found', rewarded: rewarded() });
        throw notFound('no such gamer task');
      case 'notCompleted':
        this.metrics.claims.inc({ outcome: 'not_completed', rewarded: rewarded() });
        throw conflict(ErrorCode.TASK_NOT_COMPLETED, 'the task is not completed');
      case 'alreadyClaimed':
        this.metrics.claims.inc({ outcome: 'already_claimed', rewarded: rewarded(started.task) });
        // a claim left half-done (its request failed after step 1) is the sweep's to finish;
        // a retry past the same age finishes it now, so the rewards need not wait for the sweep
        if (isAbandoned(started.task, now, this.recoveryAfterMs)) {
          if ((await this.finishCounted(started.task)) === 'gone') throw notFound('no such gamer task');
          this.log.info({ gamerTaskId: started.task.id }, 'finished a claim left half-done, on a retry');
        }
        throw conflict(ErrorCode.ALREADY_CLAIMED, 'the rewards of this task were already claimed');
      case 'started': {
        const finished = await this.finishCounted(started.task);
        if (finished === 'gone') {
          this.metrics.claims.inc({ outcome: 'not_found', rewarded: rewarded(started.task) });
          throw notFound('no such gamer task');
        }
        this.metrics.claims.inc({ outcome: 'claimed', rewarded: rewarded(started.task) });
        return started.task.task.rewards;
      }
    }
  }

  /**
   * `finish`, a failure counted as an unfinished claim: on its request, a retry or the sweep's
   * recovery, while the writes keep failing GftsClaimsUnfinished says rewards are not
   * delivered (until 2026-11-29 a failed finish counted nothing, and GftsClaimsWithoutGrants,
   * which watches claims that succeed, could not see it)
   */
  private async finishCounted(task: GamerTaskRecord): Promise<'finished' | 'gone'> {
    return this.finish(task).catch((error: unknown) => {
      this.metrics.claims.inc({ outcome: 'unfinished', rewarded: rewarded(task) });
      throw error;
    });
  }

  /**
   * Steps 2 and 3; safe to repeat, and to run from two places at once. `gone`: the gamer was
   * erased under the claim (an erasure job of theirs since the claim started). The erasure deletes the task before the inventory, so grants
   * this claim wrote after the erasure's inventory delete are found here, after step 3, and
   * taken back; nothing is announced for a gamer who no longer exists.
   */
  private async finish(task: GamerTaskRecord): Promise<'finished' | 'gone'> {
    const now = new Date();
    // Every finish of one claim (its request, a retry, recovery, two of them at once) grants
    // and announces with the time the claim started: the copies of its inventory.granted are
    // then alike, and the notifications inbox keeps one (docs/notifications.md, "Once per completion").
    const grantedAt = task.claimStartedAt ?? now;
    await this.faults.beforeGrant?.(task);
    const grants = grantsOf(task, grantedAt);
    const added = await this.inventory.grant(grants);
    if (added > 0) this.metrics.grants.inc(added);
    await this.faults.afterGrant?.(task);
    if ((await this.gamerTasks.finishClaim(task.id, now)) === 'gone') {
      // Another finish of this claim (recovery, a retry, another replica's start) may have
      // ended it, and the expiry sweep removed the claimed task since: its grants are the
      // gamer's (until 2026-11-29 they were taken back). Only an erasure removes a task still
      // being claimed; a reset of scope all removes a claimed one and the inventory with it,
      // which this finish's grants must not bring back.
      const undoneBy = (await this.erasures.erasingSince(task, grantedAt)) ? 'an erasure' : (await this.inventory.resetSince(task, grantedAt)) ? 'a reset of scope all' : undefined;
      if (undoneBy) {
        await this.inventory.revoke(grants);
        this.log.info({ gamerTaskId: task.id, undoneBy }, 'the claim\'s task was removed under it: its grants were taken back');
        return 'gone';
      }
      this.log.info({ gamerTaskId: task.id }, 'a claim finished elsewhere, its task removed since (expired): its grants stay');
    }
    const claimedAt = now.toISOString();
    const { applicationId, gamerId, taskId } = task;
    const rewards = task.task.rewards;
    this.events.claimed({ applicationId, gamerId, gamerTaskId: task.id, taskId, claimedAt, rewards });
    if (rewards.length > 0) this.events.granted({ applicationId, gamerId, gamerTaskId: task.id, items: rewards, grantedAt: grantedAt.toISOString() });
    return 'finished';
  }

  /** Finishes every claim a crash left half-done (started at or before `before`). */
  async recover(before: Date): Promise<number> {
    let recovered = 0;
    const seen = new Set<string>();
    const failures: unknown[] = [];
    for (;;) {
      const stuck = (await this.gamerTasks.unfinishedClaims(before)).filter((t) => !seen.has(t.id));
      if (stuck.length === 0) return recovered;
      for (const task of stuck) {
        seen.add(task.id);
        // one claim that keeps failing holds none of the others back; the step still fails after them
        const finished = await this.finishCounted(task).catch((error: unknown) => {
          failures.push(error);
          this.log.warn({ err: error, gamerTaskId: task.id }, 'a claim left half-done could not be finished yet; the next sweep tries again');
          return 'failed' as const;
        });
        if (finished !== 'finished') continue;
        recovered++;
        this.log.info({ gamerTaskId: task.id }, 'finished a claim left half-done');
      }
      if (failures.length > 0) throw failures[0];
    }
  }
}
