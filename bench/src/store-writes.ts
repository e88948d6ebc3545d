/**
 * The store's bulk-update rate on the tasks service's documents, per store image, in
 * alternating rounds on one machine: the A/B for a change of the local store's build
 * (scripts/images/ferretdb). The stat consumer's write, bare: unordered bulkWrites of
 * `batch` conditional updates by `_id` (`$inc` of progress and games, the event id pushed
 * to the applied list), on gamer-task documents as the bench's datagen writes them, with
 * the service's three secondary indexes.
 *
 *   node bench/src/store-writes.ts --image before=IMAGE --image after=IMAGE
 *        [--rounds 3] [--seconds 12] [--docs 20000] [--batch 256] [--shape gamer-task]
 *        [--out bench/results] [--label NAME]
 *
 * `--shape gamer-progress` (repeatable with `--shape gamer-task`) measures the tasks
 * service's progress documents (docs/tasks.md, "Progress documents"): one document per
 * gamer holding the state of each of the gamer's 9 tasks ({p, g, c} under the gamer task's
 * id) and the gamer's applied event ids, no secondary index; a statement is one event of
 * one gamer moving 6 of them (dotted `$inc` on condition of each one's state, the event id
 * pushed). `--shape gamer-progress-full` is the same with each entry also carrying the
 * task's definition (task id, stat, target, games, expiry, parent, children), as a first
 * version of the service wrote it. For gamer-task, an event
 * is ~6 statements (bench/results/2026-11-26-tasks-consumer-fix.md). Two variants of the
 * gamer-task shape tell size from indexes: `gamer-task-noindex` (the same documents without
 * the secondary indexes) and `gamer-task-slim` (with them, but without the task copy and
 * with 3 applied ids instead of 12: about half the bytes).
 *
 * `--shape find-and-modify` is the friendship service's accept: `findOneAndUpdate` by `_id`
 * (`$set` of `updatedAt`, the document before answered) from 4 clients at once, one call
 * each at a time, on 5,000 relation documents with the service's relation indexes; a
 * "statement" is one call. The run also reports the size of the store's WAL file at its
 * end (a WAL that never starts over shows here: scripts/images/ferretdb/README.md).
 *
 * `--pprof` also takes a Go CPU profile of the store over each run's measured seconds (from
 * the local FerretDB image's debug handler; not the official mongo image), written beside
 * the results as `<date>-store-writes[-label]-<image label>-<shape>-r<round>.pprof`.
 *
 * `--shape add-friend` is the friendship service's add-friend pair: the nine store commands
 * of a new request and its accept, in their rounds, on the service's four collections and
 * indexes; a "statement" is one pair (4 clients, one pair at a time each).
 *
 * `--shape friend-list` is the friendship service's friend list page (`?limit=100`) with the
 * profiles cached, as the peer scenario reads it: the two index ranges of the gamer's
 * friendships (as requester, as addressee) in `_id` order, 101 each, with the list's
 * projection, for 20 gamers with 100 friends each; a "statement" is one page (8 clients, the
 * peer scenario's connections).
 *
 * Each round starts a fresh container of each image in turn (no volume), writes the
 * documents, warms up 1 s, then counts statements for --seconds, with the store
 * container's CPU per statement. Results: <date>-store-writes[-label].json and .md.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FriendshipStatus, type ApplicationTask } from '@gfts/contracts';
import { MongoClient, type AnyBulkWriteOperation } from 'mongodb';
import type { RelationDoc } from '../../services/friendship/src/repository/models.ts';
import { gamerTaskDocs, type GamerTaskDocument } from './datagen/tasks-direct.ts';
import { loadAverage, UsageSampler } from './procstat.ts';
import { containerPid } from './stack.ts';

const all = (name: string): string[] => process.argv.flatMap((a, i) => (a === name && process.argv[i + 1] ? [process.argv[i + 1]!] : []));
const arg = (name: string): string | undefined => all(name)[0];
if (process.argv.includes('--help') || process.argv.includes('-h') || all('--image').length === 0) {
  console.log('usage: node bench/src/store-writes.ts --image LABEL=IMAGE [--image LABEL=IMAGE ...] [--rounds N] [--seconds S] [--docs N] [--batch N] [--out DIR] [--label NAME] [--pprof]\n(see the header of this file)');
  process.exit(all('--image').length === 0 && !process.argv.includes('--help') && !process.argv.includes('-h') ? 2 : 0);
}
const here = dirname(fileURLToPath(import.meta.url));
const outDir = arg('--out') ?? resolve(here, '../results');
const rounds = Number(arg('--rounds') ?? 3);
const seconds = Number(arg('--seconds') ?? 12);
const docCount = Number(arg('--docs') ?? 20_000);
const batch = Number(arg('--batch') ?? 256);
/** a Go CPU profile of each local-store run's measured seconds, beside the results (FerretDB's debug handler) */
const pprof = process.argv.includes('--pprof');
const engine = process.env.GFTS_ENGINE ?? 'podman';
const name = 'gfts-store-writes';
const shapes = (all('--shape').length > 0 ? all('--shape') : ['gamer-task']) as Shape[];
type Shape = 'gamer-task' | 'gamer-task-noindex' | 'gamer-task-slim' | 'gamer-progress' | 'gamer-progress-full' | 'find-and-modify' | 'add-friend' | 'friend-list';
/** statements one stat event costs in each shape (the gamer-task figure from the tasks bench's model); NaN: not a stat-event shape */
const STATEMENTS_PER_EVENT: Record<Shape, number> = { 'gamer-task': 5.92, 'gamer-task-noindex': 5.92, 'gamer-task-slim': 5.92, 'gamer-progress': 1, 'gamer-progress-full': 1, 'find-and-modify': Number.NaN, 'add-friend': Number.NaN, 'friend-list': Number.NaN };
for (const shape of shapes) if (!(shape in STATEMENTS_PER_EVENT)) throw new Error(`--shape ${shape}: one of ${Object.keys(STATEMENTS_PER_EVENT).join(', ')}`);
const images = all('--image').map((pair) => ({ label: pair.slice(0, pair.indexOf('=')), image: pair.slice(pair.indexOf('=') + 1) }));
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

