/**
 * Gamer tasks written straight into the tasks database, for the tasks benches (`--setup
 * direct`, the default of `--tasks-only`, and the full run's tasks scenarios): the HTTP assign
 * path is too slow on this machine to give 10k gamers their tasks in a bench run.
 *
 * The documents are built here, from the catalog as `GET /api/v1/{applicationId}/tasks`
 * answers it, not with the service's code (bench/README.md "Data"): a bench speaks HTTP and
 * NATS like any client, so a refactor of the service does not break it, and the same bench
 * runs against older code (the before/after of issue #10). What it must know is the stored
 * shape of a gamer task (`gamer_tasks`: the assigned task's copy, its window state, its claim
 * state) and of a gamer's progress document (`gamer_progress`: each task's progress, which
 * the stat consumer moves), which the bench checks after writing: it reads a few gamers'
 * lists through the gateway and stops if the service does not list exactly what was written.
 * Code from before progress documents ignores them; code since would build each gamer's on
 * the gamer's first event, a one-time cost a bench of steady state must not measure.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ApplicationTask, ApplicationTaskChild, TaskDetail } from '@gfts/contracts';
import type { Db } from 'mongodb';
import { seededRandom } from './tasks-mix.ts';

export interface DirectAssignment {
  gamerId: string;
  /** catalog entry ids the gamer holds: 3 daily, 1 weekly composite, every achievement */
  taskIds: string[];
}

/** A gamer task as the tasks service stores it (collection `gamer_tasks`). */
export interface GamerTaskDocument {
  _id: string;
  applicationId: string;
  gamerId: string;
  taskId: string;
  parentGamerTaskId: string | null;
  children: { taskId: string; gamerTaskId: string }[];
  isAchievement: boolean;
  family: string;
  statKey: string | null;
  targetValue: number;
  numberOfGames: number;
  task: TaskDetail;
  progress: number;
  games: number;
  completed: boolean;
  completedAt: Date | null;
  completedByEventId: string | null;
  claimState: 'none' | 'claiming' | 'claimed';
  claimStartedAt: Date | null;
  claimedAt: Date | null;
  appliedEventIds: string[];
  /**
   * Read by the code before the store rework (efa83ba: a compare-and-set on it, which breaks
   * without it) and by nothing since: written always, so before and after get the same bytes.
   */
  version: number;
  createdAt: Date;
  expiredAt: Date | null;
}

/** A gamer's progress document as the tasks service stores it (collection `gamer_progress`). */
export interface GamerProgressDocument {
  _id: string;
  applicationId: string;
  gamerId: string;
  epoch: string;
  /** gamer task id → progress, games, completed */
  tasks: Record<string, { p: number; g: number; c: boolean }>;
  applied: string[];
}

/** The progress document of a gamer holding these (unplayed) gamer tasks. */
export function gamerProgressDoc(applicationId: string, gamerId: string, docs: GamerTaskDocument[]): GamerProgressDocument {
  return {
    _id: `${applicationId}:${gamerId}`,
    applicationId,
    gamerId,
    epoch: randomUUID(),
    tasks: Object.fromEntries(docs.map((d) => [d._id, { p: d.progress, g: d.games, c: d.completed }])),
    applied: [],
  };
}

/** When a task of `family` assigned at `now` expires (design.md "Tasks"): daily at the next UTC midnight, weekly on the next Monday, lifetime never. */
export function expiryOf(family: string, now: Date): Date | null {
  const day = (d: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + d));
  switch (family) {
    case 'daily':
      return day(1);
    case 'weekly':
      return day((1 - now.getUTCDay() + 7) % 7 || 7);
    case 'monthly':
      return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    case 'lifetime':
      return null;
    default:
      throw new Error(`the bench writes no ${family} tasks`);
  }
}

/**
 * The id of the gamer task that tracks an achievement: the service derives it from
 * (application, gamer, task) so that replicas creating it at once collide on the primary key
 * (docs/tasks.md); the bench writes the same id, or the service would track it twice.
 */
