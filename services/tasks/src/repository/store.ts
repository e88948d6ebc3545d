import type { Connection, mongo } from 'mongoose';
import type { CatalogEntry, GamerTaskRecord } from '../domain/model.ts';

type WithId<T extends { id: string }> = Omit<T, 'id'> & { _id: string };

export type CatalogDoc = WithId<CatalogEntry>;
export type GamerTaskDoc = WithId<GamerTaskRecord>;
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
  grants: mongo.Collection<GrantDoc>;
  processedEvents: mongo.Collection<ProcessedEventDoc>;
  idempotencyKeys: mongo.Collection<IdempotencyDoc>;
}

export function openStore(connection: Connection): Store {
  const db = connection.db as unknown as mongo.Db | undefined;
  if (!db) throw new Error('mongodb not connected');
  return {
    catalog: db.collection<CatalogDoc>('catalog_tasks'),
    applications: db.collection<ApplicationDoc>('applications'),
    gamerTasks: db.collection<GamerTaskDoc>('gamer_tasks'),
    grants: db.collection<GrantDoc>('inventory_grants'),
    processedEvents: db.collection<ProcessedEventDoc>('processed_events'),
    idempotencyKeys: db.collection<IdempotencyDoc>('idempotency_keys'),
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
