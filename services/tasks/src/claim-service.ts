import { ErrorCode, type Identity, type RewardItem } from '@gfts/contracts';
import { conflict, notFound } from '@gfts/platform';
import type { FastifyBaseLogger } from 'fastify';
import { isActive } from './domain/expiry.ts';
import type { TaskEvents } from './events.ts';
import type { ClaimRepository } from './repository/claim-repository.ts';
import type { GamerTaskRepository } from './repository/gamer-task-repository.ts';
import type { InventoryRepository } from './repository/inventory-repository.ts';
import type { ClaimDoc, GrantDoc } from './repository/store.ts';
import type { ClaimMetrics } from './stats/metrics.ts';

export interface ClaimFaults {
  /** called between writing the grants and finishing the claim (tests: a crash there) */
  afterGrant?: (claim: ClaimDoc) => void | Promise<void>;
}

/** The grants of a claim: one per reward, with an id that can be written only once. */
export function grantsOf(claim: ClaimDoc, now: Date): GrantDoc[] {
  return claim.rewards.map((reward, index) => ({
    _id: `${claim._id}:${index}`,
    applicationId: claim.applicationId,
    gamerId: claim.gamerId,
    gamerTaskId: claim._id,
    inventoryItemId: reward.inventoryItemId,
    quantity: reward.quantity,
    grantedAt: now,
  }));
}

const MAX_ATTEMPTS = 20;

/**
 * Claim exactly once, without multi-document transactions:
 *   1. insert the claim record, keyed by the gamer task id: of any number of concurrent
 *      claims exactly one inserts it, the others are refused by the primary key;
 *   2. insert the grants into the inventory ledger, one per reward, keyed
 *      `<gamerTaskId>:<index>`: writing them again adds nothing, so this step can be
 *      repeated any number of times;
 *   3. mark the claim and the gamer task claimed.
 * A crash after 1 or 2 leaves the claim `claiming`; recovery (at start and in the periodic
 * sweep) repeats 2 and 3 from the claim record. Rewards land in the inventory exactly once.
 */
export class ClaimService {
  private readonly gamerTasks: GamerTaskRepository;
  private readonly claims: ClaimRepository;
  private readonly inventory: InventoryRepository;
  private readonly events: TaskEvents;
  private readonly metrics: ClaimMetrics;
  private readonly log: FastifyBaseLogger;
  private readonly faults: ClaimFaults;

  constructor(deps: { gamerTasks: GamerTaskRepository; claims: ClaimRepository; inventory: InventoryRepository; events: TaskEvents; metrics: ClaimMetrics; log: FastifyBaseLogger; faults?: ClaimFaults }) {
    this.gamerTasks = deps.gamerTasks;
    this.claims = deps.claims;
    this.inventory = deps.inventory;
    this.events = deps.events;
    this.metrics = deps.metrics;
    this.log = deps.log;
    this.faults = deps.faults ?? {};
  }

  async claim(identity: Identity, gamerTaskId: string): Promise<RewardItem[]> {
    const id = gamerTaskId.toLowerCase();
    const now = new Date();
    const task = await this.gamerTasks.findById(id);
    if (!task || task.applicationId !== identity.applicationId || task.gamerId !== identity.gamerId || !isActive(task.expiredAt, now)) {
      this.metrics.claims.inc({ outcome: 'not_found' });
      throw notFound('no such gamer task');
    }
    if (!task.completed) {
      this.metrics.claims.inc({ outcome: 'not_completed' });
      throw conflict(ErrorCode.TASK_NOT_COMPLETED, 'the task is not completed');
    }
    const claim: ClaimDoc = {
      _id: task.id,
      applicationId: task.applicationId,
      gamerId: task.gamerId,
      taskId: task.taskId,
      rewards: task.task.rewards,
      state: 'claiming',
      startedAt: now,
      claimedAt: null,
    };
    if (task.claimState !== 'none' || !(await this.claims.begin(claim))) {
      this.metrics.claims.inc({ outcome: 'already_claimed' });
      throw conflict(ErrorCode.ALREADY_CLAIMED, 'the rewards of this task were already claimed');
    }
    await this.finish(claim);
    this.metrics.claims.inc({ outcome: 'claimed' });
    return claim.rewards;
  }

  /** Steps 2 and 3; safe to repeat, and to run from two places at once. */
  private async finish(claim: ClaimDoc): Promise<void> {
    const now = new Date();
    const added = await this.inventory.grant(grantsOf(claim, now));
    if (added > 0) this.metrics.grants.inc(added);
    await this.faults.afterGrant?.(claim);
    await this.markTaskClaimed(claim._id, now);
    await this.claims.markClaimed(claim._id, now);
    const claimedAt = now.toISOString();
    this.events.claimed({ applicationId: claim.applicationId, gamerId: claim.gamerId, gamerTaskId: claim._id, taskId: claim.taskId, claimedAt, rewards: claim.rewards });
    if (claim.rewards.length > 0) {
      this.events.granted({ applicationId: claim.applicationId, gamerId: claim.gamerId, gamerTaskId: claim._id, items: claim.rewards, grantedAt: claimedAt });
    }
  }

  /** The gamer task shows the claim (the claim record, not this flag, guards against a second one). */
  private async markTaskClaimed(id: string, now: Date): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const task = attempt === 0 ? await this.gamerTasks.findById(id) : await this.gamerTasks.refreshById(id);
      if (!task || task.claimState === 'claimed') return;
      if (await this.gamerTasks.advance({ ...task, claimState: 'claimed', claimedAt: now, version: task.version + 1 })) return;
    }
    throw new Error(`gamer task ${id} kept changing while its claim finished`);
  }

  /** Finishes every claim a crash left half-done (started before `before`). */
  async recover(before: Date): Promise<number> {
    let recovered = 0;
    const seen = new Set<string>();
    for (;;) {
      const stuck = (await this.claims.unfinished(before)).filter((c) => !seen.has(c._id));
      if (stuck.length === 0) return recovered;
      for (const claim of stuck) {
        seen.add(claim._id);
        await this.finish(claim);
        recovered++;
        this.log.info({ gamerTaskId: claim._id }, 'finished a claim left half-done');
      }
    }
  }
}
