import { ErrorCode, FriendshipStatus } from '@gfts/contracts';
import { badRequest, conflict, forbidden } from '@gfts/platform';
import type { BlockState, Relation } from './model.ts';

/** The pair key is the same whichever member asks, so the pair's unique index sees one pair. */
export function pairKeyOf(a: string, b: string): string {
  return a < b ? `${a}:${b}` : `${b}:${a}`;
}

export function membersOf(a: string, b: string): [string, string] {
  return a < b ? [a, b] : [b, a];
}

/** A new pending request from `requester` to `addressee`. */
export function pendingRequest(applicationId: string, requester: string, addressee: string, id: string, now: Date): Relation {
  return {
    id,
    applicationId,
    pairKey: pairKeyOf(requester, addressee),
    members: membersOf(requester, addressee),
    requester,
    addressee,
    status: FriendshipStatus.PENDING,
    createdAt: now,
    updatedAt: now,
  };
}

/** The member of a relation who is not `me`. */
export function otherMember(relation: Pick<Relation, 'requester' | 'addressee'>, me: string): string {
  return relation.requester === me ? relation.addressee : relation.requester;
}

export function assertNotSelf(caller: string, target: string, action: string): void {
  if (caller === target) throw badRequest(`you cannot ${action} yourself`, ErrorCode.CANNOT_TARGET_SELF);
}

/**
 * A block in either direction stops a friend request: the blocked gamer cannot reach the
 * blocker, and a blocker must unblock before befriending (a request the other side could
 * accept would silently undo the block).
 */
export function assertNotBlocked(blocks: BlockState): void {
  if (blocks.targetBlocksCaller) throw forbidden('this gamer does not accept friend requests from you', ErrorCode.BLOCKED);
  if (blocks.callerBlocksTarget) throw forbidden('you block this gamer; unblock them first', ErrorCode.BLOCKED);
}

/** What a new friend request is checked for once written (repository/relations.ts, `request`). */
export interface RequestChecks {
  /** the target is in the application's gamer directory */
  targetKnown: boolean;
  blocks: BlockState;
  /** the caller's pending requests, this one included, are within MAX_PENDING_OUTGOING */
  withinPendingLimit: boolean;
}

export type RequestRefusal = { kind: 'unknownTarget' } | { kind: 'blocked'; blocks: BlockState } | { kind: 'pendingLimit' };

/** The refusal of a request between two gamers with a block either way, or undefined. */
export function blockRefusal(blocks: BlockState): RequestRefusal | undefined {
  return blocks.callerBlocksTarget || blocks.targetBlocksCaller ? { kind: 'blocked', blocks } : undefined;
}

/** Why a written request may not stand, the first reason in answer order (404, 403, 409), or undefined. */
export function refusalOf(checks: RequestChecks): RequestRefusal | undefined {
  if (!checks.targetKnown) return { kind: 'unknownTarget' };
  const blocked = blockRefusal(checks.blocks);
  if (blocked) return blocked;
  if (!checks.withinPendingLimit) return { kind: 'pendingLimit' };
  return undefined;
}

/** What a friend request does when its write found the pair's relation already there. */
export type FriendRequestDecision =
  /** the caller already asked: answer ok, change nothing */
  | { kind: 'already-requested'; relationId: string }
  /** the target had already asked the caller: the two requests make a friendship */
  | { kind: 'accept-crossed'; relationId: string };

/**
 * The rule of POST / for a pair that already has a relation (the request's upsert found
 * it). Whether the target exists is not asked again: a relation is only ever made between
 * two gamers of the directory. Nor is a block, but before accepting the other gamer's
 * request (repository/relations.ts, `request`): a block clears the pair's relation once its
 * record is written (repository/blocked-pair.ts), and a new request checks itself after its
 * write, so a relation and a block meet only for the milliseconds of such a race, and a
 * request seen then must not become a friendship. Refusals are thrown as AppErrors the
 * error handler turns into problem+json.
 */
export function decideOnExistingRelation(caller: string, existing: Pick<Relation, 'id' | 'status' | 'requester'>): FriendRequestDecision {
  if (existing.status === FriendshipStatus.ACCEPTED) throw conflict(ErrorCode.ALREADY_FRIENDS, 'you are already friends');
  if (existing.requester === caller) return { kind: 'already-requested', relationId: existing.id };
  return { kind: 'accept-crossed', relationId: existing.id };
}
