import { isActive } from '../domain/expiry.ts';
import type { GamerTaskRecord } from '../domain/model.ts';
import { fromDoc, isDuplicateKey, toDoc, type GamerIndexDoc, type GamerIndexEntry, type GamerTaskDoc, type Store } from './store.ts';
import { VersionedCollection } from './versioned.ts';

/** A record with every optional field present (older or foreign writes may lack some). */
const toRecord = (doc: GamerTaskDoc): GamerTaskRecord => {
  const r = fromDoc<GamerTaskRecord>(doc);
  return {
    ...r,
    parentGamerTaskId: r.parentGamerTaskId ?? null,
    children: r.children ?? [],
    statKey: r.statKey ?? null,
    completedAt: r.completedAt ?? null,
    completedByEventId: r.completedByEventId ?? null,
    claimState: r.claimState ?? 'none',
    claimStartedAt: r.claimStartedAt ?? null,
    claimedAt: r.claimedAt ?? null,
    appliedEventIds: r.appliedEventIds ?? [],
    expiredAt: r.expiredAt ?? null,
  };
};

const entryOf = (r: GamerTaskRecord): GamerIndexEntry => ({
  id: r.id,
  taskId: r.taskId,
  statKey: r.statKey,
  isAchievement: r.isAchievement,
  parentGamerTaskId: r.parentGamerTaskId,
  expiredAt: r.expiredAt,
});

const MAX_ATTEMPTS = 20;

/**
 * Gamer tasks: assigned tasks, tracked achievements, and the children of composites.
 *
 * Every read of the hot paths is by primary key: a gamer's tasks are found through the
 * gamer's index document, then read one by one. What a task is (application, gamer, task,
 * stat, kind, expiry) never changes after creation; its state (progress, completion,
 * claim) only moves through `advance`, one version at a time, atomically on MongoDB and on
 * FerretDB v1 alike.
 */
export class GamerTaskRepository {
  private readonly store: Store;
  private readonly tasks: VersionedCollection<GamerTaskDoc>;
  private readonly index: VersionedCollection<GamerIndexDoc>;

  constructor(store: Store) {
    this.store = store;
    this.tasks = new VersionedCollection(store.gamerTasks, store.gamerTaskVersions);
    this.index = new VersionedCollection(store.gamerIndex, store.gamerIndexVersions);
  }

  async findById(id: string): Promise<GamerTaskRecord | null> {
    const doc = await this.tasks.get(id);
    return doc ? toRecord(doc) : null;
  }

  /** The current state after losing a write race: follows newer versions and repairs the stored one. */
  async refreshById(id: string): Promise<GamerTaskRecord | null> {
    const doc = await this.tasks.refresh(id);
    return doc ? toRecord(doc) : null;
  }

  async findByIds(ids: string[]): Promise<GamerTaskRecord[]> {
    const found = await Promise.all(ids.map((id) => this.findById(id)));
    return found.filter((r): r is GamerTaskRecord => r !== null);
  }

  private async activeEntries(applicationId: string, gamerId: string, now: Date): Promise<GamerIndexEntry[]> {
    const doc = (await this.index.get(`${applicationId}:${gamerId}`)) ?? (await this.buildIndex(applicationId, gamerId));
    return doc.entries.filter((e) => isActive(e.expiredAt ?? null, now));
  }

  /**
   * A gamer seen for the first time gets an index built from a query of the gamer's tasks,
   * so tasks written without it (a data migration, a load-test seed) are found too.
   */
  private async buildIndex(applicationId: string, gamerId: string): Promise<GamerIndexDoc> {
    const id = `${applicationId}:${gamerId}`;
    const docs = await this.store.gamerTasks.find({ applicationId, gamerId }).toArray();
    const built: GamerIndexDoc = { _id: id, applicationId, gamerId, entries: docs.map((d) => entryOf(toRecord(d))), version: 1 };
    try {
      await this.store.gamerIndex.insertOne(built);
      return built;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      return (await this.index.get(id)) ?? built;
    }
  }

  /** The gamer's active tasks (top-level and children) of one kind: tasks, or achievements. */
  async listActive(applicationId: string, gamerId: string, isAchievement: boolean, now: Date): Promise<GamerTaskRecord[]> {
    const entries = (await this.activeEntries(applicationId, gamerId, now)).filter((e) => e.isAchievement === isAchievement);
    return this.findByIds(entries.map((e) => e.id));
  }

  /** Which catalog tasks the gamer holds active. */
  async heldTaskIds(applicationId: string, gamerId: string, now: Date): Promise<Set<string>> {
    return new Set((await this.activeEntries(applicationId, gamerId, now)).map((e) => e.taskId));
  }

