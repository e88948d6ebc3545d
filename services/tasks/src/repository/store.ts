import { mongo, type Connection } from 'mongoose';
import type { Weekday } from '@gfts/contracts';
import type { CatalogEntry, GamerTaskRecord } from '../domain/model.ts';

type WithId<T extends { id: string }> = Omit<T, 'id'> & { _id: string };


/**
 * Times written by one replica and compared with another's (a claim's start and an
 * erasure's): a minute's margin for their clocks' skew.
 */
export const CLOCK_SKEW_MARGIN_MS = 60_000;

export type CatalogDoc = WithId<CatalogEntry>;
export type GamerTaskDoc = WithId<GamerTaskRecord>;
/**
 * One gamer task's state in its gamer's progress document: `p` progress, `g` games, `c`
 * completed, and once completed `at` (when) and `by` (the event). Short names and nothing
 * else on purpose: the local store's cost per write grows with the document's fields (an
 * entry that also carried the task's definition made the write 2.6x dearer,
 * bench/results/2026-11-26-store-writes-progress-entries.md).
 */
export interface ProgressEntry {
  p: number;
  g: number;
  c: boolean;
  at?: Date | null;
  by?: string | null;
}
/**
 * A gamer's progress (`<applicationId>:<gamerId>`): the truth of every active gamer task's
 * progress, so that a batch moves all of a gamer's tasks with one single-document write
 * (docs/tasks.md "Progress documents"). `applied`: the stat events applied and not yet
 * recorded as processed. `epoch`: drawn at random when the document is built and on every
 * removal of entries; cached task definitions are keyed by it (an achievement tracked again
 * after a reset gets its old derived id with the catalog's current values).
 */
export interface GamerProgressDoc {
  _id: string;
  applicationId: string;
  gamerId: string;
  epoch: string;
  /** gamer task id → state */
  tasks: Record<string, ProgressEntry>;
  applied: string[];
  /**
   * how many prunes of `applied` there have been (absent: none yet), and the ids the last one
   * took out: a write conditions on at most one prune since its read, whose ids are not its
   * own (docs/tasks.md "Counted once")
   */
  pruned?: number;
  lastPruned?: string[];
  /**
   * the token of the consumer write that last landed here: a write the store refused and
   * one that landed cannot be told apart by the events applied, which another replica may
   * have applied too (docs/tasks.md "Counted once")
   */
  lastWrite?: string;
}
export interface ApplicationDoc {
  _id: string;
  seasonEndsAt?: Date | null;
  /** the reset schedule (PUT /settings); absent until an admin sets it */
  timeZone?: string;
  dailyResetHour?: number;
  weeklyResetDay?: Weekday;
  updatedAt: Date;
}
/** Unlock-rate counters of one achievement (`<applicationId>:<taskId>`), moved by $inc only. */
export interface AchievementStatsDoc {
  _id: string;
  applicationId: string;
  taskId: string;
  completedCount: number;
  trackedCount: number;
}
/**
 * One gamer's unlock of an achievement, keyed by the achievement's gamer task id (derived
 * from application, gamer and task): the upsert that inserts it is the one that counts it.
 */
export interface UnlockDoc {
  _id: string;
  applicationId: string;
  gamerId: string;
  taskId: string;
  unlockedAt: Date;
}
/** A gamer erasure job (DELETE /{applicationId}/gamers/{gamerId}); `done` maps a service to when it reported. */
export interface ErasureJobDoc {
  _id: string;
  applicationId: string;
  gamerId: string;
  requestedAt: Date;
  /** the services the job waits for (ERASURE_SERVICES when it was made) */
  expected: string[];
  done: Record<string, Date>;
  /** the gamer.erased event is in JetStream (else the sweep publishes it again) */
  published: boolean;
  /** when it last was (absent on jobs of before 2026-11-28): an unfinished job is published again ERASURE_REPUBLISH_AFTER_MS later */
  publishedAt?: Date;
  /** every expected service reported (absent: not yet, or a job of before 2026-11-28) */
  complete?: boolean;
}
export interface GrantDoc {
  /** `<gamerTaskId>:<reward index>`: one grant per reward of a gamer task, ever */
  _id: string;
  applicationId: string;
  gamerId: string;
  gamerTaskId: string;
  inventoryItemId: string;
  quantity: number;
  grantedAt: Date;
}
/** When a gamer's inventory was last emptied by a reset of scope all (`<applicationId>:<gamerId>`). */
/** Who runs the periodic sweep this period (sweep.ts): one replica at a time. */
export interface LeaseDoc {
  _id: string;
  holder: string;
  until: Date;
}

export interface InventoryResetDoc {
  _id: string;
  applicationId: string;
  gamerId: string;
  at: Date;
}
export interface ProcessedEventDoc {
  _id: string;
  processedAt: Date;
}
export interface IdempotencyDoc {
  /** `<applicationId>:<gamerId>:<key>` */
  _id: string;
  fingerprint: string;
  state: 'pending' | 'done';
  startedAt: Date;
  response?: unknown;
}

/** The tasks service's own collections. Only what MongoDB 7 and FerretDB v1 share is used. */
export interface Store {
  catalog: mongo.Collection<CatalogDoc>;
  applications: mongo.Collection<ApplicationDoc>;
  gamerTasks: mongo.Collection<GamerTaskDoc>;
  gamerProgress: mongo.Collection<GamerProgressDoc>;
  grants: mongo.Collection<GrantDoc>;
  inventoryResets: mongo.Collection<InventoryResetDoc>;
  leases: mongo.Collection<LeaseDoc>;
  processedEvents: mongo.Collection<ProcessedEventDoc>;
  idempotencyKeys: mongo.Collection<IdempotencyDoc>;
  achievementStats: mongo.Collection<AchievementStatsDoc>;
  unlocks: mongo.Collection<UnlockDoc>;
  erasureJobs: mongo.Collection<ErasureJobDoc>;
}

