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
  /**
   * One per gamer (index `dedupe`): a completion's key (domain/completion-key.ts), so a
   * second copy of it is refused; any other notification's own id. Absent from notifications
   * stored before 2026-11-28 (and from those an older replica writes during an upgrade).
   */
  dedupeKey?: string;
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
 * one range of (applicationId, gamerId, _id), read in either direction; `dedupe` keeps one
 * notification per completion (below). Expiry is a TTL index on MongoDB; a store without
 * TTL indexes (FerretDB v1 refuses them) gets a plain index instead, and the answer tells
 * the caller to run the sweep. The `dedupe` build is answered as a promise of its own
 * (`awaitDedupeIndex`): on an inbox that existed before it, it reads every notification.
 */
export async function ensureIndexes(store: Store): Promise<{ ttl: boolean; dedupe: Promise<void>; mentions: Promise<void> }> {
  await store.notifications.createIndex({ applicationId: 1, gamerId: 1, _id: 1 }, { name: 'inbox' });
  const dedupe = ensureDedupeIndex(store.notifications);
  const mentions = ensureMentionIndexes(store.notifications);
  // a failure is the caller's to report, through the promise it was handed
  dedupe.catch(() => undefined);
  mentions.catch(() => undefined);
  try {
    await store.notifications.createIndex({ expiresAt: 1 }, { name: 'expiry', expireAfterSeconds: 0 });
    await store.usedTickets.createIndex({ expiresAt: 1 }, { name: 'expiry', expireAfterSeconds: 0 });
    return { ttl: true, dedupe, mentions };
  } catch {
    await store.notifications.createIndex({ expiresAt: 1 }, { name: 'expiry_sweep' });
    await store.usedTickets.createIndex({ expiresAt: 1 }, { name: 'expiry_sweep' });
    return { ttl: false, dedupe, mentions };
  }
}

/**
 * What an erasure seeks to delete what other gamers' inboxes say of the erased gamer (the
 * sender of a request, the gamer who ended a friendship): one index per field that names a
 * gamer in a notification's data. Sparse: on MongoDB only the notifications that name one (a
 * friendship's) are in them, so the inbox's writes of others pay nothing. Until 2026-11-28
 * the erasure read every notification of the application. Built in the background, as the
 * dedupe index is: the erasure is right without them, only slower.
 */
export const MENTION_INDEXES = [
  { field: 'data.user.id', name: 'mentions_user' },
  { field: 'data.userId', name: 'mentions_user_id' },
] as const;

async function ensureMentionIndexes(notifications: Store['notifications']): Promise<void> {
  for (const { field, name } of MENTION_INDEXES) await notifications.createIndex({ [field]: 1 }, { name, sparse: true });
}

const DEDUPE = { applicationId: 1, gamerId: 1, dedupeKey: 1 } as const;
const NOT_IMPLEMENTED = 238;

/**
 * One notification per dedupe key in a gamer's inbox: the store refuses a second copy of a
 * completion (11000). Partial on MongoDB, so the notifications stored without a key (before
 * it existed, copies among them, which would fail a unique build; or by an older replica
 * during a rolling upgrade) are left out of it. FerretDB v1 refuses partial indexes as not
 * implemented: there the index holds every notification, and two of a gamer without a key
 * would be one key (null), so a build they refuse gives each of them its own id as key, then
 * is tried once more.
 */
async function ensureDedupeIndex(notifications: Store['notifications']): Promise<void> {
  const partial = () => notifications.createIndex(DEDUPE, { name: 'dedupe', unique: true, partialFilterExpression: { dedupeKey: { $exists: true } } });
  try {
    await partial();
    return;
  } catch (error) {
    const code = (error as { code?: number }).code;
    if (code === DUPLICATE_KEY) {
      // copies of a completion stored while the index did not exist yet (MongoDB builds in the
      // background and fails the build at its commit): until 2026-11-29 every start failed the
      // same way while they were kept (30 days), and copies were stored and sent meanwhile
      await dropKeyedCopies(notifications);
      await partial();
      return;
    }
    if (code !== NOT_IMPLEMENTED) throw error;
  }
  try {
    await notifications.createIndex(DEDUPE, { name: 'dedupe', unique: true });
  } catch {
    // FerretDB reports the refused build as an internal error (code 1), not 11000
    await keyByOwnId(notifications);
    await dropKeyedCopies(notifications);
    await notifications.createIndex(DEDUPE, { name: 'dedupe', unique: true });
  }
}

