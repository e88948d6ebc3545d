import { randomUUID } from 'node:crypto';
import { ExpiringCache } from '@gfts/platform';
import type { mongo } from 'mongoose';
import { isActive } from '../domain/expiry.ts';
import { definitionOf } from '../domain/gamer-task.ts';
import type { GamerTaskRecord, TaskDefinition, TaskProgress } from '../domain/model.ts';
import type { TaskChange } from '../domain/stat-batch.ts';
import type { Completion, GamerRef, GamerTaskRepository } from './gamer-task-repository.ts';
import { isDuplicateKey, type GamerProgressDoc, type ProgressEntry, type Store } from './store.ts';

/** A gamer's progress document id. */
export const progressKey = (gamer: GamerRef): string => `${gamer.applicationId}:${gamer.gamerId}`;

/** A gamer's progress as the stat rules read it. */
export interface GamerProgress {
  /** every entry with its task's definition, expired ones included (the rules skip them; the next write drops them) */
  tasks: TaskProgress[];
  applied: string[];
  /** entries whose gamer task is gone (a crash inside a reset), as read: the next write drops them, or replaces one tracked again */
  orphans: Orphan[];
  /** the document's epoch when read: what the definitions of entries a write adds are remembered under */
  epoch: string;
  /** the document's count of prunes of `applied` when read (null: none yet) */
  pruned: number | null;
}

/** An entry without its gamer task, in the state read. */
export interface Orphan {
  id: string;
  progress: number;
  games: number;
  completed: boolean;
}

/** One gamer's write of a stat batch. */
export interface ProgressWrite {
  owner: GamerRef;
  changes: TaskChange[];
  /** entries new to the document (achievements this batch tracked): written whole, on condition that they are absent */
  added: TaskProgress[];
  /**
   * entries of `added` that are there already without a gamer task (orphans): replaced whole,
   * on condition that they are still as read and the document's epoch too, which the
   * replacement draws anew (the id comes back with another definition)
   */
  replacing: Orphan[];
  /** entries of expired tasks, or whose gamer task is gone, dropped with the write */
  dropped: string[];
  /**
   * the orphans among `dropped`: dropped on condition that they are still as read and the
   * document's epoch too, as replaced ones are. Another replica may have tracked one again
   * meanwhile (a new epoch) or moved it by a definition it still holds, and applied events
   * to it: dropped over that, those events' progress was lost.
   */
  droppingOrphans: Orphan[];
  /** the document's epoch the write was planned from (GamerProgress.epoch) */
  epoch: string;
  /** the document's count of prunes the write was planned from (GamerProgress.pruned) */
  pruned: number | null;
}

/** Which gamers' writes the store took. */
export interface ProgressWriteResult {
  /** writes that matched the state they were planned from, or whose events had landed before */
  landed: ProgressWrite[];
  /** writes whose document moved meanwhile (another replica): their events must be applied again */
  stale: ProgressWrite[];
}

function entryOf(t: Pick<TaskProgress, 'progress' | 'games' | 'completed' | 'completedAt' | 'completedByEventId'>): ProgressEntry {
  return { p: t.progress, g: t.games, c: t.completed, ...(t.completed ? { at: t.completedAt, by: t.completedByEventId } : {}) };
}

function docOf(owner: GamerRef, tasks: TaskProgress[]): GamerProgressDoc {
  return {
    _id: progressKey(owner),
    applicationId: owner.applicationId,
    gamerId: owner.gamerId,
    epoch: randomUUID(),
    tasks: Object.fromEntries(tasks.map((t) => [t.id, entryOf(t)])),
    // gamer tasks written before progress documents kept their own applied ids
    applied: [...new Set(tasks.flatMap((t) => t.appliedEventIds))],
  };
}