const APP = randomUUID();

/** A daily task of the bench's mix (bench/src/datagen/tasks-mix.ts): one stat, a window, a reward. */
const dailyTask = (i: number): ApplicationTask => ({
  id: randomUUID(),
  applicationId: APP,
  name: `Daily ${i}: win games`,
  description: 'Win games before the daily reset.',
  targetValue: 10,
  numberOfGames: 5,
  family: 'daily',
  applicationStatsId: 'wins',
  isAchievement: false,
  parentTaskId: null,
  rewards: [{ id: randomUUID(), inventoryItemId: 'coins', quantity: 100 }],
  children: [],
});
/** Gamer tasks as the datagen writes them, each with the 12 applied event ids a task holds mid-day. */
function documents(): GamerTaskDocument[] {
  const tasks = Array.from({ length: 9 }, (_, i) => dailyTask(i));
  const now = new Date();
  const expiredAt = new Date(now.getTime() + 86_400_000);
  return Array.from({ length: docCount }, (_, i) => {
    const [doc] = gamerTaskDocs(tasks[i % tasks.length]!, { applicationId: APP, gamerId: randomUUID(), now, expiredAt, idFor: () => randomUUID() });
    return { ...doc!, appliedEventIds: Array.from({ length: 12 }, () => randomUUID()) };
  });
}

/** One document per gamer: each task's progress under its gamer task id, and the applied event ids. */
interface GamerProgressDocument {
  _id: string;
  applicationId: string;
  gamerId: string;
  tasks: Record<string, { p: number; g: number; c: boolean } | Record<string, unknown>>;
  applied: string[];
}

/** An entry as the tasks service writes it since 2026-11-26: what the rules read of the task, and its state. */
const fullEntry = () => ({
  taskId: randomUUID(), parentGamerTaskId: null, children: [], isAchievement: false, statKey: 'wins', targetValue: 1_000_000_000, numberOfGames: 0,
  expiredAt: new Date(Date.now() + 86_400_000), p: 0, g: 0, c: false, completedAt: null, completedByEventId: null,
});

