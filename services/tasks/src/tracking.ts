import { achievementRecords } from './domain/achievements.ts';
import type { CatalogEntry } from './domain/model.ts';
import type { GamerTaskRepository } from './repository/gamer-task-repository.ts';

/**
 * Gives a gamer records of these achievements, idempotently (GamerTaskRepository.ensure):
 * achievements are tracked for every gamer without assignment, their records created on
 * first need (a stat event of the gamer, or a read of the gamer's achievements).
 */
export async function trackAchievements(repository: GamerTaskRepository, entries: CatalogEntry[], applicationId: string, gamerId: string, now: Date): Promise<void> {
  await repository.ensure(achievementRecords(entries, applicationId, gamerId, now));
}
