import type { AchievementStat } from '@gfts/contracts';
import { unlockRates } from './domain/unlock-rates.ts';
import type { AchievementStatsRepository } from './repository/achievement-stats-repository.ts';
import type { CatalogRepository } from './repository/catalog-repository.ts';

/** GET /{applicationId}/achievements/stats: the catalog's achievements with their counters (no scan of gamer data). */
export class UnlockRateService {
  private readonly catalog: CatalogRepository;
  private readonly counters: AchievementStatsRepository;

  constructor(catalog: CatalogRepository, counters: AchievementStatsRepository) {
    this.catalog = catalog;
    this.counters = counters;
  }

  async list(applicationId: string): Promise<AchievementStat[]> {
    const [entries, counters] = await Promise.all([this.catalog.listLive(applicationId), this.counters.list(applicationId)]);
    return unlockRates(entries, counters);
  }
}