function progressDocuments(full: boolean): GamerProgressDocument[] {
  return Array.from({ length: Math.ceil(docCount / 9) }, () => {
    const gamerId = randomUUID();
    const tasks = Object.fromEntries(Array.from({ length: 9 }, () => [randomUUID(), full ? fullEntry() : { p: 0, g: 0, c: false }]));
    return { _id: `${APP}:${gamerId}`, applicationId: APP, gamerId, tasks, applied: Array.from({ length: 12 }, () => randomUUID()) };
  });
}

function progressUpdate(doc: GamerProgressDocument): AnyBulkWriteOperation<GamerProgressDocument> {
  const eventId = randomUUID();
  const filter: Record<string, unknown> = { _id: doc._id, applied: { $nin: [eventId] } };
  const inc: Record<string, number> = {};
  for (const id of Object.keys(doc.tasks).slice(0, 6)) {
    filter[`tasks.${id}.c`] = false;
    filter[`tasks.${id}.p`] = { $lt: 1_000_000_000 };
    inc[`tasks.${id}.p`] = 1;
    inc[`tasks.${id}.g`] = 1;
  }
  return { updateOne: { filter, update: { $inc: inc, $push: { applied: { $each: [eventId], $slice: -16 } } } } };
}

interface Run {
  label: string;
  image: string;
  shape: Shape;
  round: number;
  statements: number;
  seconds: number;
  statementsPerSecond: number;
  storeCpuMsPerStatement: number;
  storeCpuPercent: number;
  /** the database's WAL file at the end of the run, bytes (-1: not readable) */
  walBytes: number;
}

async function measure(label: string, image: string, round: number, shape: Shape): Promise<Run> {
  execFileSync(engine, ['rm', '-f', name], { stdio: 'ignore' });
  const profiled = pprof && image.startsWith('localhost/gfts/ferretdb:');
  const debug = profiled ? ['-p', '127.0.0.1::8088', '-e', 'FERRETDB_DEBUG_ADDR=0.0.0.0:8088'] : [];
  execFileSync(engine, ['run', '-d', '--name', name, '-p', '127.0.0.1::27017', ...debug, image], { stdio: 'ignore' });
  const portOf = (inside: number) => execFileSync(engine, ['port', name, `${inside}/tcp`], { encoding: 'utf8' }).trim().split('\n')[0]!.replace(/.*:/, '');
  const port = portOf(27017);
  const client = new MongoClient(`mongodb://127.0.0.1:${port}/tasks`, { maxPoolSize: 4, serverSelectionTimeoutMS: 15_000 });
  try {
    await client.connect();
    const pid = containerPid(engine, name);
    const write = shape === 'gamer-progress' || shape === 'gamer-progress-full' ? await gamerProgressWrites(client, shape === 'gamer-progress-full') : shape === 'find-and-modify' ? await findAndModifyWrites(client) : shape === 'add-friend' ? await addFriendWrites(client) : shape === 'friend-list' ? await friendListReads(client) : await gamerTaskWrites(client, shape);
    const warmUntil = performance.now() + 1000;
    while (performance.now() < warmUntil) await write();
    const sampler = new UsageSampler(new Map(pid ? [['store', pid]] : []));
    sampler.start();
    const profile = profiled ? fetch(`http://127.0.0.1:${portOf(8088)}/debug/pprof/profile?seconds=${Math.max(1, seconds - 1)}`).then((r) => r.arrayBuffer()) : undefined;
    const started = performance.now();
    let statements = 0;
    while (performance.now() - started < seconds * 1000) {
      const matched = await write();
      if (matched !== batch) throw new Error(`${matched} of ${batch} statements matched`);
      statements += batch;
    }
    const elapsed = (performance.now() - started) / 1000;
    const usage = sampler.stop();
    const cpu = usage.store?.cpuPercent ?? Number.NaN;
    const walBytes = pid ? walSize(pid) : -1;
    if (profile) {
      const file = join(outDir, `${new Date().toISOString().slice(0, 10)}-store-writes${arg('--label') ? `-${arg('--label')}` : ''}-${label}-${shape}-r${round}.pprof`);
      mkdirSync(outDir, { recursive: true });
      writeFileSync(file, Buffer.from(await profile));
      log(`CPU profile of the store: ${file} (go tool pprof -top ${file})`);
    }
    const run = { label, image, shape, round, statements, seconds: elapsed, statementsPerSecond: statements / elapsed, storeCpuMsPerStatement: ((cpu / 100) * elapsed * 1000) / statements, storeCpuPercent: cpu, walBytes };
    log(`round ${round} ${label} ${shape}: ${run.statementsPerSecond.toFixed(0)} statements/s, store ${cpu.toFixed(0)} % of a core, ${run.storeCpuMsPerStatement.toFixed(3)} ms CPU/statement, WAL ${(walBytes / 1048576).toFixed(1)} MiB`);
    return run;
  } finally {
    await client.close().catch(() => {});
    execFileSync(engine, ['rm', '-f', name], { stdio: 'ignore' });
  }
}

