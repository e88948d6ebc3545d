import type { GamerErasedEvent } from '@gfts/contracts';
import type { AchievementStatsRepository } from '../repository/achievement-stats-repository.ts';
import type { IdempotencyRepository } from '../repository/event-log-repository.ts';
import type { GamerProgressRepository } from '../repository/gamer-progress-repository.ts';
import type { GamerTaskRepository } from '../repository/gamer-task-repository.ts';
import type { InventoryRepository } from '../repository/inventory-repository.ts';
import type { DeadLetterStore } from '../stats/dead-letters.ts';

/** Rounds of the gamer tasks' removal (one more than the rounds that found something, normally two). */
const ERASE_ROUNDS_MAX = 4;

/**
 * The tasks service's part of erasing a gamer (gamer.erased): every gamer task (assigned
 * tasks, achievements, claimed or not, children), the gamer's progress document, the unlocks
 * and their counts in the unlock rates, the inventory, the assign idempotency keys, and the
 * dead letters of the gamer's stat events. Each step deletes what is still there, so running
 * it again (a redelivery, a second job) changes nothing more.
 */
export function tasksEraser(deps: {
  gamerTasks: GamerTaskRepository; progress: GamerProgressRepository; unlockStats: AchievementStatsRepository; inventory: InventoryRepository; keys: IdempotencyRepository;
  deadLetters: Pick<DeadLetterStore, 'removeOfGamer'>;
}) {
  return async (event: GamerErasedEvent): Promise<void> => {
    const owner = { applicationId: event.applicationId.toLowerCase(), gamerId: event.gamerId.toLowerCase() };
    // Again while a round removes anything: a read of the gamer's achievements (or a stat
    // event) under way tracks records after the first round's read, each counted tracked in
    // the unlock rates; left to the final delete below they stayed counted for good (until
    // 2026-11-29). Each round's removals are uncounted; rounds are bounded.
    for (let round = 0; round < ERASE_ROUNDS_MAX; round++) {
      const { removed } = await deps.gamerTasks.removeTrees(owner, () => true, ['none', 'claiming', 'claimed']);
      await deps.unlockStats.forget(removed);
      if (removed.length === 0) break;
    }
    await deps.unlockStats.forget(await deps.gamerTasks.removeAllOf(owner));
    await deps.unlockStats.forgetUnlocksOf(owner.applicationId, owner.gamerId);
    await deps.progress.removeAllOf(owner);
    await deps.inventory.removeAllOf(owner.applicationId, owner.gamerId);
    await deps.keys.removeAllOf(owner.applicationId, owner.gamerId);
    await deps.deadLetters.removeOfGamer(owner.applicationId, owner.gamerId);
  };
}
