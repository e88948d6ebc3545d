import type { GamerTaskWithChildren, Identity, InventoryItem } from '@gfts/contracts';
import { achievementIndex, untrackedAchievements } from './domain/achievements.ts';
import { childRecordsOf, gamerTaskList } from './domain/gamer-task.ts';
import type { CatalogEntry, GamerTaskRecord } from './domain/model.ts';
import type { CatalogRepository } from './repository/catalog-repository.ts';
import type { GamerTaskRepository } from './repository/gamer-task-repository.ts';
import type { InventoryRepository } from './repository/inventory-repository.ts';
import { trackAchievements } from './tracking.ts';

/** The gamer's reads: tasks, achievements, inventory. */
export class GamerTaskService {
  private readonly catalog: CatalogRepository;
  private readonly gamerTasks: GamerTaskRepository;
  private readonly inventory: InventoryRepository;

  constructor(catalog: CatalogRepository, gamerTasks: GamerTaskRepository, inventory: InventoryRepository) {
    this.catalog = catalog;
    this.gamerTasks = gamerTasks;
    this.inventory = inventory;
  }

  async tasks(identity: Identity, completed: boolean | undefined): Promise<GamerTaskWithChildren[]> {
    const now = new Date();
    const records = await this.gamerTasks.listActive(identity.applicationId, identity.gamerId, false, now);
    const repaired = await this.repairTrees(records, identity.applicationId);
    return gamerTaskList(repaired, now, completed);
  }

  /** Every achievement of the application: those the gamer has no record of yet show with no progress. */
  async achievements(identity: Identity, completed: boolean | undefined): Promise<GamerTaskWithChildren[]> {
    const { applicationId, gamerId } = identity;
    const now = new Date();
    const [entries, held] = await Promise.all([this.catalog.list(applicationId), this.gamerTasks.listActive(applicationId, gamerId, true, now)]);
    const untracked = untrackedAchievements(achievementIndex(entries), new Set(held.map((r) => r.taskId)));
    let records = held;
    if (untracked.length > 0) {
      await trackAchievements(this.gamerTasks, untracked, applicationId, gamerId, now);
      records = await this.gamerTasks.listActive(applicationId, gamerId, true, now);
    }
    return gamerTaskList(records, now, completed);
  }

  async items(identity: Identity): Promise<InventoryItem[]> {
    return this.inventory.list(identity.applicationId, identity.gamerId);
  }

  /** A composite whose children were not all written (a crash during assign) gets them now. */
  private async repairTrees(records: GamerTaskRecord[], applicationId: string): Promise<GamerTaskRecord[]> {
    const ids = new Set(records.map((r) => r.id));
    const broken = records.filter((r) => r.parentGamerTaskId === null && r.children.some((c) => !ids.has(c.gamerTaskId)));
    if (broken.length === 0) return records;
    const entries = new Map<string, CatalogEntry>((await this.catalog.list(applicationId)).map((e) => [e.id, e]));
    const added: GamerTaskRecord[] = [];
    for (const parent of broken) {
      const entry = entries.get(parent.taskId);
      if (!entry) continue;
      const children = childRecordsOf(parent, entry, parent.createdAt).filter((c) => !ids.has(c.id));
      await this.gamerTasks.ensure(children);
      added.push(...(await this.gamerTasks.findByIds(children.map((c) => c.id))));
    }
    return [...records, ...added];
  }
}