/** Loads the gamer-task documents; answers one bulkWrite of `batch` updates, resolving to the matched count. */
async function gamerTaskWrites(client: MongoClient, shape: Shape): Promise<() => Promise<number>> {
  const col = client.db().collection<GamerTaskDocument>('gamer_tasks');
  if (shape !== 'gamer-task-noindex') {
    // the service's indexes (services/tasks/src/repository/store.ts, ensureIndexes)
    await col.createIndex({ applicationId: 1, gamerId: 1, taskId: 1, expiredAt: 1 }, { unique: true, name: 'one_per_period' });
    await col.createIndex({ expiredAt: 1 });
    await col.createIndex({ claimState: 1, claimStartedAt: 1 });
  }
  const slim = shape === 'gamer-task-slim';
  const applied = slim ? 3 : 16;
  const written = slim ? taskDocs.map(({ task: _task, ...rest }) => ({ ...rest, appliedEventIds: rest.appliedEventIds.slice(0, 3) }) as GamerTaskDocument) : taskDocs;
  for (let i = 0; i < written.length; i += 1000) await col.insertMany(written.slice(i, i + 1000), { ordered: false });
  const update = (): AnyBulkWriteOperation<GamerTaskDocument>[] =>
      Array.from({ length: batch }, () => {
        const eventId = randomUUID();
        const doc = taskDocs[Math.floor(Math.random() * taskDocs.length)]!;
        return {
          updateOne: {
            filter: { _id: doc._id, completed: false, appliedEventIds: { $nin: [eventId] } },
            update: { $inc: { progress: 1, games: 1 }, $push: { appliedEventIds: { $each: [eventId], $slice: -applied } } },
          },
        };
      });
  return async () => (await col.bulkWrite(update(), { ordered: false })).matchedCount;
}

/** The WAL file of the run's database, seen through the container's root (podman: /proc/<pid>/root). */
function walSize(pid: number): number {
  try {
    return statSync(`/proc/${pid}/root/state/tasks.sqlite-wal`).size;
  } catch {
    return -1;
  }
}

/** Loads relation documents with the friendship service's indexes; answers `batch` findOneAndUpdate calls from 4 clients. */
async function findAndModifyWrites(client: MongoClient): Promise<() => Promise<number>> {
  const col = client.db().collection<RelationDoc>('relations');
  // the service's relation indexes (services/friendship/src/repository/models.ts)
  await col.createIndex({ applicationId: 1, pairKey: 1 }, { unique: true });
  await col.createIndex({ applicationId: 1, addressee: 1, status: 1, _id: 1 });
  await col.createIndex({ applicationId: 1, requester: 1, status: 1, _id: 1 });
  const gamers = Array.from({ length: 2000 }, () => randomUUID());
  const now = new Date();
  const relations: RelationDoc[] = Array.from({ length: 5000 }, (_, i) => {
    const [a, b] = [gamers[i % 2000]!, gamers[(i * 7 + 1) % 2000]!];
    return { _id: randomUUID(), applicationId: APP, pairKey: `${a}:${b}:${i}`, members: [a, b], requester: a, addressee: b, status: FriendshipStatus.ACCEPTED, createdAt: now, updatedAt: now };
  });
  await col.insertMany(relations, { ordered: false });
  const clients = 4;
  return async () => {
    let matched = 0;
    await Promise.all(Array.from({ length: clients }, async () => {
      for (let i = 0; i < batch / clients; i++) {
        const doc = relations[Math.floor(Math.random() * relations.length)]!;
        if (await col.findOneAndUpdate({ _id: doc._id, applicationId: APP }, { $set: { updatedAt: new Date() } }, { returnDocument: 'before' })) matched++;
      }
    }));
    return matched;
  };
}

