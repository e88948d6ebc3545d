import { uuidv7 } from '@gfts/platform';
import { childRecordsOf, gamerTaskTree } from './domain/gamer-task.ts';
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
      const tree = gamerTaskTree(entry, { applicationId, gamerId, now, expiredAt: null, newId: uuidv7 });
      const stored = await repository.ensureParent(tree.parent);
      if (entry.children.length > 0) await repository.ensureChildren(childRecordsOf(stored, entry, now));
    }),
  );
}
