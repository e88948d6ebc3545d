import type { Notification } from '@gfts/contracts';
import { completionKey } from '../domain/completion-key.ts';
import { isDuplicateKey, MENTION_INDEXES, type NotificationDoc, type Store } from './store.ts';

export interface GamerRef {
  applicationId: string;
  gamerId: string;
}

export type RemoveOutcome = { kind: 'removed' } | { kind: 'notFound' };

const toNotification = (doc: NotificationDoc): Notification => ({ id: doc._id, type: doc.type, at: doc.at, data: doc.data }) as Notification;

/** What `add` did not store of a batch. */
export interface AddOutcome {
  /** ids refused as another copy of a completion the inbox holds: never stored, not to be published */
  duplicates: ReadonlySet<string>;
}

/**
 * Whether a bulk write's error also carries a write concern error. The driver keeps those in
 * the error's result (`MongoBulkWriteError.result.getWriteConcernError()`), not on the error:
 * until 2026-11-28 this read `error.writeConcernErrors`, which is never set, so a refusal
 * that came with one (a step-down while waiting for the majority) was taken as stored.
 */
function hasWriteConcernError(error: unknown): boolean {
  const result = (error as { result?: { getWriteConcernError?: () => unknown } }).result;
  return typeof result?.getWriteConcernError === 'function' && result.getWriteConcernError() !== undefined;
}

/**
 * The ids of a bulk insert's documents a unique key refused (every other document was
 * inserted), or undefined when it failed otherwise. An error without per-document errors
 * names none: then any of them may have been refused, and the look-up that follows tells.
 */
export function refusedByUniqueKeys(error: unknown, ids: string[]): string[] | undefined {
  const writeErrors = (error as { writeErrors?: unknown }).writeErrors;
  if (writeErrors === undefined) return isDuplicateKey(error) ? ids : undefined;
  const all = [writeErrors].flat() as { index?: number }[];
  // a write concern error or a network error says nothing of what was inserted
  if (all.length === 0 || !all.every(isDuplicateKey) || hasWriteConcernError(error)) return undefined;
  const named = all.map((e) => (e.index === undefined ? undefined : ids[e.index]));
  return named.includes(undefined) ? ids : (named as string[]);
}

