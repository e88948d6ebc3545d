import type { Connection, mongo } from 'mongoose';
import type { CatalogEntry, GamerTaskRecord, RewardItem } from '../domain/model.ts';
import type { VersionTokenDoc } from './versioned.ts';

type WithId<T extends { id: string }> = Omit<T, 'id'> & { _id: string };

export type CatalogDoc = WithId<CatalogEntry>;
export type GamerTaskDoc = WithId<GamerTaskRecord>;
/** Where a gamer's task lives and what moves it: one entry per gamer task. */
export interface GamerIndexEntry {
  id: string;
  taskId: string;
  statKey: string | null;
  isAchievement: boolean;
  parentGamerTaskId: string | null;
  expiredAt: Date | null;
}
/**
 * One document per gamer (`<applicationId>:<gamerId>`) listing the gamer's tasks, so that
 * every read of the hot paths is by primary key. FerretDB v1 filters anything else by
 * reading the whole collection.
 */
export interface GamerIndexDoc {
  _id: string;
  applicationId: string;
  gamerId: string;
  entries: GamerIndexEntry[];
  version: number;
}
export interface ApplicationDoc {
  _id: string;
  seasonEndsAt: Date | null;
  updatedAt: Date;
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
/** The one record of a claim: inserting it is what makes a claim happen exactly once. */
export interface ClaimDoc {
  /** the gamer task id */
  _id: string;
  applicationId: string;
  gamerId: string;
  taskId: string;
  rewards: RewardItem[];
  state: 'claiming' | 'claimed';
  startedAt: Date;
  claimedAt: Date | null;
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
  catalogVersions: mongo.Collection<VersionTokenDoc>;
  applications: mongo.Collection<ApplicationDoc>;
  gamerTasks: mongo.Collection<GamerTaskDoc>;
  gamerTaskVersions: mongo.Collection<VersionTokenDoc>;
  gamerIndex: mongo.Collection<GamerIndexDoc>;
  gamerIndexVersions: mongo.Collection<VersionTokenDoc>;
  claims: mongo.Collection<ClaimDoc>;
  grants: mongo.Collection<GrantDoc>;
  processedEvents: mongo.Collection<ProcessedEventDoc>;
  idempotencyKeys: mongo.Collection<IdempotencyDoc>;
}

export function openStore(connection: Connection): Store {
  const db = connection.db as unknown as mongo.Db | undefined;
  if (!db) throw new Error('mongodb not connected');
  return {
    catalog: db.collection<CatalogDoc>('catalog_tasks'),
    catalogVersions: db.collection<VersionTokenDoc>('catalog_task_versions'),
    applications: db.collection<ApplicationDoc>('applications'),
    gamerTasks: db.collection<GamerTaskDoc>('gamer_tasks'),
    gamerTaskVersions: db.collection<VersionTokenDoc>('gamer_task_versions'),
    gamerIndex: db.collection<GamerIndexDoc>('gamer_task_index'),
    gamerIndexVersions: db.collection<VersionTokenDoc>('gamer_task_index_versions'),
    claims: db.collection<ClaimDoc>('claims'),
    grants: db.collection<GrantDoc>('inventory_grants'),
    processedEvents: db.collection<ProcessedEventDoc>('processed_events'),
    idempotencyKeys: db.collection<IdempotencyDoc>('idempotency_keys'),
  };
}

/**
 * Indexes, created at start by every replica (creating an existing index is a no-op).
 * No TTL and no partial index: FerretDB v1 has neither; the periodic sweep deletes. Only
 * the unique ones matter for correctness: FerretDB v1 uses secondary indexes for nothing
 * but uniqueness, MongoDB for speed too.
 */
export async function ensureIndexes(store: Store): Promise<void> {
  await Promise.all([
    store.catalog.createIndex({ applicationId: 1 }),
    store.catalog.createIndex({ 'children.id': 1 }),
    // one gamer task per task and period: two concurrent assigns cannot both create it
    store.gamerTasks.createIndex({ applicationId: 1, gamerId: 1, taskId: 1, expiredAt: 1 }, { unique: true, name: 'one_per_period' }),
    store.gamerTasks.createIndex({ expiredAt: 1 }),
    store.gamerTaskVersions.createIndex({ createdAt: 1 }),
    store.catalogVersions.createIndex({ createdAt: 1 }),
    store.gamerIndexVersions.createIndex({ createdAt: 1 }),
    store.claims.createIndex({ state: 1, startedAt: 1 }),
    store.grants.createIndex({ applicationId: 1, gamerId: 1 }),
    store.processedEvents.createIndex({ processedAt: 1 }),
    store.idempotencyKeys.createIndex({ startedAt: 1 }),
  ]);
}

export function isDuplicateKey(error: unknown): boolean {
  const e = error as Partial<mongo.MongoServerError> & { writeErrors?: { code?: number }[] };
  if (e?.code === 11000) return true;
  return Array.isArray(e?.writeErrors) && e.writeErrors.length > 0 && e.writeErrors.every((w) => w.code === 11000);
}

export function toDoc<T extends { id: string }>(value: T): WithId<T> {
  const { id, ...rest } = value;
  return { _id: id, ...rest } as WithId<T>;
}

export function fromDoc<T extends { id: string }>(doc: WithId<T>): T {
  const { _id, ...rest } = doc;
  return { id: _id, ...rest } as unknown as T;
}

/** Active means not expired: no expiry, or one still ahead. */
export function activeFilter(now: Date) {
  return { $or: [{ expiredAt: null }, { expiredAt: { $gt: now } }] };
}