/** A gamer's entries joined with their definitions (`known`, by `<epoch>:<gamer task id>`). */
function progressOf(doc: GamerProgressDoc, known: Map<string, TaskDefinition>): GamerProgress {
  const applied = doc.applied ?? [];
  const tasks: TaskProgress[] = [];
  const orphans: Orphan[] = [];
  for (const [id, e] of Object.entries(doc.tasks ?? {})) {
    const definition = known.get(`${doc.epoch}:${id}`);
    if (!definition) {
      orphans.push({ id, progress: e.p, games: e.g, completed: e.c });
      continue;
    }
    tasks.push({ ...definition, progress: e.p, games: e.g, completed: e.c, completedAt: e.at ?? null, completedByEventId: e.by ?? null, appliedEventIds: applied });
  }
  return { tasks, applied, orphans, epoch: doc.epoch, pruned: doc.pruned ?? null };
}

/** The events a write applies: those that changed one of its tasks. */
export function eventIdsOf(changes: TaskChange[]): string[] {
  return [...new Set(changes.flatMap((c) => c.eventIds))];
}

/**
 * A gamer's whole batch as one conditional single-document update: the translation of each
 * task's condition to its entry's path (not completed, and within the increment's bounds or
 * in exactly the state planned from; absent for an added entry), none of the events applied
 * yet, nor taken out of `applied` since the read; entries of expired or removed tasks
 * dropped; orphans replaced as they were read, under a new epoch. Null when there is
 * nothing to write.
 */
function progressOp({ owner, changes, added, replacing, dropped, droppingOrphans, epoch, pruned }: ProgressWrite, token: string): mongo.AnyBulkWriteOperation<GamerProgressDoc> | null {
  if (changes.length === 0 && added.length === 0 && dropped.length === 0) return null;
  const eventIds = eventIdsOf(changes);
  // Maps, not objects: the paths hold gamer-task ids, new names every time, and V8 builds a
  // hidden class for each new property name of an object (18 such paths: ~26 µs as object
  // properties, ~4 µs in a Map, measured in isolation). BSON writes a Map as the same
  // document, keys in order.
  const filter = new Map<string, unknown>([['_id', progressKey(owner)]]);
  if (eventIds.length > 0) {
    filter.set('applied', { $nin: eventIds });
    // An event applied elsewhere since the read, recorded as processed and pruned would pass
    // that condition: no prune since the read, or one (this replica's previous batch
    // settling, usually) that took out none of these events. (A prune before the read took
    // out events recorded before it, which the batch's read of the processed records, after
    // the documents', found.)
    const since = { pruned: (pruned ?? 0) + 1, lastPruned: { $nin: eventIds } };
    filter.set('$or', [pruned === null ? { pruned: { $exists: false } } : { pruned }, since]);
  }
  const set = new Map<string, unknown>([['lastWrite', token]]);
  const inc = new Map<string, number>();
  const unset = new Map<string, ''>();
  const after = new Map(changes.map((c) => [c.after.id, c.after]));
  const addedIds = new Set(added.map((t) => t.id));
  const orphans = new Map(replacing.map((o) => [o.id, o]));
  for (const task of added) {
    const orphan = orphans.get(task.id);
    if (orphan) {
      // Another replica may have replaced it first (and applied its events to it), or moved
      // it by a definition it still holds: then this write is stale. The state alone cannot
      // tell an entry replaced into the state read from the orphan: the epoch can.
      filter.set(`tasks.${task.id}.p`, orphan.progress);
      filter.set(`tasks.${task.id}.g`, orphan.games);
      filter.set(`tasks.${task.id}.c`, orphan.completed);
    } else {
      filter.set(`tasks.${task.id}`, { $exists: false });
    }
    set.set(`tasks.${task.id}`, entryOf(after.get(task.id) ?? task));
  }
  if (orphans.size > 0) {
    filter.set('epoch', epoch);
    set.set('epoch', randomUUID());
  }
  for (const orphan of droppingOrphans) {
    filter.set(`tasks.${orphan.id}.p`, orphan.progress);
    filter.set(`tasks.${orphan.id}.g`, orphan.games);
    filter.set(`tasks.${orphan.id}.c`, orphan.completed);
    filter.set('epoch', epoch);
  }
  for (const { before, after: next, increment } of changes) {
    if (addedIds.has(before.id)) continue;
    const path = `tasks.${before.id}`;
    filter.set(`${path}.c`, false);
    if (increment) {
      filter.set(`${path}.p`, { $lt: increment.progressBelow });
      if (increment.gamesAtMost !== null) filter.set(`${path}.g`, { $lte: increment.gamesAtMost });
      inc.set(`${path}.p`, increment.progress);
      inc.set(`${path}.g`, increment.games);
    } else {
      filter.set(`${path}.p`, before.progress);
      filter.set(`${path}.g`, before.games);
      for (const [field, value] of Object.entries(entryOf(next))) set.set(`${path}.${field}`, value);
    }
  }
  for (const id of dropped) unset.set(`tasks.${id}`, '');
  const update: Record<string, unknown> = {};
  update.$set = set;
  if (inc.size > 0) update.$inc = inc;
  if (unset.size > 0) update.$unset = unset;
  if (eventIds.length > 0) update.$push = { applied: { $each: eventIds } };
  return { updateOne: { filter: filter as unknown as mongo.Filter<GamerProgressDoc>, update } };
}

