import { DEFAULT_PAGE_SIZE, ErrorCode } from '@gfts/contracts';
import { badRequest, conflict } from '@gfts/platform';

export const MAX_PAGE_SIZE = 200;
export const DEFAULT_SEARCH_SIZE = 20;
export const MAX_SEARCH_SIZE = 50;
/**
 * Reads of one search, each of the next `size` matches: a search answers short only when
 * more than (SEARCH_READS − 1) × its size of its first SEARCH_READS × size matches block the
 * caller.
 */
export const SEARCH_READS = 4;

/** The page size of a list: the default when absent; schemas already bound it, this guards other callers. */
export function pageSize(limit: number | undefined): number {
  return boundedSize(limit, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
}

export function searchSize(limit: number | undefined): number {
  return boundedSize(limit, DEFAULT_SEARCH_SIZE, MAX_SEARCH_SIZE);
}

function boundedSize(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined) return fallback;
  if (!Number.isInteger(limit) || limit < 1 || limit > max) throw badRequest(`limit must be an integer from 1 to ${max}`);
  return limit;
}

/** The per-gamer quotas of configuration, each with the error code a client switches on. */
export const Quota = {
  friends: { code: ErrorCode.FRIEND_LIMIT_REACHED, what: 'friends' },
  pendingOutgoing: { code: ErrorCode.PENDING_LIMIT_REACHED, what: 'pending outgoing friend requests' },
  blocks: { code: ErrorCode.BLOCK_LIMIT_REACHED, what: 'blocked gamers' },
} as const;
export type Quota = (typeof Quota)[keyof typeof Quota];

/**
 * Before a write: a gamer who already holds `count` items may not take another.
 * After a write (`including` the new item): the count may equal the limit, not exceed it.
 */
export function withinLimit(count: number, max: number, stage: 'before' | 'after'): boolean {
  return stage === 'before' ? count < max : count <= max;
}

/** Whose quota a refusal is about: the gamer who called, or the other gamer of the pair. */
export type Whose = 'caller' | 'other';

/**
 * A friendship counts against both gamers' friend quota: the first of the two whose count
 * does not fit (see withinLimit for `stage`), or undefined when both do.
 */
export function friendLimitHolder(friends: Record<Whose, number>, max: number, stage: 'before' | 'after'): Whose | undefined {
  if (!withinLimit(friends.caller, max, stage)) return 'caller';
  if (!withinLimit(friends.other, max, stage)) return 'other';
  return undefined;
}

export function limitReached(quota: Quota, max: number, who: Whose = 'caller'): Error {
  const subject = who === 'caller' ? 'you have' : 'the other gamer has';
  return conflict(quota.code, `${subject} reached the limit of ${max} ${quota.what}`);
}
