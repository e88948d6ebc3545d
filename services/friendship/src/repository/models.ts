import type { FriendshipStatus } from '@gfts/contracts';
import { Schema, type Connection, type Model } from 'mongoose';

/*
 * The collections of the friendship service and their indexes. Only features MongoDB and
 * FerretDB v1 share are used: plain and compound indexes, unique indexes, no partial or
 * TTL indexes, no collation. Every index starts with applicationId because every query is
 * scoped to one application.
 */

export interface GamerDoc {
  applicationId: string;
  gamerId: string;
  displayName: string;
  /** displayName folded for search (domain/display-name.ts) */
  displayNameKey: string;
  avatar: string;
  updatedAt: Date;
  /** when the gamer was last seen online, written when a session ends (presence/board.ts) */
  lastSeenAt?: Date;
}

/** A member's private notes on the other member of a friendship (PATCH /{friendshipId}). */
export interface FriendNotesDoc {
  alias?: string;
  favorite?: boolean;
}

export interface RelationDoc {
  /** uuidv7, made with the request and kept after accept: the API's friendshipId and the paging key */
  _id: string;
  applicationId: string;
  /** `${min(a,b)}:${max(a,b)}`: unique per application, so a pair has at most one relation */
  pairKey: string;
  members: string[];
  requester: string;
  addressee: string;
  status: FriendshipStatus;
  createdAt: Date;
  updatedAt: Date;
  /**
   * Private notes, keyed by the member who wrote them: `notes.<gamerId>.alias|favorite`.
   * Kept on the relation so a note is one atomic update and goes with the friendship.
   */
  notes?: Record<string, FriendNotesDoc>;
  /**
   * Set by a repeated request that found the request while its requester's earlier call
   * might still withdraw it for the pending limit, and answered it: that call may no longer
   * withdraw it (repository/relations.ts).
   */
  kept?: boolean;
}

export interface BlockDoc {
  /** uuidv7: the id of DELETE /blocked/{id} */
  _id: string;
  applicationId: string;
  blocker: string;
  blocked: string;
  createdAt: Date;
  /**
   * Set by a repeated block that found the record while its creator might still withdraw it
   * for the block limit, and acted on it: the creator may no longer withdraw it
   * (repository/blocks.ts).
   */
  kept?: boolean;
  /**
   * Set by the call that announces the block: its creator, or a repeat whose clearing of the
   * pair removed a relation first; the creator announces a block without one only when
   * nobody did (repository/blocks.ts).
   */
  announced?: boolean;
}

/**
 * A gamer's accepted friends as one small document: a second copy of what the accepted
 * relations say, kept only so that suggestions and mutual friends read 1 + F documents
 * instead of F x F relations (docs/friendship.md, "Friend-id lists"). The relations stay
 * the truth; this is rebuilt from them when missing, incomplete or older than the
 * configured age (repository/friend-lists.ts).
 */
export interface FriendListDoc {
  /** `${applicationId}:${gamerId}`: the list read is one `_id $in` over many gamers */
  _id: string;
  applicationId: string;
  gamerId: string;
  friends: string[];
  /** changes applied since the document was created; a rebuild writes only if it is unchanged */
  version: number;
  /** when the list was last rebuilt from the relations; absent when changes created it (not complete) */
  builtAt?: Date;
}

const options = { versionKey: false, strict: 'throw', autoIndex: true } as const;

const gamerSchema = new Schema<GamerDoc>(
  {
    applicationId: { type: String, required: true },
    gamerId: { type: String, required: true },
    displayName: { type: String, default: '' },
    displayNameKey: { type: String, default: '' },
    avatar: { type: String, default: '' },
    updatedAt: { type: Date, required: true },
    lastSeenAt: { type: Date },
  },
  { ...options, collection: 'gamers' },
);
gamerSchema.index({ applicationId: 1, gamerId: 1 }, { unique: true });
// prefix search: a range on displayNameKey, ordered by key then gamerId
gamerSchema.index({ applicationId: 1, displayNameKey: 1, gamerId: 1 });

