import type { mongo } from 'mongoose';
import { isActive } from '../domain/expiry.ts';
import type { GamerTaskRecord } from '../domain/model.ts';
import type { TaskChange } from '../domain/stat-batch.ts';
import { fromDoc, isDuplicateKey, toDoc, type GamerTaskDoc, type Store } from './store.ts';

/** The conditional single-document write of one planned change (see applyChanges). */
function changeOp({ before, after, eventIds, increment }: TaskChange): mongo.AnyBulkWriteOperation<GamerTaskDoc> {
  const base = { _id: before.id, completed: false, appliedEventIds: { $nin: eventIds } };
  const push = { $push: { appliedEventIds: { $each: eventIds } } };
  if (increment) {
    const games = increment.gamesAtMost === null ? {} : { games: { $lte: increment.gamesAtMost } };
    return { updateOne: { filter: { ...base, progress: { $lt: increment.progressBelow }, ...games }, update: { $inc: { progress: increment.progress, games: increment.games }, ...push } } };
  }
  return {
    updateOne: {
      filter: { ...base, progress: before.progress, games: before.games },
      update: { $set: { progress: after.progress, games: after.games, completed: after.completed, completedAt: after.completedAt, completedByEventId: after.completedByEventId }, ...push },
    },
  };
}

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

/** Not expired at `now`: no expiry, or one still ahead (`$not` also matches a null expiry). */
const unexpired = (now: Date) => ({ expiredAt: { $not: { $lte: now } } });

export type ClaimStart =
  | { kind: 'started'; task: GamerTaskRecord }
  | { kind: 'notFound' }
  | { kind: 'notCompleted' }
  | { kind: 'alreadyClaimed' };

export interface GamerRef {
  applicationId: string;
  gamerId: string;
}

/** Which of a batch's task changes the store took. */
export interface BatchWriteResult {
  /** changes whose write matched the state they were planned from (or had landed before) */
  applied: TaskChange[];
  /** changes whose task moved meanwhile (another replica): their events must be applied again */
  stale: TaskChange[];
}

