import { DEFAULT_PAGE_SIZE, type Identity, type Notification } from '@gfts/contracts';
import { decodeCursor, encodeCursor, notFound } from '@gfts/platform';
import type { InboxRepository } from './repository/inbox.ts';

export interface InboxPage {
  items: Notification[];
  limit: number;
  nextCursor?: string;
  /** carried into the next page's link */
  filter?: Record<string, string>;
}

type Caller = Pick<Identity, 'applicationId' | 'gamerId'>;

/** The inbox use cases: a page newest first (cursor = last id shown), down to `since` if given, and deleting one. */
export function inboxService(inbox: InboxRepository) {
  return {
    async page(caller: Caller, request: { limit?: number | undefined; cursor?: string | undefined; since?: string | undefined }): Promise<InboxPage> {
      const limit = request.limit ?? DEFAULT_PAGE_SIZE;
      const beforeId = request.cursor === undefined ? undefined : decodeCursor(request.cursor);
      // ids are lower case where stored; a client may send the one it holds in any case
      const since = request.since?.toLowerCase();
      // one more than shown tells whether another page follows, without counting
      const rows = await inbox.newestFirst(caller, beforeId, limit + 1, since);
      const shown = rows.slice(0, limit);
      const last = shown.at(-1);
      return { items: shown, limit, ...(rows.length > limit && last ? { nextCursor: encodeCursor(last.id) } : {}), ...(since ? { filter: { since } } : {}) };
    },

    async remove(caller: Caller, id: string): Promise<void> {
      const outcome = await inbox.remove(caller, id.toLowerCase());
      if (outcome.kind === 'notFound') throw notFound('no such notification of yours');
    },
  };
}
export type InboxService = ReturnType<typeof inboxService>;