/** Records with progress, games and completion taken from their entries, where there is one. */
function overlaid(records: GamerTaskRecord[], entries: GamerProgressDoc['tasks']): GamerTaskRecord[] {
  return records.map((r) => {
    const entry = entries[r.id];
    if (!entry) return r;
    return { ...r, progress: entry.p, games: entry.g, completed: entry.c, completedAt: entry.at ?? r.completedAt, completedByEventId: entry.by ?? r.completedByEventId };
  });
}

/**
 * Gamers' progress documents: one per gamer, holding every active gamer task's state, which
 * the stat consumer moves with one conditional write per gamer and batch (docs/tasks.md
 * "Progress documents"). The gamer tasks keep the rest (the task's copy, expiry, claim
 * state; a claim copies the completion onto its gamer task). What the rules read of a task
 * besides its state never changes after assignment: it is read from the gamer tasks once and
 * kept here (bounded, keyed by the document's epoch). A gamer without a document gets one built from their
 * gamer tasks on first need: that is also how data written before progress documents is
 * taken over.
 */
export class GamerProgressRepository {
  private readonly store: Store;
  private readonly gamerTasks: GamerTaskRepository;
  private readonly definitions: ExpiringCache<TaskDefinition>;

  /** `definitionCacheSize`: task definitions kept in memory (TASK_DEFINITION_CACHE_SIZE). */
  constructor(store: Store, gamerTasks: GamerTaskRepository, definitionCacheSize: number) {
    this.store = store;
    this.gamerTasks = gamerTasks;
    this.definitions = new ExpiringCache(definitionCacheSize);
  }

