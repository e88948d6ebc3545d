import type { FriendshipStatus } from '@gfts/contracts';

/**
 * One friendship relation: at most one document per unordered pair of gamers, whatever
 * its direction or state. Exactly one place per pair lets a unique index, not a
 * transaction, settle races between the two gamers. Its id is the request's id and stays
 * the friendship's id after accept: accepting changes `status` in place.
 */
export interface Relation {
  id: string;
  applicationId: string;
  pairKey: string;
  members: [string, string];
  requester: string;
  addressee: string;
  status: FriendshipStatus;
  /** when the request was made */
  createdAt: Date;
  /** when the relation reached its current status (for a friendship: when it was accepted) */
  updatedAt: Date;
  /** each member's private notes on the other, by member id */
  notes?: Record<string, FriendNotes>;
}

/** What a gamer privately notes about a friend. */
export interface FriendNotes {
  alias?: string;
  favorite?: boolean;
}

/** A one-way block: `blocker` refuses `blocked`. `id` is the id of DELETE /blocked/{id}. */
export interface Block {
  id: string;
  applicationId: string;
  blocker: string;
  blocked: string;
  createdAt: Date;
}

/** A gamer as the directory knows them (from the claims of their last token). */
export interface GamerProfile {
  gamerId: string;
  displayName: string;
  avatar: string;
  /** the end of the gamer's last session, as last persisted; absent if never seen */
  lastSeenAt?: Date;
}

/** The name and avatar the directory holds for a gamer. */
export type StoredSummary = Pick<GamerProfile, 'displayName' | 'avatar'>;

/** The two directions of blocking between a caller and a target. */
export interface BlockState {
  targetBlocksCaller: boolean;
  callerBlocksTarget: boolean;
}