const relationSchema = new Schema<RelationDoc>(
  {
    _id: { type: String, required: true },
    applicationId: { type: String, required: true },
    pairKey: { type: String, required: true },
    members: { type: [String], required: true },
    requester: { type: String, required: true },
    addressee: { type: String, required: true },
    status: { type: String, required: true, enum: ['pending', 'accepted'] },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    notes: { type: Schema.Types.Mixed },
    kept: { type: Boolean },
  },
  { ...options, collection: 'relations' },
);
// The race guard: 20 identical concurrent requests, or A->B and B->A at once, meet here;
// the request upsert (repository/relations.ts) inserts for one of them.
relationSchema.index({ applicationId: 1, pairKey: 1 }, { unique: true });
// The lists: incoming (addressee, pending), outgoing (requester, pending), and friends, the
// accepted relations on either index (repository/relations.ts friendSides).
relationSchema.index({ applicationId: 1, addressee: 1, status: 1, _id: 1 });
relationSchema.index({ applicationId: 1, requester: 1, status: 1, _id: 1 });

const blockSchema = new Schema<BlockDoc>(
  {
    _id: { type: String, required: true },
    applicationId: { type: String, required: true },
    blocker: { type: String, required: true },
    blocked: { type: String, required: true },
    createdAt: { type: Date, required: true },
    kept: { type: Boolean },
    announced: { type: Boolean },
  },
  { ...options, collection: 'blocks' },
);
// one record per direction; also the paging index of GET /blocked
blockSchema.index({ applicationId: 1, blocker: 1, blocked: 1 }, { unique: true });
blockSchema.index({ applicationId: 1, blocker: 1, _id: 1 });
// "who blocks me": an erasure's delete, and the admin's look-up of a gamer's blockers, oldest
// first, which reads only its page through the trailing _id (with (applicationId, blocked)
// alone, until 2026-11-28, it read and sorted every block of the gamer)
blockSchema.index({ applicationId: 1, blocked: 1, _id: 1 });
/** Indexes a later one replaced: dropped at start, so writes no longer keep them up. */
const REPLACED_INDEXES: { model: keyof FriendshipModels; name: string }[] = [{ model: 'blocks', name: 'applicationId_1_blocked_1' }];

const friendListSchema = new Schema<FriendListDoc>(
  {
    _id: { type: String, required: true },
    applicationId: { type: String, required: true },
    gamerId: { type: String, required: true },
    friends: { type: [String], default: [] },
    version: { type: Number, default: 0 },
    builtAt: { type: Date },
  },
  { ...options, collection: 'friendlists' },
);
// no index besides _id: every read and write names the documents by _id

export interface FriendshipModels {
  gamers: Model<GamerDoc>;
  relations: Model<RelationDoc>;
  blocks: Model<BlockDoc>;
  friendLists: Model<FriendListDoc>;
}

/**
 * Compiles the models on the service's connection and waits for their indexes: the unique
 * indexes are what make concurrent requests safe, so no request is served before they exist.
 */
export async function createModels(connection: Connection): Promise<FriendshipModels> {
  const models: FriendshipModels = {
    gamers: connection.model<GamerDoc>('Gamer', gamerSchema),
    relations: connection.model<RelationDoc>('Relation', relationSchema),
    blocks: connection.model<BlockDoc>('Block', blockSchema),
    friendLists: connection.model<FriendListDoc>('FriendList', friendListSchema),
  };
  await Promise.all(Object.values(models).map((model: Model<unknown>) => model.init()));
  // gone already (dropped by another replica, or never made) is fine
  await Promise.all(REPLACED_INDEXES.map(({ model, name }) => models[model].collection.dropIndex(name).catch(() => undefined)));
  return models;
}