/**
 * The friendship service's add-friend pair as its store sees it: the nine commands of a new
 * request and its accept, in their order and rounds (services/friendship/src/repository/
 * relations.ts; their count is pinned by services/friendship/test/integration/round-trips.test.ts),
 * on the service's indexes, over 5,000 gamers and 5,000 relations already stored. 4 clients,
 * each one pair at a time; a "statement" is one pair, between two new gamer ids.
 */
async function addFriendWrites(client: MongoClient): Promise<() => Promise<number>> {
  const db = client.db();
  const relations = db.collection<RelationDoc>('relations');
  const gamers = db.collection<{ applicationId: string; gamerId: string; displayName: string; updatedAt: Date }>('gamers');
  const blocks = db.collection<{ _id: string; applicationId: string; blocker: string; blocked: string }>('blocks');
  const lists = db.collection<{ _id: string; applicationId: string; gamerId: string; friends: string[]; version: number }>('friendlists');
  // the service's indexes (services/friendship/src/repository/models.ts)
  await relations.createIndex({ applicationId: 1, pairKey: 1 }, { unique: true });
  await relations.createIndex({ applicationId: 1, addressee: 1, status: 1, _id: 1 });
  await relations.createIndex({ applicationId: 1, requester: 1, status: 1, _id: 1 });
  await gamers.createIndex({ applicationId: 1, gamerId: 1 }, { unique: true });
  await gamers.createIndex({ applicationId: 1, displayNameKey: 1, gamerId: 1 });
  await blocks.createIndex({ applicationId: 1, blocker: 1, blocked: 1 }, { unique: true });
  await blocks.createIndex({ applicationId: 1, blocker: 1, _id: 1 });
  await blocks.createIndex({ applicationId: 1, blocked: 1, _id: 1 });
  const now = new Date();
  const known = Array.from({ length: 5000 }, () => randomUUID());
  await gamers.insertMany(known.map((gamerId, i) => ({ applicationId: APP, gamerId, displayName: `Player ${i}`, updatedAt: now })), { ordered: false });
  await relations.insertMany(known.map((a, i) => {
    const b = known[(i * 7 + 1) % known.length]!;
    return { _id: randomUUID(), applicationId: APP, pairKey: `${a}:${b}:${i}`, members: [a, b], requester: a, addressee: b, status: FriendshipStatus.ACCEPTED, createdAt: now, updatedAt: now };
  }), { ordered: false });
  const accepted = FriendshipStatus.ACCEPTED;
  const pending = FriendshipStatus.PENDING;
  async function pair(): Promise<boolean> {
    const [a, b] = [randomUUID(), randomUUID()];
    const [x, y] = a < b ? [a, b] : [b, a];
    const id = randomUUID();
    const at = new Date();
    // the request: its upsert, then the target, blocks and the pending count in one round
    await relations.findOneAndUpdate({ applicationId: APP, pairKey: `${x}:${y}` }, { $setOnInsert: { _id: id, members: [x, y], requester: a, addressee: b, status: pending, createdAt: at, updatedAt: at } }, { upsert: true, returnDocument: 'before' });
    await Promise.all([
      gamers.find({ applicationId: APP, gamerId: { $in: [a, b] } }, { projection: { _id: 1 }, limit: 2 }).toArray(),
      blocks.find({ applicationId: APP, blocker: { $in: [a, b] }, blocked: { $in: [a, b] } }, { projection: { _id: 0, blocker: 1 } }).toArray(),
      relations.countDocuments({ applicationId: APP, requester: a, status: pending }, { limit: 101 }),
    ]);
    // the accept: its write, the friend-id lists, both gamers' friends per side, the relation again
    const request = await relations.findOneAndUpdate({ _id: id, applicationId: APP, addressee: b, status: pending }, { $set: { status: accepted, updatedAt: new Date() } }, { returnDocument: 'before' });
    await lists.bulkWrite([[a, b], [b, a]].map(([gamerId, friend]) => ({
      updateOne: { filter: { _id: `${APP}:${gamerId}` }, update: { $addToSet: { friends: { $each: [friend!] } }, $inc: { version: 1 }, $setOnInsert: { applicationId: APP, gamerId: gamerId! } }, upsert: true },
    })), { ordered: false });
    await Promise.all((['requester', 'addressee'] as const).map((side) =>
      relations.aggregate([{ $match: { applicationId: APP, [side]: { $in: [a, b] }, status: accepted } }, { $limit: 2002 }, { $group: { _id: `$${side}`, n: { $sum: 1 } } }]).toArray()));
    const still = await relations.findOne({ _id: id, applicationId: APP, status: accepted }, { projection: { _id: 1 } });
    return request !== null && still !== null;
  }
  const clients = 4;
  return async () => {
    let matched = 0;
    await Promise.all(Array.from({ length: clients }, async () => {
      for (let i = 0; i < batch / clients; i++) if (await pair()) matched++;
    }));
    return matched;
  };
}

