import { gamerTaskTree } from './domain/gamer-task.ts';
import { trackedTaskId } from './domain/ids.ts';
import type { CatalogEntry } from './domain/model.ts';
import type { GamerTaskRepository } from './repository/gamer-task-repository.ts';

/**
 * Gives a gamer records of these achievements (parent and children), idempotently and
 * safely against any number of concurrent callers: achievements are tracked for every gamer
 * without assignment, so their records are created on first need (a stat event of the
 * gamer, or a read of the gamer's achievements).
 */
export async function trackAchievements(repository: GamerTaskRepository, entries: CatalogEntry[], applicationId: string, gamerId: string, now: Date): Promise<void> {
  await Promise.all(
    entries.map(async (entry) => {
      const idFor = (taskId: string) => trackedTaskId(applicationId, gamerId, taskId);
      const tree = gamerTaskTree(entry, { applicationId, gamerId, now, expiredAt: null, idFor });
      await repository.ensureTree(tree.parent, tree.children, now);
    }),
  );
}
