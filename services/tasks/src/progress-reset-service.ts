import type { ProgressResetResult, ResetScope } from '@gfts/contracts';
import type { FastifyBaseLogger } from 'fastify';
import { entriesToDrop, grantsKept, resetSelection } from './domain/progress-reset.ts';
import type { AchievementStatsRepository } from './repository/achievement-stats-repository.ts';
import type { GamerProgressRepository } from './repository/gamer-progress-repository.ts';
import type { GamerTaskRepository } from './repository/gamer-task-repository.ts';
import type { InventoryRepository } from './repository/inventory-repository.ts';

/** POST /{applicationId}/gamers/{gamerId}/progress/reset (admin). */
export class ProgressResetService {
  private readonly deps: { gamerTasks: GamerTaskRepository; progress: GamerProgressRepository; inventory: InventoryRepository; unlockStats: AchievementStatsRepository; log?: Pick<FastifyBaseLogger, 'error'> };

  constructor(deps: ProgressResetService['deps']) {
    this.deps = deps;
  }

  async reset(applicationId: string, gamerId: string, scope: ResetScope): Promise<ProgressResetResult> {
    const { gamerTasks, progress, inventory, unlockStats } = this.deps;
    const { select, claimStates } = resetSelection(scope);
    const owner = { applicationId, gamerId };
    const { removed, count } = await gamerTasks.removeTrees(owner, select, claimStates);
    // their progress goes after them (and before the unlock counts), with every entry
    // without a gamer task, so a reset retried after a failure here removes what is left
    const removedIds = removed.flatMap((top) => [top.id, ...top.children.map((c) => c.gamerTaskId)]);
    try {
      // the entries before the gamer tasks held: a task assigned in between keeps its entry
      const entries = await progress.entryIds(owner);
      const held = (await gamerTasks.activeOf([owner], new Date())).map((t) => t.id);
      await progress.remove(owner, entriesToDrop(entries, held, removedIds));
    } catch (error) {
      // Uncounted even when their progress failed to go: only this call knows it removed
      // them, and a retry, which finds them gone, would never uncount them (until 2026-11-29).
      // The progress write's error is the one answered.
      await unlockStats.forget(removed).catch((forgetError: unknown) => this.deps.log?.error({ err: forgetError, gamerId }, 'reset failed, and its removed achievements were not uncounted: the unlock rates count them until a reconciliation'));
      throw error;
    }
    // removed achievements are tracked again, from zero, on the gamer's next event or read
    await unlockStats.forget(removed);
    // `all` takes the inventory, but not what the tasks it left paid: a claim in flight (kept,
    // whatever the scope) may have written its grants already and marks its task claimed next,
    // and a claimed task kept in its tree must not show claimed with its rewards gone. The ids
    // are read after the trees went, expired ones too (a claim may finish after its task expired).
    const inventoryItemsRemoved = scope === 'all' ? await inventory.removeAllBut(applicationId, gamerId, grantsKept(await gamerTasks.idsOf(owner), removedIds)) : 0;
    return { gamerId, scope, tasksRemoved: count, inventoryItemsRemoved };
  }
}
