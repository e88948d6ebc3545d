/**
 * Gamer tasks written straight into the tasks database, for the tasks-pipeline bench
 * (`--setup direct`, the default): the HTTP assign path takes ~15 calls/s on this machine, so
 * 10k gamers × 3 calls would take half an hour. Only the tasks service's own exported
 * functions shape the documents (gamerTaskTree, expiryFor, trackedTaskId, toDoc/fromDoc):
 * after a change of the document shape in the service, this writes the new shape. This is
 * the one file of the pipeline bench that knows the service's code; everything else speaks
 * HTTP and NATS.
 */
import type { Db } from 'mongodb';
import { uuidv7 } from '../../../libs/platform/src/ids.ts';
import { expiryFor } from '../../../services/tasks/src/domain/expiry.ts';
import { gamerTaskTree } from '../../../services/tasks/src/domain/gamer-task.ts';
import { trackedTaskId } from '../../../services/tasks/src/domain/ids.ts';
import type { CatalogEntry } from '../../../services/tasks/src/domain/model.ts';
import { fromDoc, toDoc, type CatalogDoc } from '../../../services/tasks/src/repository/store.ts';
import { seededRandom } from './tasks-mix.ts';

export interface DirectAssignment {
  gamerId: string;
  /** catalog entry ids the gamer holds: 3 daily, 1 weekly composite, every achievement */
  taskIds: string[];
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
 * same derived ids), in batches of 1,000 documents. Returns what each gamer holds.
 */
export async function writeGamerTasks(
  db: Db,
  o: { collection: string; applicationId: string; gamerIds: string[]; seed: number; onProgress?: (done: number, docs: number) => void },
): Promise<{ assignments: DirectAssignment[]; docs: number; ms: number }> {
  const entries = (await db.collection<CatalogDoc>('catalog_tasks').find({ applicationId: o.applicationId }).toArray()).map((d) => fromDoc<CatalogEntry>(d));
  const daily = entries.filter((e) => !e.isAchievement && !e.archived && e.family === 'daily');
  const weekly = entries.filter((e) => !e.isAchievement && !e.archived && e.family === 'weekly');
  const achievements = entries.filter((e) => e.isAchievement && !e.archived);
  if (daily.length < 3 || weekly.length < 1) throw new Error(`the catalog of ${o.applicationId} has ${daily.length} daily and ${weekly.length} weekly entries`);
  const now = new Date();
  const target = db.collection(o.collection);
  const assignments: DirectAssignment[] = [];
  let batch: Record<string, unknown>[] = [];
  let docs = 0;
  const t0 = performance.now();
  for (const [g, gamerId] of o.gamerIds.entries()) {
    const picks = seededPicks(daily, weekly, o.seed + g);
    const trees = [
      ...picks.map((entry) => gamerTaskTree(entry, { applicationId: o.applicationId, gamerId, now, expiredAt: expiryFor(entry.family, now), idFor: () => uuidv7() })),
      ...achievements.map((entry) => gamerTaskTree(entry, { applicationId: o.applicationId, gamerId, now, expiredAt: null, idFor: (taskId) => trackedTaskId(o.applicationId, gamerId, taskId) })),
    ];
    for (const tree of trees) for (const r of [tree.parent, ...tree.children]) batch.push(toDoc(r) as unknown as Record<string, unknown>);
    assignments.push({ gamerId, taskIds: [...picks, ...achievements].map((e) => e.id) });
    if (batch.length >= 1000) {
      await target.insertMany(batch, { ordered: false });
      docs += batch.length;
      batch = [];
      o.onProgress?.(g + 1, docs);
    }
  }
  if (batch.length) await target.insertMany(batch, { ordered: false });
  docs += batch.length;
  return { assignments, docs, ms: performance.now() - t0 };
}
