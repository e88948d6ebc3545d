import type { CatalogRepository } from './repository/catalog-repository.ts';
import type { CatalogEntry } from './domain/model.ts';
import { achievementIndex, type AchievementIndex } from './domain/achievements.ts';

export interface CachedCatalog {
  entries: CatalogEntry[];
  achievements: AchievementIndex;
}

const MAX_APPLICATIONS = 10_000;

/**
 * The consumer's per-application catalog, so a stat event costs no catalog read. An entry
 * lives CATALOG_CACHE_TTL_MS at most and is dropped at once when any replica writes that
 * application's catalog (a NATS notice); concurrent loads of one application share one read.
 */
export class CatalogCache {
  private readonly cache = new Map<string, { loadedAt: number; catalog: Promise<CachedCatalog> }>();
  private readonly repository: CatalogRepository;
  private readonly ttlMs: number;

  constructor(repository: CatalogRepository, ttlMs: number) {
    this.repository = repository;
    this.ttlMs = ttlMs;
  }

  get(applicationId: string): Promise<CachedCatalog> {
    const now = Date.now();
    const hit = this.cache.get(applicationId);
    if (hit && now - hit.loadedAt < this.ttlMs) return hit.catalog;
    const catalog = this.repository.listLive(applicationId).then((entries) => ({ entries, achievements: achievementIndex(entries) }));
    if (this.cache.size >= MAX_APPLICATIONS) this.cache.clear();
    this.cache.set(applicationId, { loadedAt: now, catalog });
    catalog.catch(() => {
      if (this.cache.get(applicationId)?.catalog === catalog) this.cache.delete(applicationId);
    });
    return catalog;
  }

  invalidate(applicationId: string): void {
    this.cache.delete(applicationId);
  }
}
