import { Role, type AdminGamerProgress, type GamerTaskWithChildren, type Identity, type InventoryItem } from '@gfts/contracts';
import { achievementIndex, achievementRecords, untrackedAchievements } from './domain/achievements.ts';
import { childRecordsOf, gamerTaskList } from './domain/gamer-task.ts';
import type { GamerTaskRecord } from './domain/model.ts';
import type { AchievementStatsRepository } from './repository/achievement-stats-repository.ts';
import type { CatalogRepository } from './repository/catalog-repository.ts';
import type { GamerProgressRepository } from './repository/gamer-progress-repository.ts';
import type { GamerTaskRepository } from './repository/gamer-task-repository.ts';
import type { InventoryRepository } from './repository/inventory-repository.ts';
import { trackAchievements } from './tracking.ts';

/** A game server's token (it reports a fleet's stats): no gamer of its own. */
const isGameServer = (identity: Identity): boolean => identity.roles.includes(Role.SERVER);

/** The gamer's reads: tasks, achievements, inventory. */
export class GamerTaskService {
  private readonly catalog: CatalogRepository;
  private readonly gamerTasks: GamerTaskRepository;
  private readonly progress: GamerProgressRepository;
  private readonly inventory: InventoryRepository;
  private readonly unlockStats: AchievementStatsRepository;

  constructor(catalog: CatalogRepository, gamerTasks: GamerTaskRepository, progress: GamerProgressRepository, inventory: InventoryRepository, unlockStats: AchievementStatsRepository) {
    this.catalog = catalog;
    this.gamerTasks = gamerTasks;
    this.progress = progress;
    this.inventory = inventory;
    this.unlockStats = unlockStats;
  }

  async tasks(identity: Identity, completed: boolean | undefined): Promise<GamerTaskWithChildren[]> {
    const now = new Date();
    const records = await this.gamerTasks.listActive(identity.applicationId, identity.gamerId, false, now);
    const repaired = await this.repairTrees(records, identity.applicationId);
    return gamerTaskList(await this.withProgress(identity, repaired, now), now, completed);
  }

  /**
   * Records with their progress. A game server's token is no gamer: its reads write nothing
   * (until 2026-11-28 they built it a progress document, whose entries had no gamer task
   * behind them and were dropped as orphans by the stat consumer).
   */
  private withProgress(identity: Identity, records: GamerTaskRecord[], now: Date): Promise<GamerTaskRecord[]> {
    return isGameServer(identity) ? this.progress.overlayAsStored(identity, records) : this.progress.overlay(identity, records, now);
  }

  /** Every achievement of the application: those the gamer has no record of yet show with no progress. */
  async achievements(identity: Identity, completed: boolean | undefined): Promise<GamerTaskWithChildren[]> {
    const { applicationId, gamerId } = identity;
    const now = new Date();
    const [entries, held] = await Promise.all([this.catalog.listLive(applicationId), this.gamerTasks.listActive(applicationId, gamerId, true, now)]);
    const untracked = untrackedAchievements(achievementIndex(entries), new Set(held.map((r) => r.taskId)));
    let records = held;
    if (untracked.length > 0 && isGameServer(identity)) {
      // A game server's token is no gamer: it sees the achievements as a new gamer would, and
      // nothing is tracked for it, since every tracked record counts in the unlock rates.
      const heldIds = new Set(held.map((r) => r.id));
      records = [...held, ...achievementRecords(untracked, applicationId, gamerId, now).filter((r) => !heldIds.has(r.id))];
    } else if (untracked.length > 0) {
      await trackAchievements(this.gamerTasks, this.unlockStats, untracked, applicationId, gamerId, now);
      records = await this.gamerTasks.listActive(applicationId, gamerId, true, now);
    }
    return gamerTaskList(await this.withProgress(identity, records, now), now, completed);
  }

  async items(identity: Identity): Promise<InventoryItem[]> {
    return this.inventory.list(identity.applicationId, identity.gamerId);
  }

  /**
   * What an admin sees of a gamer: the active tasks and the achievements the gamer has a
   * record of, and the inventory. Read only: an admin's look-up writes nothing (no tracking,
   * no repair, no progress document, which would name again a gamer just erased). A gamer
   * unknown to the service has empty lists.
   */
  async adminView(applicationId: string, gamerId: string): Promise<AdminGamerProgress> {
    const gamer = { applicationId, gamerId: gamerId.toLowerCase() };
    const now = new Date();
    const [tasks, achievements, inventory] = await Promise.all([
      this.gamerTasks.listActive(applicationId, gamer.gamerId, false, now),
      this.gamerTasks.listActive(applicationId, gamer.gamerId, true, now),
      this.inventory.list(applicationId, gamer.gamerId),
    ]);
    const view = async (records: GamerTaskRecord[]) => gamerTaskList(await this.progress.overlayAsStored(gamer, records), now, undefined);
    return { gamerId: gamer.gamerId, tasks: await view(tasks), achievements: await view(achievements), inventory };
  }

  /** A composite whose children were not all written (a crash during assign) gets them now. */
  private async repairTrees(records: GamerTaskRecord[], applicationId: string): Promise<GamerTaskRecord[]> {
    const ids = new Set(records.map((r) => r.id));
    const broken = records.filter((r) => r.parentGamerTaskId === null && r.children.some((c) => !ids.has(c.gamerTaskId)));
    if (broken.length === 0) return records;
    const added: GamerTaskRecord[] = [];
    for (const parent of broken) {
      // by id: the entry may have been archived since, and the gamer still holds the task
      const entry = await this.catalog.findByTaskId(applicationId, parent.taskId);
      if (!entry) continue;
      const children = childRecordsOf(parent, entry, parent.createdAt).filter((c) => !ids.has(c.id));
      await this.gamerTasks.ensureChildren(parent, children);
      added.push(...(await this.gamerTasks.findByIds(children.map((c) => c.id))));
    }
    return [...records, ...added];
  }
}
