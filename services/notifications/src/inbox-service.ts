import { DEFAULT_PAGE_SIZE, type Identity, type Notification } from '@gfts/contracts';
import { decodeCursor, encodeCursor, notFound } from '@gfts/platform';
import type { InboxRepository } from './repository/inbox.ts';

export interface InboxPage {
  items: Notification[];
  limit: number;
  nextCursor?: string;
}

type Caller = Pick<Identity, 'applicationId' | 'gamerId'>;

/** The inbox use cases: a page newest first (cursor = last id shown), and deleting one. */
export function inboxService(inbox: InboxRepository) {
  return {
    async page(caller: Caller, request: { limit?: number | undefined; cursor?: string | undefined }): Promise<InboxPage> {
      const limit = request.limit ?? DEFAULT_PAGE_SIZE;
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