/**
 * Gamer tasks: assigned tasks, tracked achievements, and the children of composites. Every
 * state change is one single-document atomic write with its condition in the filter.
 */
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
    return (await this.activeOf([{ applicationId, gamerId }], now)).filter((t) => t.isAchievement === isAchievement);
  }

  /** Which catalog tasks the gamer holds active. */
  async heldTaskIds(applicationId: string, gamerId: string, now: Date): Promise<Set<string>> {
    return new Set((await this.activeOf([{ applicationId, gamerId }], now)).map((t) => t.taskId));
  }

  /**
   * Every active task of these gamers, in one query (the stat consumer's read of a batch):
   * two `$in` ranges on the (applicationId, gamerId, …) index, pairs checked here.
   */
  async activeOf(gamers: GamerRef[], now: Date): Promise<GamerTaskRecord[]> {
    if (gamers.length === 0) return [];
    const applications = [...new Set(gamers.map((g) => g.applicationId))];
    const ids = [...new Set(gamers.map((g) => g.gamerId))];
    const wanted = new Set(gamers.map((g) => `${g.applicationId}:${g.gamerId}`));
    const filter = applications.length === 1 && ids.length === 1 ? { applicationId: applications[0]!, gamerId: ids[0]! } : { applicationId: { $in: applications }, gamerId: { $in: ids } };
    const docs = await this.store.gamerTasks.find(filter).toArray();
    return docs.map(toRecord).filter((t) => wanted.has(`${t.applicationId}:${t.gamerId}`) && isActive(t.expiredAt, now));
  }

  /**
   * Creates a new tree (assign). False when the gamer already holds this task for this
   * period: the unique index (applicationId, gamerId, taskId, expiredAt) refused the parent.
   * Children are written after it; a crash in between leaves a parent whose missing
   * children the next read writes (GamerTaskService).
   */
  async insertTree(parent: GamerTaskRecord, children: GamerTaskRecord[]): Promise<boolean> {
    try {
      await this.store.gamerTasks.insertOne(toDoc(parent));
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
    await this.ensure(children);
    return true;
  }

  /**
   * Writes records whose ids are derived from what they track (achievements, children of a
   * written parent) unless they exist: an upsert that only sets on insert, so whoever writes
   * first wins and the rest change nothing. A concurrent upsert of the same id may be
   * refused by the primary key (11000): the document then exists, which is all this asks.
   */
  async ensure(records: GamerTaskRecord[]): Promise<void> {
    if (records.length === 0) return;
    const ops: mongo.AnyBulkWriteOperation<GamerTaskDoc>[] = records.map((r) => {
      const { _id, ...rest } = toDoc(r);
      return { updateOne: { filter: { _id }, update: { $setOnInsert: rest }, upsert: true } };
    });
    try {
      await this.store.gamerTasks.bulkWrite(ops, { ordered: false });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }

  /**
   * Writes a batch's task changes with one unordered bulkWrite. Each write is conditional:
   * none of its events applied yet, not completed, and either within the bounds of its
   * increment (`$inc`, which commutes with other replicas' increments) or, for a change that
   * completes or resets a window, in exactly the state it was planned from. A task another
   * replica moved out of that condition is left alone and reported stale.
   * Only when fewer writes matched than were sent are the written tasks read back to tell
   * which landed (a change whose events the task already shows landed before: a redelivery).
   */
  async applyChanges(changes: TaskChange[]): Promise<BatchWriteResult> {
    if (changes.length === 0) return { applied: [], stale: [] };
    const ops: mongo.AnyBulkWriteOperation<GamerTaskDoc>[] = changes.map(changeOp);
    const result = await this.store.gamerTasks.bulkWrite(ops, { ordered: false });
    if (result.matchedCount === changes.length) return { applied: changes, stale: [] };
    const stored = new Map(
      (await this.store.gamerTasks.find({ _id: { $in: changes.map((c) => c.before.id) } }, { projection: { appliedEventIds: 1 } }).toArray())
        .map((d) => [d._id, new Set(d.appliedEventIds ?? [])]),
    );
    const landed = (c: TaskChange) => c.eventIds.every((id) => stored.get(c.before.id)?.has(id));
    return { applied: changes.filter(landed), stale: changes.filter((c) => !landed(c)) };
  }

  /**
   * Drops event ids recorded as processed from tasks' applied lists (`$pull` of exactly
   * those ids: safe whatever else changed meanwhile, since the processed record now
   * guards them).
   */
  async forgetAppliedEvents(prunes: Map<string, string[]>): Promise<void> {
    if (prunes.size === 0) return;
    await this.store.gamerTasks.bulkWrite(
      [...prunes].map(([id, eventIds]) => ({ updateOne: { filter: { _id: id }, update: { $pull: { appliedEventIds: { $in: eventIds } } } } })),
      { ordered: false },
    );
  }

  /**
   * Claim step 1: marks a completed, unclaimed, active task of this gamer as being claimed.
   * One conditional write, so of any number of concurrent claims exactly one starts.
   */
  async beginClaim(id: string, owner: GamerRef, now: Date): Promise<ClaimStart> {
    const doc = await this.store.gamerTasks.findOneAndUpdate(
      { _id: id, applicationId: owner.applicationId, gamerId: owner.gamerId, completed: true, claimState: 'none', ...unexpired(now) },
      { $set: { claimState: 'claiming', claimStartedAt: now } },
      { returnDocument: 'after' },
    );
    if (doc) return { kind: 'started', task: toRecord(doc) };
    // why not: read once to answer precisely (unknown, foreign and expired look the same)
    const task = await this.findById(id);
    if (!task || task.applicationId !== owner.applicationId || task.gamerId !== owner.gamerId || !isActive(task.expiredAt, now)) return { kind: 'notFound' };
    if (!task.completed) return { kind: 'notCompleted' };
    return { kind: 'alreadyClaimed' };
  }

  /** Claim step 3: the claim is done. */
  async finishClaim(id: string, now: Date): Promise<void> {
    await this.store.gamerTasks.updateOne({ _id: id, claimState: 'claiming' }, { $set: { claimState: 'claimed', claimedAt: now } });
  }

  /** Claims a crash left between step 1 and step 3, started at or before `before`. */
  async unfinishedClaims(before: Date, limit = 500): Promise<GamerTaskRecord[]> {
    return (await this.store.gamerTasks.find({ claimState: 'claiming', claimStartedAt: { $lte: before } }).limit(limit).toArray()).map(toRecord);
  }

  /** The sweep: expired gamer tasks leave the pool (claims are finished before, by the recovery). */
  async deleteExpired(now: Date): Promise<number> {
    const result = await this.store.gamerTasks.deleteMany({ expiredAt: { $ne: null, $lte: now }, claimState: { $ne: 'claiming' } });
    return result.deletedCount;
  }
}
