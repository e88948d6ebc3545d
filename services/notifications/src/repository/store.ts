import type { NotificationType } from '@gfts/contracts';
import type { Connection, mongo } from 'mongoose';

/** One inbox entry: a stored notification of one gamer. */
export interface NotificationDoc {
  /** the notification id (a UUIDv7): the order of the inbox and its paging key */
  _id: string;
  applicationId: string;
  gamerId: string;
  type: NotificationType;
  at: string;
  data: unknown;
  /** made + NOTIFY_RETENTION_MS: gone from every read after it, deleted by the TTL index or the sweep */
  expiresAt: Date;
}

/** A ticket that opened a socket: kept until it expires, so it opens no second one. */
export interface UsedTicketDoc {
  _id: string;
  expiresAt: Date;
}

export interface Store {
  notifications: mongo.Collection<NotificationDoc>;
  usedTickets: mongo.Collection<UsedTicketDoc>;
}

export function openStore(connection: Connection): Store {
  const db = connection.db as unknown as mongo.Db | undefined;
  if (!db) throw new Error('mongodb not connected');
  return {
    notifications: db.collection<NotificationDoc>('notifications'),
    usedTickets: db.collection<UsedTicketDoc>('used_tickets'),
  };
}

/**
 * Indexes, made at start by every replica (an existing one is a no-op). A gamer's inbox is
 * one range of (applicationId, gamerId, _id), read in either direction. Expiry is a TTL
 * index on MongoDB; a store without TTL indexes (FerretDB v1 refuses them) gets a plain
 * index instead, and the answer tells the caller to run the sweep.
 */
export async function ensureIndexes(store: Store): Promise<{ ttl: boolean }> {
  await store.notifications.createIndex({ applicationId: 1, gamerId: 1, _id: 1 }, { name: 'inbox' });
  try {
    await store.notifications.createIndex({ expiresAt: 1 }, { name: 'expiry', expireAfterSeconds: 0 });
    await store.usedTickets.createIndex({ expiresAt: 1 }, { name: 'expiry', expireAfterSeconds: 0 });
    return { ttl: true };
  } catch {
    await store.notifications.createIndex({ expiresAt: 1 }, { name: 'expiry_sweep' });
    await store.usedTickets.createIndex({ expiresAt: 1 }, { name: 'expiry_sweep' });
    return { ttl: false };
  }
}

export function isDuplicateKey(error: unknown): boolean {
  return (error as { code?: number }).code === 11000;
}
