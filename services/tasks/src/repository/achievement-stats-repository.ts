import type { mongo } from 'mongoose';
import { isUnlockRateRecord } from '../domain/unlock-rates.ts';
import type { GamerTaskRecord, TaskProgress } from '../domain/model.ts';
import { isDuplicateKey, upsertedIndexes, type AchievementStatsDoc, type Store, type UnlockDoc } from './store.ts';

export interface CounterChange {
  applicationId: string;
  taskId: string;
  completed: number;
  tracked: number;
}

const counterId = (applicationId: string, taskId: string) => `${applicationId}:${taskId}`;

/** Adds up changes per achievement, dropping those that add nothing. */
function merged(changes: CounterChange[]): CounterChange[] {
  const byId = new Map<string, CounterChange>();
  for (const c of changes) {
    const id = counterId(c.applicationId, c.taskId);
    const sum = byId.get(id) ?? { applicationId: c.applicationId, taskId: c.taskId, completed: 0, tracked: 0 };
    sum.completed += c.completed;
    sum.tracked += c.tracked;
    byId.set(id, sum);
  }
  return [...byId.values()].filter((c) => c.completed !== 0 || c.tracked !== 0);
}

/**
 * Unlock-rate counters (GET /{applicationId}/achievements/stats): one document per
 * achievement moved only by `$inc`, which commutes, so concurrent batches on any number of
 * replicas add up exactly. What is counted is decided by writes that happen once per gamer
 * and achievement: the upsert that inserts the gamer's achievement record (tracked), and the
 * upsert that inserts the gamer's unlock record (completed). A redelivered event, or two
 * replicas on the same event, insert nothing the second time and so count nothing.
 */
export class AchievementStatsRepository {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  /**
   * Counts what a stat batch (or a read of achievements) did, in at most two bulk writes:
   * `tracked`, achievement records this batch inserted; `completed`, achievement records
   * this batch (or an earlier delivery of its events) completed.
   */
  async record(tracked: TaskProgress[], completed: TaskProgress[], now: Date): Promise<void> {
    const unlocked = await this.insertUnlocks(completed.filter(isUnlockRateRecord), now);
    await this.increment([
      ...tracked.filter(isUnlockRateRecord).map((r) => ({ applicationId: r.applicationId, taskId: r.taskId, completed: 0, tracked: 1 })),
      ...unlocked.map((r) => ({ applicationId: r.applicationId, taskId: r.taskId, completed: 1, tracked: 0 })),
    ]);
  }

  /**
   * Uncounts achievement records that were removed (reset, erase): each stops being tracked,
   * and its unlock, if this call removes it, stops counting as completed. `removed` must be
   * records the caller's own delete removed, so that two removals never uncount one twice.
   */
  async forget(removed: GamerTaskRecord[]): Promise<void> {
    const records = removed.filter(isUnlockRateRecord);
    const unlocks = await Promise.all(records.map((r) => this.store.unlocks.findOneAndDelete({ _id: r.id })));
    await this.increment(
      records.map((r, i) => ({ applicationId: r.applicationId, taskId: r.taskId, completed: unlocks[i] ? -1 : 0, tracked: -1 })),
    );
  }

  /** Unlocks of a gamer whose record is already gone (erase): removed one by one, each uncounted once. */
  async forgetUnlocksOf(applicationId: string, gamerId: string): Promise<void> {
    const left = await this.store.unlocks.find({ applicationId, gamerId }, { projection: { _id: 1 } }).toArray();
    const removed = await Promise.all(left.map((u) => this.store.unlocks.findOneAndDelete({ _id: u._id })));
    await this.increment(removed.filter((u): u is UnlockDoc => u !== null).map((u) => ({ applicationId, taskId: u.taskId, completed: -1, tracked: 0 })));
  }

  /** The counters of an application's achievements, by taskId. */
  async list(applicationId: string): Promise<Map<string, { completedCount: number; trackedCount: number }>> {
    const docs = await this.store.achievementStats.find({ applicationId }).toArray();
    return new Map(docs.map((d) => [d.taskId, { completedCount: d.completedCount ?? 0, trackedCount: d.trackedCount ?? 0 }]));
  }

  /** Unlock records for these completions; answers those this call inserted. */
  private async insertUnlocks(records: TaskProgress[], now: Date): Promise<TaskProgress[]> {
    const unique = [...new Map(records.map((r) => [r.id, r])).values()];
    if (unique.length === 0) return [];
    const ops: mongo.AnyBulkWriteOperation<UnlockDoc>[] = unique.map((r) => ({
      updateOne: {
        filter: { _id: r.id },
        update: { $setOnInsert: { applicationId: r.applicationId, gamerId: r.gamerId, taskId: r.taskId, unlockedAt: r.completedAt ?? now } },
        upsert: true,
      },
    }));
    const inserted = await upsertedIndexes(() => this.store.unlocks.bulkWrite(ops, { ordered: false }));
    const fresh = unique.filter((_, i) => inserted.has(i));
    if (fresh.length === 0) return [];
    // A reset or an erasure may have removed the achievement between the batch's write and
    // this settle, its uncounting finding no unlock yet (forget): an unlock of a record that
    // is gone is taken back, and counted only when the uncounting took it first (until
    // 2026-11-29 it stayed, counted for good, and the record tracked again later under the
    // same derived id could never count its own completion). A record tracked again already,
    // by a read between the reset and this settle, is not told apart (a record's creation
    // time is no test: one a batch tracks and completes at once is made after its completion).
    const standing = new Set((await this.store.gamerTasks.find({ _id: { $in: fresh.map((r) => r.id) } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
    const gone = fresh.filter((r) => !standing.has(r.id));
    const takenBack = new Set((await Promise.all(gone.map((r) => this.store.unlocks.findOneAndDelete({ _id: r.id })))).filter((d): d is UnlockDoc => d !== null).map((d) => d._id));
    return fresh.filter((r) => !takenBack.has(r.id));
  }

  /**
   * One unordered bulk write of `$inc`s. A counter's first upsert may lose a race with
   * another replica's (duplicate key): the document exists then, and that increment is
   * written again, once (the one retry an upsert under a unique key calls for).
   */
  private async increment(changes: CounterChange[]): Promise<void> {
    const sums = merged(changes);
    if (sums.length === 0) return;
    const op = (c: CounterChange): mongo.AnyBulkWriteOperation<AchievementStatsDoc> => ({
      updateOne: {
        filter: { _id: counterId(c.applicationId, c.taskId) },
        update: { $inc: { completedCount: c.completed, trackedCount: c.tracked }, $setOnInsert: { applicationId: c.applicationId, taskId: c.taskId } },
        upsert: true,
      },
    });
    try {
      await this.store.achievementStats.bulkWrite(sums.map(op), { ordered: false });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const failed = ((error as { writeErrors?: { index: number }[] }).writeErrors ?? []).map((w) => sums[w.index]!);
      await this.store.achievementStats.bulkWrite(failed.map(op), { ordered: false });
    }
  }
}