/** The inbox: stored notifications of each gamer, newest first, kept NOTIFY_RETENTION_MS. */
export function inboxRepository(store: Store, retentionMs: number, clock: () => Date = () => new Date()) {
  const { notifications } = store;
  const live = () => ({ expiresAt: { $gt: clock() } });
  return {
    /**
     * Stores notifications made together (one bulk insert), unordered: what the store refuses
     * (11000) leaves the rest inserted all the same. A refused one is either already stored
     * (its id is there: the ingest retries a failed write with the same ids, and an earlier
     * attempt stored part of it), or another copy of a completion the inbox holds, stored
     * before or earlier in the batch (its dedupe key is there), which is answered in
     * `duplicates`. The error does not say which on every store (FerretDB names no index, and
     * a retry of a stored completion collides on both), so the refused ids are looked up, and
     * one is answered a copy only where another notification holds its key. A refused one that
     * is neither (an error naming no document refused them all) fails the call, so the ingest
     * writes the batch again rather than drop it.
     */
    async add(entries: (Notification & GamerRef)[]): Promise<AddOutcome> {
      if (entries.length === 0) return { duplicates: new Set() };
      const now = clock();
      const expiresAt = new Date(now.getTime() + retentionMs);
      const docOf = (n: Notification & GamerRef): NotificationDoc => ({
        _id: n.id, applicationId: n.applicationId, gamerId: n.gamerId, type: n.type, at: n.at, data: n.data, expiresAt, dedupeKey: completionKey(n) ?? n.id,
      }) as NotificationDoc;
      let refused: string[];
      try {
        await notifications.insertMany(entries.map(docOf), { ordered: false });
        return { duplicates: new Set() };
      } catch (error) {
        const ids = refusedByUniqueKeys(error, entries.map((n) => n.id));
        if (!ids) throw error;
        refused = ids;
      }
      const stored = new Set((await notifications.find({ _id: { $in: refused } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
      const byId = new Map(entries.map((n) => [n.id, n]));
      const unstored = refused.filter((id) => !stored.has(id)).map((id) => byId.get(id)!);
      const duplicates = new Set<string>();
      let renewedCount = 0;
      // one read per gamer among them (a batch's copies are usually one gamer's), by the dedupe index
      for (const group of Map.groupBy(unstored, (n) => `${n.applicationId}:${n.gamerId}`).values()) {
        const keyed = group.flatMap((n) => {
          const key = completionKey(n);
          return key === undefined ? [] : [[n.id, key] as const];
        });
        const { applicationId, gamerId } = group[0]!;
        const holders = keyed.length === 0 ? [] : await notifications.find({ applicationId, gamerId, dedupeKey: { $in: keyed.map(([, key]) => key) } }, { projection: { dedupeKey: 1, expiresAt: 1 } }).toArray();
        const held = new Set(holders.filter((d) => d.expiresAt > now).map((d) => d.dedupeKey));
        // A first copy past its retention no longer counts (docs, "Only while the first copy is
        // kept"), but the store removes it only later (MongoDB's TTL monitor, ~60 s; the sweep
        // on the local store): it goes now, and the repeat is stored in its place. Until
        // 2026-11-28 the repeat was taken for a copy, neither stored nor sent.
        const expired = holders.filter((d) => d.expiresAt <= now);
        const renewed = keyed.filter(([, key]) => !held.has(key) && expired.some((d) => d.dedupeKey === key)).map(([id]) => id);
        if (renewed.length > 0) {
          await notifications.deleteMany({ _id: { $in: expired.map((d) => d._id) }, expiresAt: { $lte: now } });
          const byIdOf = new Map(group.map((n) => [n.id, n]));
          try {
            await notifications.insertMany(renewed.map((id) => docOf(byIdOf.get(id)!)), { ordered: false });
          } catch (error) {
            // a unique key refused some: another copy in this batch, or a concurrent write's,
            // holds the key now (told below); anything else fails the call
            if (!refusedByUniqueKeys(error, renewed)) throw error;
          }
          const inNow = new Set((await notifications.find({ _id: { $in: renewed } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
          for (const id of renewed) {
            if (inNow.has(id)) renewedCount++;
            else duplicates.add(id);
          }
        }
        for (const [id, key] of keyed) if (held.has(key)) duplicates.add(id);
      }
      if (duplicates.size + renewedCount < unstored.length) throw new Error(`the store refused ${unstored.length - duplicates.size - renewedCount} notification(s) that are neither stored nor copies`);
      return { duplicates };
    },

    /** One page, newest first, of the ids before `beforeId` (the whole inbox without it). */
    async newestFirst(gamer: GamerRef, beforeId: string | undefined, limit: number): Promise<Notification[]> {
      const docs = await notifications
        .find({ applicationId: gamer.applicationId, gamerId: gamer.gamerId, ...live(), ...(beforeId ? { _id: { $lt: beforeId } } : {}) })
        .sort({ _id: -1 })
        .limit(limit)
        .toArray();
      return docs.map(toNotification);
    },

    /** The notifications after `afterId`, oldest first: what a resuming client missed (the live replay, the inbox's since). */
    async after(gamer: GamerRef, afterId: string, limit: number): Promise<Notification[]> {
      const docs = await notifications
        .find({ applicationId: gamer.applicationId, gamerId: gamer.gamerId, ...live(), _id: { $gt: afterId } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toNotification);
    },

    /** Deletes one notification of this gamer's; someone else's is as unknown as a missing one. */
    async remove(gamer: GamerRef, id: string): Promise<RemoveOutcome> {
      const result = await notifications.deleteOne({ _id: id, applicationId: gamer.applicationId, gamerId: gamer.gamerId, ...live() });
      return result.deletedCount === 1 ? { kind: 'removed' } : { kind: 'notFound' };
    },

    /**
     * Gamer erasure: the gamer's own inbox, and what other gamers' inboxes say of them (the
     * notifications naming them as `user` or `userId`). Idempotent: a repeat finds nothing.
     */
    async eraseGamer(applicationId: string, gamerId: string): Promise<{ own: number; mentions: number }> {
      const own = await notifications.deleteMany({ applicationId, gamerId });
      // one delete per field that names a gamer, each seeking its index (MENTION_INDEXES)
      let mentions = 0;
      for (const { field } of MENTION_INDEXES) mentions += (await notifications.deleteMany({ applicationId, [field]: gamerId })).deletedCount;
      return { own: own.deletedCount, mentions };
    },

    /** Deletes what has expired (only needed where the store has no TTL index). */
    async sweep(): Promise<number> {
      const result = await notifications.deleteMany({ expiresAt: { $lte: clock() } });
      return result.deletedCount;
    },
  };
}
export type InboxRepository = ReturnType<typeof inboxRepository>;
