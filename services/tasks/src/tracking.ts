import { achievementRecords } from './domain/achievements.ts';
import type { CatalogEntry } from './domain/model.ts';
import type { AchievementStatsRepository } from './repository/achievement-stats-repository.ts';
import type { GamerTaskRepository } from './repository/gamer-task-repository.ts';

/**
 * Gives a gamer records of these achievements, idempotently (GamerTaskRepository.ensure):
 * achievements are tracked for every gamer without assignment, their records created on
 * first need (a stat event of the gamer, or a read of the gamer's achievements). The
 * records this call created count as tracked in the unlock rates.
 */
export async function trackAchievements(repository: GamerTaskRepository, stats: AchievementStatsRepository, entries: CatalogEntry[], applicationId: string, gamerId: string, now: Date): Promise<void> {
  const created = await repository.ensure(achievementRecords(entries, applicationId, gamerId, now));
  await stats.record(created, [], now);
}