export function openStore(connection: Connection): Store {
  const db = connection.db as unknown as mongo.Db | undefined;
  if (!db) throw new Error('mongodb not connected');
  return {
    catalog: db.collection<CatalogDoc>('catalog_tasks'),
    applications: db.collection<ApplicationDoc>('applications'),
    gamerTasks: db.collection<GamerTaskDoc>('gamer_tasks'),
    gamerProgress: db.collection<GamerProgressDoc>('gamer_progress'),
    grants: db.collection<GrantDoc>('inventory_grants'),
    inventoryResets: db.collection<InventoryResetDoc>('inventory_resets'),
    leases: db.collection<LeaseDoc>('leases'),
    processedEvents: db.collection<ProcessedEventDoc>('processed_events'),
    idempotencyKeys: db.collection<IdempotencyDoc>('idempotency_keys'),
    achievementStats: db.collection<AchievementStatsDoc>('achievement_stats'),
    unlocks: db.collection<UnlockDoc>('achievement_unlocks'),
    erasureJobs: db.collection<ErasureJobDoc>('erasure_jobs'),
  };
}

/**
 * Indexes, created at start by every replica (creating an existing index is a no-op).
 * No TTL and no partial index (the local FerretDB store has neither); the periodic sweep
 * deletes what has expired.
 */
export async function ensureIndexes(store: Store): Promise<void> {
  await Promise.all([
    store.catalog.createIndex({ applicationId: 1 }),
    store.catalog.createIndex({ 'children.id': 1 }),
    // one gamer task per task and period: two concurrent assigns cannot both create it; its
    // prefix (applicationId, gamerId) is also how a gamer's tasks are read
    store.gamerTasks.createIndex({ applicationId: 1, gamerId: 1, taskId: 1, expiredAt: 1 }, { unique: true, name: 'one_per_period' }),
    store.gamerTasks.createIndex({ expiredAt: 1 }),
    // claims a crash left half-done, found by the recovery
    store.gamerTasks.createIndex({ claimState: 1, claimStartedAt: 1 }),
    store.grants.createIndex({ applicationId: 1, gamerId: 1 }),
    store.processedEvents.createIndex({ processedAt: 1 }),
    store.idempotencyKeys.createIndex({ startedAt: 1 }),
    // the GET /achievements/stats read: one application's counters
    store.achievementStats.createIndex({ applicationId: 1 }),
    // reset and erase find a gamer's unlocks
    store.unlocks.createIndex({ applicationId: 1, gamerId: 1 }),
    // the sweep's unpublished jobs
    store.erasureJobs.createIndex({ published: 1, requestedAt: 1 }),
    // the unfinished published jobs the sweep publishes again
    store.erasureJobs.createIndex({ complete: 1, publishedAt: 1 }),
    // a claim whose task went: was its gamer erased? (ClaimService)
    store.erasureJobs.createIndex({ applicationId: 1, gamerId: 1 }),
  ]);
}

/**
 * The store or its driver failed (network, server selection, a closed client, a server
 * shutting down or stepping down, a timeout, the local store's own errors): worth trying
 * the same work again. Anything else thrown while reading (a TypeError or RangeError on a
 * document the code cannot read, a BSON error) would fail again the same way.
 */
export function isStoreUnavailable(error: unknown): boolean {
  return error instanceof mongo.MongoError;
}

/**
 * The store away, as the stat consumer retries it in place: a store or driver failure that
 * is not a write error of one of a bulk write's operations. Those (a `$push` onto a field
 * that is no array in a damaged document, say) are refused the same way every time.
 */
export function isStoreOutage(error: unknown): boolean {
  if (!isStoreUnavailable(error)) return false;
  const writeErrors = (error as { writeErrors?: unknown }).writeErrors;
  return !(Array.isArray(writeErrors) && writeErrors.length > 0);
}

export function isDuplicateKey(error: unknown): boolean {
  const e = error as Partial<mongo.MongoServerError> & { writeErrors?: { code?: number }[] };
  if (e?.code === 11000) return true;
  return Array.isArray(e?.writeErrors) && e.writeErrors.length > 0 && e.writeErrors.every((w) => w.code === 11000);
}

/**
 * Which operations of an unordered bulkWrite inserted by upsert (their indexes), from its
 * result or from the error it threw (a racing upsert refused by the primary key, 11000:
 * the document exists, written by the other, which counts it).
 */
export async function upsertedIndexes(write: () => Promise<mongo.BulkWriteResult>): Promise<Set<number>> {
  try {
    return new Set(Object.keys((await write()).upsertedIds).map(Number));
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    return new Set(Object.keys((error as { upsertedIds?: Record<string, unknown> }).upsertedIds ?? {}).map(Number));
  }
}

export function toDoc<T extends { id: string }>(value: T): WithId<T> {
  const { id, ...rest } = value;
  return { _id: id, ...rest } as WithId<T>;
}

export function fromDoc<T extends { id: string }>(doc: WithId<T>): T {
  const { _id, ...rest } = doc;
  return { id: _id, ...rest } as unknown as T;
}