  /** The progress of these gamers, in one read (documents built for those who have none). */
  async read(gamers: GamerRef[], now: Date): Promise<Map<string, GamerProgress>> {
    if (gamers.length === 0) return new Map();
    const keys = [...new Set(gamers.map(progressKey))];
    const docs = new Map((await this.store.gamerProgress.find({ _id: { $in: keys } }).toArray()).map((d) => [d._id, d]));
    const missing = uniqueGamers(gamers).filter((g) => !docs.has(progressKey(g)));
    const nowMs = now.getTime();
    const known = new Map<string, TaskDefinition>();
    // a document built here comes with its gamer tasks' definitions (a new gamer costs one read)
    const built = await this.build(missing, now);
    for (const doc of built.docs) {
      docs.set(doc._id, doc);
      const ours = built.read.get(doc._id);
      if (ours?.epoch !== doc.epoch) continue;
      for (const task of ours.tasks) {
        known.set(`${doc.epoch}:${task.id}`, definitionOf(task));
        this.remember(doc.epoch, task, nowMs);
      }
    }
    // definitions from memory; those of gamers with any missing, in one read of their
    // active gamer tasks (ranges on the (applicationId, gamerId, …) index: the same
    // documents by `_id $in` cost the local store more, bench/results/2026-11-26-tasks-progress-doc.md)
    const cold: GamerProgressDoc[] = [];
    for (const doc of docs.values()) {
      let complete = true;
      for (const id of Object.keys(doc.tasks ?? {})) {
        if (known.has(`${doc.epoch}:${id}`)) continue;
        const cached = this.definitions.get(`${doc.epoch}:${id}`, nowMs);
        if (cached) known.set(`${doc.epoch}:${id}`, cached);
        else complete = false;
      }
      if (!complete) cold.push(doc);
    }
    if (cold.length > 0) {
      const epochs = new Map(cold.map((doc) => [doc._id, doc]));
      for (const task of await this.gamerTasks.activeOf(cold, now)) {
        const doc = epochs.get(progressKey(task));
        if (!doc || doc.tasks?.[task.id] === undefined) continue;
        known.set(`${doc.epoch}:${task.id}`, definitionOf(task));
        this.remember(doc.epoch, task, nowMs);
      }
    }
    return new Map([...docs].map(([key, doc]) => [key, progressOf(doc, known)]));
  }

  /** A definition kept until its task expires (it is of no use after). */
  private remember(epoch: string, definition: TaskDefinition, nowMs: number): void {
    this.definitions.set(`${epoch}:${definition.id}`, definitionOf(definition), definition.expiredAt?.getTime() ?? Number.POSITIVE_INFINITY, nowMs);
  }

  /**
   * Writes a batch: one conditional update per gamer, in one unordered bulkWrite. A gamer's
   * write another replica's write got ahead of is left undone and reported stale. Only when
   * fewer writes matched than were sent are the documents read back to tell which landed:
   * each write leaves its own token in the document. Not the events applied: another
   * replica may have applied the same event (delivered to both) among other events, and its
   * write then looked like this one's. A write whose token another write replaced before the
   * read is reported stale although it landed; planned again, its events are found applied.
   */
  async write(writes: ProgressWrite[], now: Date): Promise<ProgressWriteResult> {
    const sent: { w: ProgressWrite; token: string; op: mongo.AnyBulkWriteOperation<GamerProgressDoc> }[] = [];
    for (const w of writes) {
      const token = randomUUID();
      const op = progressOp(w, token);
      if (op) sent.push({ w, token, op });
    }
    if (sent.length === 0) return { landed: writes, stale: [] };
    const result = await this.store.gamerProgress.bulkWrite(sent.map((s) => s.op), { ordered: false });
    if (result.matchedCount === sent.length) return this.rememberAdded({ landed: writes, stale: [] }, now);
    const stored = new Map(
      (await this.store.gamerProgress.find({ _id: { $in: sent.map((s) => progressKey(s.w.owner)) } }, { projection: { lastWrite: 1, ...Object.fromEntries(sent.flatMap((s) => s.w.added.map((t) => [`tasks.${t.id}`, 1]))) } }).toArray())
        .map((d) => [d._id, d]),
    );
    const tokens = new Map(sent.map((s) => [s.w, s.token]));
    const landed = (w: ProgressWrite) => {
      const token = tokens.get(w);
      // nothing to write (no op): nothing to land
      if (token === undefined) return true;
      const doc = stored.get(progressKey(w.owner));
      if (doc?.lastWrite === token) return true;
      // nothing to apply (only entries to add): it landed if the entries are there, whoever wrote them
      return eventIdsOf(w.changes).length === 0 && w.added.every((t) => doc?.tasks?.[t.id] !== undefined);
    };
    return this.rememberAdded({ landed: writes.filter(landed), stale: writes.filter((w) => !landed(w)) }, now);
  }