/** 20 gamers with 100 friends each, on the service's relation indexes; answers `batch` pages of their friend lists. */
async function friendListReads(client: MongoClient): Promise<() => Promise<number>> {
  const relations = client.db().collection<RelationDoc>('relations');
  await relations.createIndex({ applicationId: 1, pairKey: 1 }, { unique: true });
  await relations.createIndex({ applicationId: 1, addressee: 1, status: 1, _id: 1 });
  await relations.createIndex({ applicationId: 1, requester: 1, status: 1, _id: 1 });
  const now = new Date();
  const listers = Array.from({ length: 20 }, () => randomUUID());
  const docs: RelationDoc[] = listers.flatMap((me) => Array.from({ length: 100 }, (_, i) => {
    const friend = randomUUID();
    // half asked by the lister, half asking it: both index ranges hold a page's rows
    const [requester, addressee] = i % 2 === 0 ? [me, friend] : [friend, me];
    return { _id: randomUUID(), applicationId: APP, pairKey: `${requester}:${addressee}`, members: [requester, addressee], requester, addressee, status: FriendshipStatus.ACCEPTED, createdAt: now, updatedAt: now } as RelationDoc;
  }));
  await relations.insertMany(docs, { ordered: false });
  const accepted = FriendshipStatus.ACCEPTED;
  let next = 0;
  // services/friendship/src/repository/relations.ts, `list` for 'friends'
  async function page(): Promise<boolean> {
    const me = listers[next++ % listers.length]!;
    const projection = { requester: 1, addressee: 1, status: 1, [`notes.${me}`]: 1 };
    const sides = await Promise.all([{ requester: me }, { addressee: me }].map((side) =>
      relations.find({ applicationId: APP, ...side, status: accepted }, { sort: { _id: 1 }, limit: 101, projection }).toArray()));
    return sides[0]!.length + sides[1]!.length === 100;
  }
  const clients = 8;
  return async () => {
    let matched = 0;
    await Promise.all(Array.from({ length: clients }, async () => {
      for (let i = 0; i < batch / clients; i++) if (await page()) matched++;
    }));
    return matched;
  };
}

/** Loads the per-gamer progress documents (docs/9 gamers); answers one bulkWrite of `batch` events. */
async function gamerProgressWrites(client: MongoClient, full: boolean): Promise<() => Promise<number>> {
  const col = client.db().collection<GamerProgressDocument>('gamer_progress');
  const progressDocs = full ? fullProgressDocs : slimProgressDocs;
  for (let i = 0; i < progressDocs.length; i += 1000) await col.insertMany(progressDocs.slice(i, i + 1000), { ordered: false });
  return async () => (await col.bulkWrite(Array.from({ length: batch }, () => progressUpdate(progressDocs[Math.floor(Math.random() * progressDocs.length)]!)), { ordered: false })).matchedCount;
}