const DUPLICATE_KEY = 11000;

/** Keeps the first copy (lowest id: stored first, seen first) of each dedupe key of a gamer, and deletes the others. */
async function dropKeyedCopies(notifications: Store['notifications']): Promise<void> {
  // $sum only: the local store's $group has no $min
  const copied = notifications.aggregate<{ _id: { applicationId: string; gamerId: string; dedupeKey: string } }>(
    [
      { $match: { dedupeKey: { $exists: true } } },
      { $group: { _id: { applicationId: '$applicationId', gamerId: '$gamerId', dedupeKey: '$dedupeKey' }, copies: { $sum: 1 } } },
      { $match: { copies: { $gt: 1 } } },
    ],
    { allowDiskUse: true },
  );
  const now = new Date();
  for await (const { _id: key } of copied) {
    // every field named, also one $group left out for being missing (null matches missing)
    const filter = { applicationId: key.applicationId ?? null, gamerId: key.gamerId ?? null, dedupeKey: key.dedupeKey ?? null } as Record<string, unknown>;
    const copies = await notifications.find(filter, { projection: { _id: 1, expiresAt: 1 }, sort: { _id: 1 } }).toArray();
    // the first still kept, not one past its retention that the store has yet to remove
    const kept = copies.find((d) => d.expiresAt > now) ?? copies[0];
    await notifications.deleteMany({ ...filter, _id: { $in: copies.filter((d) => d !== kept).map((d) => d._id) } });
  }
}

/** Gives each notification stored without a dedupe key its own id as one: it is a copy of nothing. */
async function keyByOwnId(notifications: Store['notifications']): Promise<void> {
  for (;;) {
    const page = await notifications.find({ dedupeKey: { $exists: false } }, { projection: { _id: 1 } }).limit(1_000).toArray();
    if (page.length === 0) return;
    await notifications.bulkWrite(
      page.map(({ _id }) => ({ updateOne: { filter: { _id, dedupeKey: { $exists: false } }, update: { $set: { dedupeKey: _id } } } })),
      { ordered: false },
    );
  }
}

/**
 * Waits for the `dedupe` index at start, at most `waitMs`: an empty or small inbox has it in
 * milliseconds, so a replica starts with copies refused from its first batch. The first
 * start after an upgrade, on a large inbox, would keep the replica from listening for the
 * whole build (MongoDB reads every notification, and waits for the replica set's members),
 * past its startup probe: the build then goes on in the background while the replica
 * serves, and until it is done a copy of a completion is stored and sent as before 2026-11-28.
 * A failed build is logged; the next start tries again (copies that failed it are removed first: ensureDedupeIndex).
 */
export async function awaitDedupeIndex(build: Promise<void>, waitMs: number, log: { info(msg: string): void; warn(msg: string): void; error(obj: object, msg: string): void }): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'waiting'>((resolve) => {
    timer = setTimeout(() => resolve('waiting'), waitMs);
    timer.unref();
  });
  const settled = build.then(
    () => 'built' as const,
    (error: unknown) => {
      log.error({ err: error }, 'the inbox dedupe index could not be built: copies of a completion are stored and sent twice until a start builds it (docs/notifications.md, "Once per completion")');
      return 'failed' as const;
    },
  );
  const first = await Promise.race([settled, timedOut]);
  clearTimeout(timer);
  if (first !== 'waiting') return;
  log.warn(`the inbox dedupe index is still being built after ${waitMs} ms: serving meanwhile, copies of a completion are kept until it is done`);
  void settled.then((outcome) => {
    if (outcome === 'built') log.info('the inbox dedupe index is built');
  });
}

export function isDuplicateKey(error: unknown): boolean {
  return (error as { code?: number }).code === 11000;
}
