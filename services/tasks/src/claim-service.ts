import { ErrorCode, type Identity, type RewardItem } from '@gfts/contracts';
import { conflict, notFound } from '@gfts/platform';
import type { FastifyBaseLogger } from 'fastify';
import { isActive } from './domain/expiry.ts';
import type { GamerTaskRecord } from './domain/model.ts';
import type { TaskEvents } from './events.ts';
import type { GamerTaskRepository } from './repository/gamer-task-repository.ts';
import type { InventoryRepository } from './repository/inventory-repository.ts';
import type { GrantDoc } from './repository/store.ts';
import type { ClaimMetrics } from './stats/metrics.ts';

export interface ClaimFaults {
  /** called between writing the grants and marking the task claimed (tests: a crash there) */
  afterGrant?: (task: GamerTaskRecord) => void | Promise<void>;
}

/** The grants of a claimed task: one per reward, with an id that can be written only once. */
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

/**
 * Claim exactly once, without multi-document transactions:
 *   1. none -> claiming: one atomic conditional update; of concurrent claims one wins.
 *   2. grants: one ledger document per reward, id `<gamerTaskId>:<index>`; writing them
 *      again adds nothing, so this step can be repeated any number of times.
 *   3. claiming -> claimed.
 * A crash after 1 or 2 leaves the task `claiming`; recovery (at start and in the periodic
 * sweep) repeats 2 and 3. Rewards land in the inventory exactly once whatever happens.
 */
export class ClaimService {
  private readonly gamerTasks: GamerTaskRepository;
  private readonly inventory: InventoryRepository;
  private readonly events: TaskEvents;
  private readonly metrics: ClaimMetrics;
  private readonly log: FastifyBaseLogger;
  private readonly faults: ClaimFaults;

  constructor(deps: { gamerTasks: GamerTaskRepository; inventory: InventoryRepository; events: TaskEvents; metrics: ClaimMetrics; log: FastifyBaseLogger; faults?: ClaimFaults }) {
    this.gamerTasks = deps.gamerTasks;
    this.inventory = deps.inventory;
    this.events = deps.events;
    this.metrics = deps.metrics;
    this.log = deps.log;
    this.faults = deps.faults ?? {};
  }

  async claim(identity: Identity, gamerTaskId: string): Promise<RewardItem[]> {
    const id = gamerTaskId.toLowerCase();
    for (let attempt = 0; attempt < 2; attempt++) {
      const now = new Date();
      const task = await this.gamerTasks.beginClaim(id, identity.applicationId, identity.gamerId, now);
      if (task) {
        await this.finish(task, now);
        this.metrics.claims.inc({ outcome: 'claimed' });
        return task.task.rewards;
      }
      const current = await this.gamerTasks.findById(id);
      if (!current || current.applicationId !== identity.applicationId || current.gamerId !== identity.gamerId || !isActive(current.expiredAt, now)) {
        this.metrics.claims.inc({ outcome: 'not_found' });
        throw notFound('no such gamer task');
      }
      if (current.claimState !== 'none') {
        this.metrics.claims.inc({ outcome: 'already_claimed' });
        throw conflict(ErrorCode.ALREADY_CLAIMED, 'the rewards of this task were already claimed');
      }
      if (!current.completed) {
        this.metrics.claims.inc({ outcome: 'not_completed' });
        throw conflict(ErrorCode.TASK_NOT_COMPLETED, 'the task is not completed');
      }
      // it completed between the two reads: claim again
    }
    throw conflict(ErrorCode.CONFLICT, 'the task changed during the claim; try again');
  }

  /** Steps 2 and 3; safe to repeat, and to run from two places at once. */
  private async finish(task: GamerTaskRecord, now: Date): Promise<void> {
    const grants = grantsOf(task, now);
    const added = await this.inventory.grant(grants);
    if (added > 0) this.metrics.grants.inc(added);
    await this.faults.afterGrant?.(task);
    if (!(await this.gamerTasks.finishClaim(task.id, now))) return;
    const claimedAt = now.toISOString();
    this.events.claimed({ applicationId: task.applicationId, gamerId: task.gamerId, gamerTaskId: task.id, taskId: task.taskId, claimedAt, rewards: task.task.rewards });
    if (grants.length > 0) this.events.granted({ applicationId: task.applicationId, gamerId: task.gamerId, gamerTaskId: task.id, items: task.task.rewards, grantedAt: claimedAt });
  }

  /** Finishes every claim a crash left half-done (started before `before`). */
  async recover(before: Date): Promise<number> {
    let recovered = 0;
    for (;;) {
      const stuck = await this.gamerTasks.findUnfinishedClaims(before);
      if (stuck.length === 0) return recovered;
      for (const task of stuck) {
        await this.finish(task, new Date());
        recovered++;
        this.log.info({ gamerTaskId: task.id }, 'finished a claim left half-done');
      }
    }
  }
}