  /** A stat event's read: the gamer's active tasks moved by any of these stats. */
  async findActiveForStats(applicationId: string, gamerId: string, stats: string[], now: Date): Promise<GamerTaskRecord[]> {
    const wanted = new Set(stats);
    const entries = (await this.activeEntries(applicationId, gamerId, now)).filter((e) => e.statKey !== null && wanted.has(e.statKey));
    return this.findByIds(entries.map((e) => e.id));
  }

  /**
   * Creates a new tree (assign). False when the gamer already holds this task for this
   * period: the unique index (applicationId, gamerId, taskId, expiredAt) refused the parent.
   * Children and the index entries are written after it, idempotently; a crash in between
   * leaves a task the index does not list, which the next assign of it repairs.
   */
  async insertTree(parent: GamerTaskRecord, children: GamerTaskRecord[], now: Date): Promise<boolean> {
    try {
      await this.store.gamerTasks.insertOne(toDoc(parent));
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      await this.repairUnlisted(parent, now);
      return false;
    }
    await this.insertIgnoringDuplicates(children);
    await this.list([parent, ...children], now);
    return true;
  }

  /** A task a crash left out of the gamer's index is put back (rare: found by a full query). */
  private async repairUnlisted(parent: GamerTaskRecord, now: Date): Promise<void> {
    const existing = await this.store.gamerTasks.findOne({ applicationId: parent.applicationId, gamerId: parent.gamerId, taskId: parent.taskId, expiredAt: parent.expiredAt });
    if (!existing) return;
    const record = toRecord(existing);
    const listed = new Set((await this.activeEntries(parent.applicationId, parent.gamerId, now)).map((e) => e.id));
    if (listed.has(record.id)) return;
    const children = await this.findByIds(record.children.map((c) => c.gamerTaskId));
    await this.list([record, ...children], now);
  }

  /** Writes a tree whose ids are derived from what it tracks: whoever writes first wins, the rest are no-ops. */
  async ensureTree(parent: GamerTaskRecord, children: GamerTaskRecord[], now: Date): Promise<void> {
    await this.insertIgnoringDuplicates([parent, ...children]);
    await this.list([parent, ...children], now);
  }

  /** Writes children a crash left unwritten (the ids come from their parent's record). */
  async ensureChildren(parent: GamerTaskRecord, children: GamerTaskRecord[], now: Date): Promise<void> {
    await this.insertIgnoringDuplicates(children);
    await this.list([parent, ...children], now);
  }

  private async insertIgnoringDuplicates(records: GamerTaskRecord[]): Promise<void> {
    if (records.length === 0) return;
    try {
      await this.store.gamerTasks.insertMany(records.map(toDoc), { ordered: false });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }

  /** Adds tasks to the gamer's index (dropping expired entries on the way), atomically against concurrent writers. */
  private async list(records: GamerTaskRecord[], now: Date): Promise<void> {
    if (records.length === 0) return;
    const { applicationId, gamerId } = records[0]!;
    const id = `${applicationId}:${gamerId}`;
    const added = records.map(entryOf);
    const addedIds = new Set(added.map((e) => e.id));
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const doc = (attempt === 0 ? await this.index.get(id) : await this.index.refresh(id)) ?? (await this.buildIndex(applicationId, gamerId));
      const present = new Set(doc.entries.map((e) => e.id));
      const expired = doc.entries.some((e) => !isActive(e.expiredAt ?? null, now));
      if (!expired && added.every((e) => present.has(e.id))) return;
      const kept = doc.entries.filter((e) => isActive(e.expiredAt ?? null, now) && !addedIds.has(e.id));
      if (await this.index.advance({ ...doc, entries: [...kept, ...added], version: doc.version + 1 })) return;
    }
    throw new Error(`the task index of gamer ${gamerId} kept changing`);
  }

  /**
   * Moves a task to its next state (next.version = the read version + 1), atomically against
   * every other writer on any replica. False when another writer moved it first.
   */
  async advance(next: GamerTaskRecord): Promise<boolean> {
    return this.tasks.advance(toDoc(next));
  }

  /** The sweep: expired gamer tasks leave the pool (index entries go with the gamer's next change). */
  async deleteExpired(now: Date): Promise<number> {
    const result = await this.store.gamerTasks.deleteMany({ expiredAt: { $ne: null, $lte: now } });
    return result.deletedCount;
  }

  async pruneVersions(before: Date): Promise<number> {
    return (await this.tasks.prune(before)) + (await this.index.prune(before));
  }
}
