import { DEFAULT_PAGE_SIZE, type Identity, type Notification } from '@gfts/contracts';
import { decodeCursor, encodeCursor, notFound } from '@gfts/platform';
import type { InboxRepository } from './repository/inbox.ts';

export interface InboxPage {
  items: Notification[];
  limit: number;
  nextCursor?: string;
  /** the next page when it follows from `since` (the last id shown), not from a cursor */
  next?: { since: string };
}

type Caller = Pick<Identity, 'applicationId' | 'gamerId'>;

/**
 * The inbox use cases: a page newest first (cursor = last id shown); with `since`, what came
 * after that id, oldest first (the next page: since = the last id shown); deleting one.
 */
export function inboxService(inbox: InboxRepository) {
  return {
    async page(caller: Caller, request: { limit?: number | undefined; cursor?: string | undefined; since?: string | undefined }): Promise<InboxPage> {
      const limit = request.limit ?? DEFAULT_PAGE_SIZE;
      if (request.since !== undefined) {
        // Oldest first, as the live channel's replay: a client that holds the last id of each
        // page it read can stop at any page and go on from there (one gap remains, a write
        // that waited: docs/notifications.md, and the client's overlap for it). Ids are
        // lower case where stored; a client may send the one it holds in any case. A cursor
        // beside it is not read: the next page follows from since alone.
        const rows = await inbox.after(caller, request.since.toLowerCase(), limit + 1);
        const shown = rows.slice(0, limit);
        const last = shown.at(-1);
        return { items: shown, limit, ...(rows.length > limit && last ? { next: { since: last.id } } : {}) };
      }
      const beforeId = request.cursor === undefined ? undefined : decodeCursor(request.cursor);
      // one more than shown tells whether another page follows, without counting
      const rows = await inbox.newestFirst(caller, beforeId, limit + 1);
      const shown = rows.slice(0, limit);
      const last = shown.at(-1);
      return { items: shown, limit, ...(rows.length > limit && last ? { nextCursor: encodeCursor(last.id) } : {}) };
    },

    async remove(caller: Caller, id: string): Promise<void> {
      const outcome = await inbox.remove(caller, id.toLowerCase());
      if (outcome.kind === 'notFound') throw notFound('no such notification of yours');
    },
  };
}
export type InboxService = ReturnType<typeof inboxService>;