  /**
   * The definitions of entries a landed write added (achievements a batch tracked) are kept
   * as a read keeps them, so the gamer's next batch does not read their gamer tasks back. Under
   * the epoch the write was planned from: if the document moved to another epoch meanwhile,
   * the definitions are never looked up. Not those of a write that replaced orphans (a new
   * epoch): the gamer's next batch reads them back.
   */
  private rememberAdded(result: ProgressWriteResult, now: Date): ProgressWriteResult {
    // a write that replaced orphans moved the document to an epoch of its own
    for (const w of result.landed) if (w.replacing.length === 0) for (const task of w.added) this.remember(w.epoch, task, now.getTime());
    return result;
  }

  /**
   * Entries for gamer tasks just written (an assign, a repaired tree, entries a crash left
   * out): each set unless present. The gamer tasks must be stored first: a gamer without a
   * document gets one built from them.
   */
  async add(owner: GamerRef, tasks: TaskProgress[], now: Date): Promise<void> {
    if (tasks.length === 0) return;
    const _id = progressKey(owner);
    const ops: mongo.AnyBulkWriteOperation<GamerProgressDoc>[] = tasks.map((t) => ({
      updateOne: { filter: { _id, [`tasks.${t.id}`]: { $exists: false } }, update: { $set: { [`tasks.${t.id}`]: entryOf(t) } } },
    }));
    const first = await this.store.gamerProgress.bulkWrite(ops, { ordered: false });
    if (first.matchedCount === ops.length) return;
    // unmatched: the entry is there, or there was no document; one exists after this (built
    // here, or by a build that may have read the gamer tasks before these were stored), so
    // the same writes again add what is still missing
    if (!(await this.store.gamerProgress.findOne({ _id }, { projection: { _id: 1 } }))) await this.build([owner], now);
    await this.store.gamerProgress.bulkWrite(ops, { ordered: false });
  }

  /**
   * Gamer tasks as lists show them: progress, games and completion from the gamer's
   * progress document (a claim reads its completion there too). Entries missing for these
   * tasks are added.
   */
  async overlay(owner: GamerRef, records: GamerTaskRecord[], now: Date): Promise<GamerTaskRecord[]> {
    const _id = progressKey(owner);
    const doc = (await this.store.gamerProgress.findOne({ _id })) ?? (await this.build([owner], now)).docs[0];
    const entries = doc?.tasks ?? {};
    const missing = records.filter((r) => entries[r.id] === undefined && isActive(r.expiredAt, now));
    if (missing.length > 0) await this.add(owner, missing, now);
    return overlaid(records, entries);
  }

  /**
   * The same view, writing nothing (an admin's look-up): a gamer without a document, or a
   * task without an entry, shows as its record stands, which is what a build would store.
   */
  async overlayAsStored(owner: GamerRef, records: GamerTaskRecord[]): Promise<GamerTaskRecord[]> {
    const doc = await this.store.gamerProgress.findOne({ _id: progressKey(owner) }, { projection: { tasks: 1 } });
    return overlaid(records, doc?.tasks ?? {});
  }

  /**
   * The completion of one gamer task as its entry shows it, null when not completed (or
   * unknown). A gamer without a document gets one built (data from before keeps its
   * completions).
   */
  async completionOf(owner: GamerRef, id: string, now: Date): Promise<Completion | null> {
    const _id = progressKey(owner);
    const doc = (await this.store.gamerProgress.findOne({ _id }, { projection: { [`tasks.${id}`]: 1 } })) ?? (await this.build([owner], now)).docs[0];
    const entry = doc?.tasks?.[id];
    return entry?.c ? { progress: entry.p, games: entry.g, completedAt: entry.at ?? now, completedByEventId: entry.by ?? null } : null;
  }

