import type { mongo } from 'mongoose';
import { isActive } from '../domain/expiry.ts';
import { isRemovableTree } from '../domain/progress-reset.ts';
import type { ClaimState, GamerTaskRecord, TaskProgress } from '../domain/model.ts';
import { fromDoc, isDuplicateKey, toDoc, upsertedIndexes, type GamerTaskDoc, type Store } from './store.ts';

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

/** A completion as the gamer's progress entry shows it. */
export type Completion = Pick<TaskProgress, 'progress' | 'games' | 'completedAt' | 'completedByEventId'>;

export type ClaimStart =
  | { kind: 'started'; task: GamerTaskRecord }
  | { kind: 'notFound' }
  | { kind: 'notCompleted' }
  /** `task`: the record as read (claiming or claimed) */
  | { kind: 'alreadyClaimed'; task: GamerTaskRecord };

export interface GamerRef {
  applicationId: string;
  gamerId: string;
}

/**
 * Gamer tasks: assigned tasks, tracked achievements, and the children of composites, with
 * their claim state (their progress, completion included, lives in the gamer's progress
 * document: GamerProgressRepository; a claim copies the completion onto the gamer task). Every state change is one single-document
 * atomic write with its condition in the filter.
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
    await this.ensureChildren(parent, children);
    return true;
  }

  /**
   * The children of a written parent, made unless they exist (ensure). A child of a parent
   * that is gone (a reset that removed the parent before an assign wrote its children, or
   * one that failed between its two deletes) holds the child task's place for the period in
   * the unique index: the new parent's child was refused, and the composite could never
   * complete (until 2026-11-28). Such a leftover is removed, unless a claim has started on
   * it, and the child written, once: what refuses it then is no leftover.
   */
  async ensureChildren(parent: GamerTaskRecord, children: GamerTaskRecord[]): Promise<void> {
    // a new tree's children have new ids: all of them are written, but for leftovers in the way
    if ((await this.ensure(children)).length === children.length) return;
    const present = new Set((await this.store.gamerTasks.find({ _id: { $in: children.map((c) => c.id) } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
    const refused = children.filter((c) => !present.has(c.id));
    if (refused.length === 0) return;
    const { applicationId, gamerId } = parent;
    const holders = await this.store.gamerTasks
      .find({ applicationId, gamerId, $or: refused.map((c) => ({ taskId: c.taskId, expiredAt: c.expiredAt })), parentGamerTaskId: { $nin: [null, parent.id] } }, { projection: { _id: 1, parentGamerTaskId: 1 } })
      .toArray();
    const parents = new Set((await this.store.gamerTasks.find({ _id: { $in: holders.map((h) => h.parentGamerTaskId!) } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
    const leftovers = holders.filter((h) => !parents.has(h.parentGamerTaskId!)).map((h) => h._id);
    if (leftovers.length === 0) return;
    await this.store.gamerTasks.deleteMany({ _id: { $in: leftovers }, applicationId, gamerId, claimState: 'none' });
    await this.ensure(refused);
  }

  /**
   * Writes records whose ids are derived from what they track (achievements, children of a
   * written parent) unless they exist: an upsert that only sets on insert, so whoever writes
   * first wins and the rest change nothing. A concurrent upsert of the same id may be
   * refused by the primary key (11000): the document then exists, which is all this asks.
   * Answers the records this call inserted (the unlock-rate counters count those).
   */
  async ensure(records: GamerTaskRecord[]): Promise<GamerTaskRecord[]> {
    if (records.length === 0) return [];
    const ops: mongo.AnyBulkWriteOperation<GamerTaskDoc>[] = records.map((r) => {
      const { _id, ...rest } = toDoc(r);
      return { updateOne: { filter: { _id }, update: { $setOnInsert: rest }, upsert: true } };
    });
    const inserted = await upsertedIndexes(() => this.store.gamerTasks.bulkWrite(ops, { ordered: false }));
    return records.filter((_, i) => inserted.has(i));
  }

  /**
   * Claim step 1: marks an unclaimed, active task of this gamer as being claimed, copying
   * onto it the completion its progress entry shows (`completion`; null: not completed).
   * One conditional write, so of any number of concurrent claims exactly one starts.
   */
  async beginClaim(id: string, owner: GamerRef, now: Date, completion: Completion | null): Promise<ClaimStart> {
    if (completion) {
      const doc = await this.store.gamerTasks.findOneAndUpdate(
        { _id: id, applicationId: owner.applicationId, gamerId: owner.gamerId, claimState: 'none', ...unexpired(now) },
        { $set: { claimState: 'claiming', claimStartedAt: now, completed: true, ...completion } },
        { returnDocument: 'after' },
      );
      if (doc) return { kind: 'started', task: toRecord(doc) };
    }
    // why not: read once to answer precisely (unknown, foreign and expired look the same)
    const task = await this.findById(id);
    if (!task || task.applicationId !== owner.applicationId || task.gamerId !== owner.gamerId || !isActive(task.expiredAt, now)) return { kind: 'notFound' };
    if (task.claimState !== 'none') return { kind: 'alreadyClaimed', task };
    return { kind: 'notCompleted' };
  }

  /**
   * Claim step 3: the claim is done. `finished` by this call, `alreadyFinished` by another
   * finish of the same claim, or `gone`: the task was deleted meanwhile, which only a gamer's
   * erasure does to a task being claimed (resets and the expiry sweep leave those).
   */
  async finishClaim(id: string, now: Date): Promise<'finished' | 'alreadyFinished' | 'gone'> {
    const { matchedCount } = await this.store.gamerTasks.updateOne({ _id: id, claimState: 'claiming' }, { $set: { claimState: 'claimed', claimedAt: now } });
    if (matchedCount === 1) return 'finished';
    return (await this.store.gamerTasks.findOne({ _id: id }, { projection: { _id: 1 } })) ? 'alreadyFinished' : 'gone';
  }

  /** Claims a crash left between step 1 and step 3, started at or before `before`. */
  async unfinishedClaims(before: Date, limit = 500): Promise<GamerTaskRecord[]> {
    return (await this.store.gamerTasks.find({ claimState: 'claiming', claimStartedAt: { $lte: before } }).limit(limit).toArray()).map(toRecord);
  }

  /**
   * Removes a gamer's task trees (reset, erase): each top-level record `select` picks whose
   * whole tree is in `claimStates` (isRemovableTree), on condition that the top's claim state
   * still is (a claim that starts meanwhile keeps its task), then the children of those
   * removed that still are too. Answers the top-level records this call removed (one
   * conditional delete each, so two removals racing never both answer one) and how many
   * documents went in all.
   */
  async removeTrees(owner: GamerRef, select: (top: GamerTaskRecord) => boolean, claimStates: ClaimState[]): Promise<{ removed: GamerTaskRecord[]; count: number }> {
    const { applicationId, gamerId } = owner;
    const records = (await this.store.gamerTasks.find({ applicationId, gamerId }).toArray()).map(toRecord);
    const childrenOf = new Map<string, GamerTaskRecord[]>();
    for (const r of records) {
      if (r.parentGamerTaskId === null) continue;
      const siblings = childrenOf.get(r.parentGamerTaskId);
      if (siblings) siblings.push(r);
      else childrenOf.set(r.parentGamerTaskId, [r]);
    }
    // a child whose parent is gone (a removal that failed between its two deletes, or one that
    // ran between an assign's parent and children) is removed as a tree of its own
    const ids = new Set(records.map((r) => r.id));
    const tops = records.filter((t) => (t.parentGamerTaskId === null || !ids.has(t.parentGamerTaskId)) && select(t) && isRemovableTree(t, childrenOf.get(t.id) ?? [], claimStates));
    const deleted = await Promise.all(tops.map((t) => this.store.gamerTasks.findOneAndDelete({ _id: t.id, applicationId, gamerId, claimState: { $in: claimStates } })));
    const removed = deleted.filter((d): d is GamerTaskDoc => d !== null).map(toRecord);
    const parentIds = removed.map((r) => r.id);
    const children = parentIds.length === 0 ? 0 : (await this.store.gamerTasks.deleteMany({ applicationId, gamerId, parentGamerTaskId: { $in: parentIds }, claimState: { $in: claimStates } })).deletedCount;
    return { removed, count: removed.length + children };
  }

  /** The ids of every record a gamer holds, expired or not (a reset of scope all keeps their grants). */
  async idsOf(owner: GamerRef): Promise<string[]> {
    const docs = await this.store.gamerTasks.find({ applicationId: owner.applicationId, gamerId: owner.gamerId }, { projection: { _id: 1 } }).toArray();
    return docs.map((d) => d._id);
  }

  /**
   * Every record of a gamer, whatever is left after removeTrees (erase); answers the records
   * this call removed, so that their unlock-rate counts go with them: one a read tracked
   * after the erasure's last round was deleted here still counted (until 2026-11-29).
   */
  async removeAllOf(owner: GamerRef): Promise<GamerTaskRecord[]> {
    const { applicationId, gamerId } = owner;
    const left = await this.store.gamerTasks.find({ applicationId, gamerId }, { projection: { _id: 1 } }).toArray();
    const deleted = await Promise.all(left.map((d) => this.store.gamerTasks.findOneAndDelete({ _id: d._id, applicationId, gamerId })));
    // and what came in between (a child of an assign racing the erasure)
    await this.store.gamerTasks.deleteMany({ applicationId, gamerId });
    return deleted.filter((d): d is GamerTaskDoc => d !== null).map(toRecord);
  }

  /**
   * The sweep: one page of expired gamer tasks leaves the pool (claims are finished before,
   * by the recovery; one that starts meanwhile keeps its task). Answers how many the page
   * found and the tasks this call removed, whose progress entries go next.
   */
  async deleteExpiredPage(now: Date, limit: number): Promise<{ found: number; removed: (GamerRef & { id: string })[] }> {
    const expired = { expiredAt: { $ne: null, $lte: now }, claimState: { $ne: 'claiming' as const } };
    const page = await this.store.gamerTasks.find(expired, { projection: { _id: 1, applicationId: 1, gamerId: 1 } }).limit(limit).toArray();
    if (page.length === 0) return { found: 0, removed: [] };
    const ids = page.map((d) => d._id);
    const { deletedCount } = await this.store.gamerTasks.deleteMany({ _id: { $in: ids }, ...expired });
    // another replica's sweep took this page first: its entries are that sweep's to drop
    if (deletedCount === 0) return { found: page.length, removed: [] };
    const kept = new Set((await this.store.gamerTasks.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
    return { found: page.length, removed: page.filter((d) => !kept.has(d._id)).map((d) => ({ applicationId: d.applicationId, gamerId: d.gamerId, id: d._id })) };
  }
}
