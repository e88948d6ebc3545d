import type { Notification } from '@gfts/contracts';
import { isDuplicateKey, type NotificationDoc, type Store } from './store.ts';

export interface GamerRef {
  applicationId: string;
  gamerId: string;
}

export type RemoveOutcome = { kind: 'removed' } | { kind: 'notFound' };

const toNotification = (doc: NotificationDoc): Notification => ({ id: doc._id, type: doc.type, at: doc.at, data: doc.data }) as Notification;

/** A bulk insert's failure made only of ids already stored (every other document was inserted). */
function onlyDuplicateKeys(error: unknown): boolean {
  const writeErrors = (error as { writeErrors?: unknown }).writeErrors;
  if (writeErrors === undefined) return isDuplicateKey(error);
  const all = [writeErrors].flat();
  // a write concern error or a network error says nothing of what was inserted
  return all.length > 0 && all.every(isDuplicateKey) && !(error as { writeConcernErrors?: unknown[] }).writeConcernErrors?.length;
}

/** The inbox: stored notifications of each gamer, newest first, kept NOTIFY_RETENTION_MS. */
export function inboxRepository(store: Store, retentionMs: number, clock: () => Date = () => new Date()) {
  const { notifications } = store;
  const live = () => ({ expiresAt: { $gt: clock() } });
  return {
    /**
     * Stores notifications made together (one bulk insert). Idempotent: the ingest retries a
     * failed write with the same ids, and an id already there (11000, a part of the batch an
     * earlier attempt stored) is stored; unordered, so the rest is inserted all the same.
     */
    async add(entries: (Notification & GamerRef)[]): Promise<void> {
      if (entries.length === 0) return;
      const expiresAt = new Date(clock().getTime() + retentionMs);
      try {
        await notifications.insertMany(
          entries.map(({ id, type, at, data, applicationId, gamerId }) => ({ _id: id, applicationId, gamerId, type, at, data, expiresAt })),
          { ordered: false },
        );
      } catch (error) {
        if (!onlyDuplicateKeys(error)) throw error;
      }
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

    /** The notifications after `afterId`, oldest first: what a resuming client missed. */
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
      const mentions = await notifications.deleteMany({ applicationId, $or: [{ 'data.user.id': gamerId }, { 'data.userId': gamerId }] });
      return { own: own.deletedCount, mentions: mentions.deletedCount };
    },

    /** Deletes what has expired (only needed where the store has no TTL index). */
    async sweep(): Promise<number> {
      const result = await notifications.deleteMany({ expiresAt: { $lte: clock() } });
      return result.deletedCount;
    },
  };
}
export type InboxRepository = ReturnType<typeof inboxRepository>;
