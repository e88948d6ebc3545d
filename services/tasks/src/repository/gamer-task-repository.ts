import type { GameUpdate } from '../domain/stat-event.ts';
import type { GamerTaskRecord } from '../domain/model.ts';
import { activeFilter, fromDoc, isDuplicateKey, toDoc, type GamerTaskDoc, type Store } from './store.ts';

const toRecord = (doc: GamerTaskDoc) => fromDoc<GamerTaskRecord>(doc);

/** Gamer tasks: assigned tasks, lazily tracked achievements, and the children of composites. */
export class GamerTaskRepository {
  private readonly store: Store;
  constructor(store: Store) {
    this.store = store;
  }

  async findById(id: string): Promise<GamerTaskRecord | null> {
    const doc = await this.store.gamerTasks.findOne({ _id: id });
    return doc ? toRecord(doc) : null;
  }

  async findByIds(ids: string[]): Promise<GamerTaskRecord[]> {
    if (ids.length === 0) return [];
    return (await this.store.gamerTasks.find({ _id: { $in: ids } }).toArray()).map(toRecord);
  }

  /** The gamer's active tasks (top-level and children) of one kind: tasks, or achievements. */
  async listActive(applicationId: string, gamerId: string, isAchievement: boolean, now: Date): Promise<GamerTaskRecord[]> {
    const docs = await this.store.gamerTasks.find({ applicationId, gamerId, isAchievement, ...activeFilter(now) }).toArray();
    return docs.map(toRecord);
  }

  /** Which of these catalog tasks the gamer holds active. */
  async heldTaskIds(applicationId: string, gamerId: string, taskIds: string[], now: Date): Promise<Set<string>> {
    if (taskIds.length === 0) return new Set();
    const docs = await this.store.gamerTasks
      .find({ applicationId, gamerId, taskId: { $in: taskIds }, ...activeFilter(now) }, { projection: { taskId: 1 } })
      .toArray();
    return new Set(docs.map((d) => d.taskId));
  }

  /** The one query of a stat event: the gamer's active tasks moved by any of these stats. */
  async findActiveForStats(applicationId: string, gamerId: string, stats: string[], now: Date): Promise<GamerTaskRecord[]> {
    const docs = await this.store.gamerTasks.find({ applicationId, gamerId, statKey: { $in: stats }, ...activeFilter(now) }).toArray();
    return docs.map(toRecord);
  }

  /**
   * Creates a new tree (assign). False when the gamer already holds this task for this
   * period: the unique index (applicationId, gamerId, taskId, expiredAt) refused the parent.
   * Children are then written idempotently, so a crash in between is repaired by
   * `ensureChildren` with the same ids.
   */
  async insertTree(parent: GamerTaskRecord, children: GamerTaskRecord[]): Promise<boolean> {
    try {
      await this.store.gamerTasks.insertOne(toDoc(parent));
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
    await this.ensureChildren(children);
    return true;
  }

  /**
   * Makes sure a tree exists, whoever else creates it at the same time (achievements):
   * the parent is upserted on its unique key, then its children with the ids the stored
   * parent names. Answers the stored parent.
   */
  async ensureParent(parent: GamerTaskRecord): Promise<GamerTaskRecord> {
    const { _id, ...rest } = toDoc(parent);
    const key = { applicationId: parent.applicationId, gamerId: parent.gamerId, taskId: parent.taskId, expiredAt: parent.expiredAt };
    for (let attempt = 0; ; attempt++) {
      try {
        const doc = await this.store.gamerTasks.findOneAndUpdate(key, { $setOnInsert: { _id, ...rest } }, { upsert: true, returnDocument: 'after' });
        if (doc) return toRecord(doc);
      } catch (error) {
        // two upserts raced: the loser's insert hit the unique index; read the winner's
        if (!isDuplicateKey(error) || attempt >= 3) throw error;
      }
    }
  }

  async ensureChildren(children: GamerTaskRecord[]): Promise<void> {
    if (children.length === 0) return;
    try {
      await this.store.gamerTasks.insertMany(children.map(toDoc), { ordered: false });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }

  /**
   * Applies one game to one gamer task: a single conditional write that succeeds only if
   * the task is still at the version it was read at and has not seen this event. A
   * redelivered event, or the same event on another replica, can never apply twice.
   */
  async applyGame(task: GamerTaskRecord, update: GameUpdate, eventId: string, now: Date): Promise<boolean> {
    const set: Record<string, unknown> = { progress: update.progress, games: update.games, completed: update.completed };
    if (update.completed) Object.assign(set, { completedAt: now, completedByEventId: eventId });
    if (update.appliedEventIds) set.appliedEventIds = update.appliedEventIds;
    const result = await this.store.gamerTasks.updateOne(
      { _id: task.id, version: task.version, appliedEventIds: { $ne: eventId } },
      {
        $set: set,
        $inc: { version: 1 },
        ...(update.appliedEventIds ? {} : { $push: { appliedEventIds: eventId } }),
      },
    );
    return result.matchedCount === 1;
  }

  /** Records a composite parent's completed-children count, completing it when all are. */
  async updateParent(parentId: string, doneChildren: number, allDone: boolean, eventId: string, now: Date): Promise<boolean> {
    if (allDone) {
      const result = await this.store.gamerTasks.updateOne(
        { _id: parentId, completed: false },
        { $set: { completed: true, completedAt: now, completedByEventId: eventId, progress: doneChildren }, $inc: { version: 1 } },
      );
      return result.modifiedCount === 1;
    }
    await this.store.gamerTasks.updateOne({ _id: parentId, completed: false }, { $max: { progress: doneChildren }, $inc: { version: 1 } });
    return false;
  }

  /**
   * Claim step 1: the one atomic transition none -> claiming. Of any number of concurrent
   * claims of one task, exactly one gets the task back.
   */
  async beginClaim(id: string, applicationId: string, gamerId: string, now: Date): Promise<GamerTaskRecord | null> {
    const doc = await this.store.gamerTasks.findOneAndUpdate(
      { _id: id, applicationId, gamerId, completed: true, claimState: 'none', ...activeFilter(now) },
      { $set: { claimState: 'claiming', claimStartedAt: now }, $inc: { version: 1 } },
      { returnDocument: 'after' },
    );
    return doc ? toRecord(doc) : null;
  }

  /** Claim step 3: claiming -> claimed. */
  async finishClaim(id: string, now: Date): Promise<boolean> {
    const result = await this.store.gamerTasks.updateOne({ _id: id, claimState: 'claiming' }, { $set: { claimState: 'claimed', claimedAt: now }, $inc: { version: 1 } });
    return result.modifiedCount === 1;
  }

  /** Claims left between step 1 and step 3 (a crash), started before `before`. */
  async findUnfinishedClaims(before: Date, limit = 500): Promise<GamerTaskRecord[]> {
    const docs = await this.store.gamerTasks.find({ claimState: 'claiming', claimStartedAt: { $lte: before } }).limit(limit).toArray();
    return docs.map(toRecord);
  }

  /** The sweep: expired gamer tasks leave the pool (a claim in flight is finished first). */
  async deleteExpired(now: Date): Promise<number> {
    const result = await this.store.gamerTasks.deleteMany({ expiredAt: { $ne: null, $lte: now }, claimState: { $ne: 'claiming' } });
    return result.deletedCount;
  }
}