  /**
   * Drops applied event ids recorded as processed (`$pullAll` of exactly those: safe whatever
   * else changed meanwhile), counting the prune and keeping its ids in `lastPruned`: a write
   * planned before it must not apply them again (progressOp). A document holding none of them
   * is left alone, so a prune that takes nothing out makes no write stale.
   */
  async forgetApplied(prunes: Map<string, string[]>): Promise<void> {
    if (prunes.size === 0) return;
    await this.store.gamerProgress.bulkWrite(
      [...prunes].map(([_id, eventIds]) => ({
        updateOne: { filter: { _id, applied: { $in: eventIds } }, update: { $pullAll: { applied: eventIds }, $set: { lastPruned: eventIds }, $inc: { pruned: 1 } } },
      })),
      { ordered: false },
    );
  }

  /**
   * Drops the entries of removed gamer tasks (reset, an entry that outlived its task), with a
   * new epoch: an id may come back with another definition (an achievement tracked again).
   */
  async remove(owner: GamerRef, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.store.gamerProgress.updateOne({ _id: progressKey(owner) }, { $unset: Object.fromEntries(ids.map((id) => [`tasks.${id}`, ''])), $set: { epoch: randomUUID() } });
  }

  /**
   * Drops the entries of expired gamer tasks the sweep removed: one unordered bulk write, an
   * update per gamer. Without it they stayed in the document of a gamer who is assigned
   * tasks but sends no stats (the consumer drops them on its next write). The epoch stays:
   * an expired task's id never comes back (achievements, whose ids do, never expire).
   */
  async dropExpired(removed: (GamerRef & { id: string })[]): Promise<void> {
    const byGamer = new Map<string, string[]>();
    for (const task of removed) {
      const key = progressKey(task);
      const ids = byGamer.get(key);
      if (ids) ids.push(task.id);
      else byGamer.set(key, [task.id]);
    }
    if (byGamer.size === 0) return;
    await this.store.gamerProgress.bulkWrite(
      [...byGamer].map(([_id, ids]) => ({ updateOne: { filter: { _id }, update: { $unset: Object.fromEntries(ids.map((id) => [`tasks.${id}`, ''])) } } })),
      { ordered: false },
    );
  }

  /** The gamer tasks the gamer's document has entries for (a reset's cleanup reads them first). */
  async entryIds(owner: GamerRef): Promise<string[]> {
    const doc = await this.store.gamerProgress.findOne({ _id: progressKey(owner) }, { projection: { tasks: 1 } });
    return Object.keys(doc?.tasks ?? {});
  }

  /** The gamer's document (erase). */
  async removeAllOf(owner: GamerRef): Promise<void> {
    await this.store.gamerProgress.deleteOne({ _id: progressKey(owner) });
  }

  /**
   * Documents for gamers who have none, built from their stored active gamer tasks. A build
   * that loses the insert to another (a replica, an assign) answers the stored document.
   */
  private async build(gamers: GamerRef[], now: Date): Promise<{ docs: GamerProgressDoc[]; read: Map<string, { epoch: string; tasks: TaskProgress[] }> }> {
    const read = new Map<string, { epoch: string; tasks: TaskProgress[] }>();
    if (gamers.length === 0) return { docs: [], read };
    const byGamer = new Map<string, TaskProgress[]>(gamers.map((g) => [progressKey(g), []]));
    for (const task of await this.gamerTasks.activeOf(gamers, now)) byGamer.get(progressKey(task))?.push(task);
    const built = gamers.map((g) => docOf(g, byGamer.get(progressKey(g)) ?? []));
    for (const doc of built) read.set(doc._id, { epoch: doc.epoch, tasks: byGamer.get(doc._id) ?? [] });
    try {
      await this.store.gamerProgress.insertMany(built, { ordered: false });
      return { docs: built, read };
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    // another build (a replica, an assign) inserted some first: theirs are the documents
    const stored = new Map((await this.store.gamerProgress.find({ _id: { $in: built.map((d) => d._id) } }).toArray()).map((d) => [d._id, d]));
    return { docs: built.map((d) => stored.get(d._id) ?? d), read };
  }
}

function uniqueGamers(gamers: GamerRef[]): GamerRef[] {
  return [...new Map(gamers.map((g) => [progressKey(g), { applicationId: g.applicationId, gamerId: g.gamerId }])).values()];
}
