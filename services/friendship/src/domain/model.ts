import type { FriendshipStatus } from '@gfts/contracts';

/**
 * One friendship relation: a single document per unordered pair of gamers, whatever its
 * direction or state. Having exactly one place per pair is what lets a unique index,
 * not a transaction, settle every race between the two gamers.
 */
export interface Relation {
  id: string;
  applicationId: string;
  pairKey: string;
  members: [string, string];
  requester: string;
  addressee: string;
  status: FriendshipStatus;
  createdAt: Date;
  updatedAt: Date;
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
}

/** The two directions of blocking between a caller and a target. */
export interface BlockState {
  targetBlocksCaller: boolean;
  callerBlocksTarget: boolean;
}