const taskDocs = documents();
const slimProgressDocs = progressDocuments(false);
const fullProgressDocs = progressDocuments(true);
log(`gamer-task: ${taskDocs.length} documents of ~${JSON.stringify(taskDocs[0]).length} bytes (JSON); gamer-progress: ${slimProgressDocs.length} of ~${JSON.stringify(slimProgressDocs[0]).length}, -full ~${JSON.stringify(fullProgressDocs[0]).length}; batches of ${batch}, ${rounds} rounds × ${images.length} images × ${shapes.join(', ')} × ${seconds} s`);
const loadBefore = loadAverage();
const runs: Run[] = [];
for (let round = 1; round <= rounds; round++) {
  // alternate the order, so that neither image always runs first in a round
  const order = round % 2 === 1 ? images : [...images].reverse();
  for (const { label, image } of order) for (const shape of shapes) runs.push(await measure(label, image, round, shape));
}
const loadAfter = loadAverage();

const date = new Date().toISOString().slice(0, 10);
const suffix = arg('--label') ? `-${arg('--label')}` : '';
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, `${date}-store-writes${suffix}.json`), `${JSON.stringify({ date, loadBefore, loadAfter, docCount, batch, seconds, statementsPerEvent: STATEMENTS_PER_EVENT, runs }, null, 2)}\n`);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const first = images[0]!.label;
/** what a statement is, per family of shapes (the file's header says more) */
const SHAPE_TEXT: Array<[string, string]> = [
  ['gamer-task', `gamer-task: ${docCount} documents, unordered bulkWrites of ${batch} conditional \`$inc\` + \`$push\` by \`_id\``],
  ['gamer-progress', `gamer-progress: per-gamer progress documents, unordered bulkWrites of ${batch} events`],
  ['find-and-modify', 'find-and-modify: the accept\'s `findOneAndUpdate` by `_id`, 4 clients, a statement is one call'],
  ['add-friend', 'add-friend: the nine store commands of a friend request and its accept, 4 clients, a statement is one pair'],
];
const lines = [
  `# Store writes, ${shapes.join(', ')}: ${date}${suffix}`,
  '',
  `\`node bench/src/store-writes.ts ${process.argv.slice(2).join(' ')}\` — ${SHAPE_TEXT.map(([shape, text]) => (shapes.some((x) => x.startsWith(shape)) ? text : '')).filter(Boolean).join('; ')}; ${seconds} s per run after a 1 s warm-up, ${rounds} rounds alternating the order. Load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(2)).join(' ')} after (2.00 = both cores busy).`,
  '',
  '| image | shape | round | statements/s | store CPU % of a core | store CPU ms per statement | WAL at the end, MiB |',
  '|---|---|---|---|---|---|---|',
  ...runs.map((r) => `| ${r.label} | ${r.shape} | ${r.round} | ${r.statementsPerSecond.toFixed(0)} | ${r.storeCpuPercent.toFixed(0)} | ${r.storeCpuMsPerStatement.toFixed(3)} | ${r.walBytes < 0 ? '–' : (r.walBytes / 1048576).toFixed(1)} |`),
  '',
  `Means. "Events/s" is the store's ceiling for the stat consumer in that shape: statements/s ÷ statements per event (${STATEMENTS_PER_EVENT['gamer-task']} for the gamer-task shapes, from the tasks bench's model; 1 for gamer-progress); a consumer also reads and records its events, so it stays below it.`,
  '',
  `| image | shape | statements/s | × ${first} | store CPU ms per statement | events/s (store ceiling) |`,
  '|---|---|---|---|---|---|',
  ...shapes.flatMap((shape) => {
    const base = mean(runs.filter((r) => r.label === first && r.shape === shape).map((r) => r.statementsPerSecond));
    return images.map(({ label, image }) => {
      const mine = runs.filter((r) => r.label === label && r.shape === shape);
      const rate = mean(mine.map((r) => r.statementsPerSecond));
      const events = rate / STATEMENTS_PER_EVENT[shape];
      return `| ${label} (\`${image}\`) | ${shape} | ${rate.toFixed(0)} | ${(rate / base).toFixed(2)} | ${mean(mine.map((r) => r.storeCpuMsPerStatement)).toFixed(3)} | ${Number.isFinite(events) ? events.toFixed(0) : '–'} |`;
    });
  }),
  '',
];
writeFileSync(join(outDir, `${date}-store-writes${suffix}.md`), lines.join('\n'));
console.log(lines.join('\n'));