export function trackedTaskId(applicationId: string, gamerId: string, taskId: string): string {
  const h = createHash('sha256').update(`${applicationId}|${gamerId}|${taskId}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The task detail a gamer task carries: the configured task as the assign answers it. */
function detailOf(t: ApplicationTaskChild | ApplicationTask, applicationId: string): TaskDetail {
  const children = 'children' in t ? t.children : [];
  return {
    id: t.id,
    applicationId,
    name: t.name,
    description: t.description,
    applicationStatsId: t.applicationStatsId,
    targetValue: t.targetValue,
    numberOfGames: t.numberOfGames,
    family: t.family,
    parentTaskId: t.parentTaskId,
    isAchievement: t.isAchievement,
    rewards: t.rewards.map((r) => ({ inventoryItemId: r.inventoryItemId, quantity: r.quantity })),
    children: children.map((c) => ({ id: c.id })),
  };
}

/**
 * The documents one catalog entry gives a gamer, as an assign (or the tracking of an
 * achievement) creates them: the entry's own and, for a composite, one per child, all
 * expiring together; the parent lists which gamer task holds which child.
 */
export function gamerTaskDocs(
  entry: ApplicationTask,
  o: { applicationId: string; gamerId: string; now: Date; expiredAt: Date | null; idFor: (taskId: string) => string },
): GamerTaskDocument[] {
  const composite = entry.children.length > 0;
  const doc = (t: ApplicationTask | ApplicationTaskChild, id: string, parent: string | null, statKey: string | null): GamerTaskDocument => ({
    _id: id,
    applicationId: o.applicationId,
    gamerId: o.gamerId,
    taskId: t.id,
    parentGamerTaskId: parent,
    children: [],
    isAchievement: t.isAchievement,
    family: t.family,
    statKey,
    targetValue: t.targetValue,
    numberOfGames: t.numberOfGames,
    task: detailOf(t, o.applicationId),
    progress: 0,
    games: 0,
    completed: false,
    completedAt: null,
    completedByEventId: null,
    claimState: 'none',
    claimStartedAt: null,
    claimedAt: null,
    appliedEventIds: [],
    version: 1,
    createdAt: o.now,
    expiredAt: o.expiredAt,
  });
  const parent = doc(entry, o.idFor(entry.id), null, composite ? null : entry.applicationStatsId);
  const children = entry.children.map((c) => doc(c, o.idFor(c.id), parent._id, c.applicationStatsId));
  parent.children = children.map((c) => ({ taskId: c.taskId, gamerTaskId: c._id }));
  return [parent, ...children];
}

/** The seeded picks: 3 of the daily entries and 1 of the weekly ones, by name order. */
export function seededPicks<T extends { name: string }>(daily: T[], weekly: T[], seed: number): T[] {
  const random = seededRandom(seed);
  const byName = (a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const d = [...daily].sort(byName);
  for (let i = d.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [d[i], d[j]] = [d[j]!, d[i]!];
  }
  const w = [...weekly].sort(byName);
  return [...d.slice(0, 3), ...(w.length ? [w[Math.floor(random() * w.length)]!] : [])];
}

/**
 * Inserts each gamer's tasks (as POST /tasks/assign would create them) and the records of
 * every achievement (as the first event or read of the gamer would create them, with the
 * same derived ids), in batches of 1,000 documents. `catalog` is the application's top-level
 * entries as the catalog API lists them. Returns what each gamer holds.
 */
export async function writeGamerTasks(
  db: Db,
  o: { collection: string; applicationId: string; catalog: ApplicationTask[]; gamerIds: string[]; seed: number; onProgress?: (done: number, docs: number) => void },
): Promise<{ assignments: DirectAssignment[]; docs: number; ms: number }> {
  const daily = o.catalog.filter((e) => !e.isAchievement && e.family === 'daily');
  const weekly = o.catalog.filter((e) => !e.isAchievement && e.family === 'weekly');
  const achievements = o.catalog.filter((e) => e.isAchievement);
  if (daily.length < 3 || weekly.length < 1) throw new Error(`the catalog of ${o.applicationId} has ${daily.length} daily and ${weekly.length} weekly entries`);
  const now = new Date();
  const target = db.collection<GamerTaskDocument>(o.collection);
  const progress = db.collection<GamerProgressDocument>('gamer_progress');
  const assignments: DirectAssignment[] = [];
  let batch: GamerTaskDocument[] = [];
  let progressBatch: GamerProgressDocument[] = [];
  let docs = 0;
  let n = 0;
  // assigned tasks get fresh time-ordered ids, as the service gives them
  const freshId = () => seededUuidV7(now, `${o.applicationId}:${o.seed}`, n++);
  const t0 = performance.now();
  for (const [g, gamerId] of o.gamerIds.entries()) {
    const picks = seededPicks(daily, weekly, o.seed + g);
    const held = [
      ...picks.flatMap((entry) => gamerTaskDocs(entry, { applicationId: o.applicationId, gamerId, now, expiredAt: expiryOf(entry.family, now), idFor: freshId })),
      ...achievements.flatMap((entry) => gamerTaskDocs(entry, { applicationId: o.applicationId, gamerId, now, expiredAt: null, idFor: (taskId) => trackedTaskId(o.applicationId, gamerId, taskId) })),
    ];
    batch.push(...held);
    progressBatch.push(gamerProgressDoc(o.applicationId, gamerId, held));
    assignments.push({ gamerId, taskIds: [...picks, ...achievements].map((e) => e.id) });
    if (batch.length >= 1000) {
      await target.insertMany(batch, { ordered: false });
      await progress.insertMany(progressBatch, { ordered: false });
      docs += batch.length;
      batch = [];
      progressBatch = [];
      o.onProgress?.(g + 1, docs);
    }
  }
  if (batch.length) await target.insertMany(batch, { ordered: false });
  if (progressBatch.length) await progress.insertMany(progressBatch, { ordered: false });
  docs += batch.length;
  return { assignments, docs, ms: performance.now() - t0 };
}

/**
 * An RFC 9562 version 7 UUID (time-ordered, like the service's own ids): its time is `at`
 * plus one ms per 1,000 ids, its other bits come from (seed, index).
 */
export function seededUuidV7(at: Date, seed: string, index: number): string {
  const h = createHash('sha1').update(`${seed}:${index}`).digest();
  const ms = BigInt(at.getTime() + Math.floor(index / 1000));
  for (let i = 0; i < 6; i++) h[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  h[6] = (h[6]! & 0x0f) | 0x70;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
