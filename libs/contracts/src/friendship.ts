import Type, { type Static } from 'typebox';
import { DateTime, OkResponse, PageQuery, Uuid } from './common.ts';
import { Problem } from './errors.ts';

/**
 * State of a friendship relation between two gamers of one application.
 *
 *   (none) --request--> pending --accept (recipient)--> accepted (same id)
 *   pending --reject (recipient) | cancel (sender)--> (none)
 *   accepted --unfriend (either)--> (none)
 *   any --block (either)--> (none) + a one-way block record
 *   pending A->B --request B->A--> accepted (crossed requests)
 *
 * Blocks are not a status of the relation: they live in their own one-way records,
 * so A blocking B never shows up in B's lists.
 */
export const FriendshipStatus = { PENDING: 'pending', ACCEPTED: 'accepted' } as const;
export type FriendshipStatus = (typeof FriendshipStatus)[keyof typeof FriendshipStatus];

export const DISPLAY_NAME_MAX = 64;

/** 2.1 User (summary). `avatar` is '' when the gamer's token never carried a picture. */
export const UserSummary = Type.Object(
  { id: Uuid, displayName: Type.String(), avatar: Type.String() },
  { additionalProperties: false },
);
export type UserSummary = Static<typeof UserSummary>;

/** 2.2 Friendship entry (friends, incoming and outgoing requests). */
export const FriendshipEntry = Type.Object(
  {
    id: Uuid,
    status: Type.Union([Type.Literal(FriendshipStatus.PENDING), Type.Literal(FriendshipStatus.ACCEPTED)]),
    user: UserSummary,
  },
  { additionalProperties: false },
);
export type FriendshipEntry = Static<typeof FriendshipEntry>;

/**
 * Whether a friend is online: while they hold a live notifications connection
 * (GET /api/v1/notifications/live; docs/friendship.md, Presence). `lastSeenAt` is when
 * they were last connected (now-ish while online); null when the service never saw them.
 */
export const Presence = Type.Object(
  {
    status: Type.Union([Type.Literal('online'), Type.Literal('offline')]),
    lastSeenAt: Type.Union([DateTime, Type.Null()]),
  },
  { additionalProperties: false },
);
export type Presence = Static<typeof Presence>;

export const ALIAS_MAX = 32;

/**
 * An entry of the caller's friend list (GET /): the spec's friendship entry plus the
 * friend's presence and the caller's own private notes on them (alias '' when none).
 */
export const FriendEntry = Type.Object(
  {
    id: Uuid,
    status: Type.Literal(FriendshipStatus.ACCEPTED),
    user: UserSummary,
    presence: Presence,
    alias: Type.String({ maxLength: ALIAS_MAX, description: "the caller's private name for this friend; '' when none" }),
    favorite: Type.Boolean({ description: "the caller's private favorite mark" }),
  },
  { additionalProperties: false },
);
export type FriendEntry = Static<typeof FriendEntry>;

/** PATCH /{friendshipId}: the caller's private notes on a friend; at least one field. */
export const FriendNotesBody = Type.Object(
  {
    alias: Type.Optional(Type.String({ maxLength: ALIAS_MAX, pattern: '^[^\\u0000-\\u001f\\u007f]*$', description: "private name for the friend, at most 32 characters; '' removes it" })),
    favorite: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type FriendNotesBody = Static<typeof FriendNotesBody>;

/** GET /: paging, and `favorite=true` for the caller's favorites only. */
export const FriendListQuery = Type.Object(
  {
    ...PageQuery.properties,
    favorite: Type.Optional(Type.Boolean({ description: 'true: only friends the caller marked favorite' })),
  },
  { additionalProperties: false },
);
export type FriendListQuery = Static<typeof FriendListQuery>;

/** POST /: the request (or, when it crossed one of the target's, the friendship) it answered with. */
export const FriendRequestResponse = Type.Object(
  {
    ok: Type.Boolean(),
    id: Uuid,
    status: Type.Union([Type.Literal(FriendshipStatus.PENDING), Type.Literal(FriendshipStatus.ACCEPTED)]),
  },
  { additionalProperties: false },
);
export type FriendRequestResponse = Static<typeof FriendRequestResponse>;

export const SUGGESTIONS_DEFAULT = 20;
export const SUGGESTIONS_MAX = 100;

export const SuggestionsQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SUGGESTIONS_MAX, description: `result size (default ${SUGGESTIONS_DEFAULT})` })) },
  { additionalProperties: false },
);
export type SuggestionsQuery = Static<typeof SuggestionsQuery>;

/** A friend of a friend, with how many friends the caller and they have in common. */
export const Suggestion = Type.Object(
  { user: UserSummary, mutualFriends: Type.Integer({ minimum: 1 }) },
  { additionalProperties: false },
);
export type Suggestion = Static<typeof Suggestion>;

export const GamerIdParams = Type.Object({ gamerId: Uuid }, { additionalProperties: false });
export type GamerIdParams = Static<typeof GamerIdParams>;

/** 2.3 Blocked entry. */
export const BlockedEntry = Type.Object({ id: Uuid, toGamer: UserSummary }, { additionalProperties: false });
export type BlockedEntry = Static<typeof BlockedEntry>;

export const TargetBody = Type.Object({ target: Uuid }, { additionalProperties: false });
export type TargetBody = Static<typeof TargetBody>;

export const FriendshipIdParams = Type.Object({ friendshipId: Uuid }, { additionalProperties: false });
export type FriendshipIdParams = Static<typeof FriendshipIdParams>;

export const SearchQuery = Type.Object(
  {
    displayName: Type.String({ minLength: 1, maxLength: DISPLAY_NAME_MAX, pattern: '\\S', description: 'display-name prefix, case-insensitive, literal; not blank (a blank one is refused before anything is recorded)' }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'result size (default 20)' })),
  },
  { additionalProperties: false },
);
export type SearchQuery = Static<typeof SearchQuery>;

const errors = { 400: Problem, 401: Problem, 403: Problem, 404: Problem, 409: Problem, 429: Problem };
const BASE = '/api/v1/friendship';

/** Spec 4.1: every friendship endpoint, its schemas and its documentation, once. */
export const friendshipRoutes = {
  search: {
    method: 'GET', url: `${BASE}/search`,
    schema: { operationId: 'searchGamers', summary: 'Search gamers by display-name prefix', tags: ['friendship'], querystring: SearchQuery, response: { 200: Type.Array(UserSummary), ...errors } },
  },
  sendRequest: {
    method: 'POST', url: `${BASE}`,
    schema: {
      operationId: 'sendFriendRequest', summary: 'Send a friend request (accepts a crossed pending request)', tags: ['friendship'], body: TargetBody,
      description: 'Answers the id of the request and its status: `pending`, or `accepted` when the target had already asked the caller (the id is then that request\'s, now the friendship\'s). A repeated request answers the same id.',
      response: { 200: FriendRequestResponse, ...errors },
    },
  },
  accept: {
    method: 'POST', url: `${BASE}/:friendshipId/accept`,
    schema: { operationId: 'acceptFriendRequest', summary: 'Accept an incoming friend request', tags: ['friendship'], params: FriendshipIdParams, response: { 200: OkResponse, ...errors } },
  },
  listFriends: {
    method: 'GET', url: `${BASE}`,
    schema: {
      operationId: 'listFriends', summary: 'List friends, with presence and the caller\'s private notes', tags: ['friendship'], querystring: FriendListQuery,
      response: { 200: Type.Array(FriendEntry), ...errors },
    },
  },
  listIncoming: {
    method: 'GET', url: `${BASE}/requests/incoming`,
    schema: { operationId: 'listIncomingRequests', summary: 'List incoming friend requests (user is the sender)', tags: ['friendship'], querystring: PageQuery, response: { 200: Type.Array(FriendshipEntry), ...errors } },
  },
  listOutgoing: {
    method: 'GET', url: `${BASE}/requests/outgoing`,
    schema: { operationId: 'listOutgoingRequests', summary: 'List outgoing friend requests (user is the recipient)', tags: ['friendship'], querystring: PageQuery, response: { 200: Type.Array(FriendshipEntry), ...errors } },
  },
  reject: {
    method: 'DELETE', url: `${BASE}/requests/incoming/:friendshipId`,
    schema: { operationId: 'rejectFriendRequest', summary: 'Reject an incoming friend request', tags: ['friendship'], params: FriendshipIdParams, response: { 200: OkResponse, ...errors } },
  },
  cancel: {
    method: 'DELETE', url: `${BASE}/requests/outgoing/:friendshipId`,
    schema: { operationId: 'cancelFriendRequest', summary: 'Cancel an outgoing friend request', tags: ['friendship'], params: FriendshipIdParams, response: { 200: OkResponse, ...errors } },
  },
  unblock: {
    method: 'DELETE', url: `${BASE}/blocked/:friendshipId`,
    schema: { operationId: 'unblockGamer', summary: 'Unblock a gamer', tags: ['friendship'], params: FriendshipIdParams, response: { 200: OkResponse, ...errors } },
  },
  block: {
    method: 'POST', url: `${BASE}/block`,
    schema: { operationId: 'blockGamer', summary: 'Block a gamer (removes any friendship or request between the two)', tags: ['friendship'], body: TargetBody, response: { 200: OkResponse, ...errors } },
  },
  unfriend: {
    method: 'DELETE', url: `${BASE}/:friendshipId`,
    schema: { operationId: 'unfriend', summary: 'Remove a friend', tags: ['friendship'], params: FriendshipIdParams, response: { 200: OkResponse, ...errors } },
  },
  updateNotes: {
    method: 'PATCH', url: `${BASE}/:friendshipId`,
    schema: {
      operationId: 'updateFriendNotes', summary: 'Set the caller\'s private alias and favorite mark on a friend', tags: ['friendship'],
      params: FriendshipIdParams, body: FriendNotesBody, response: { 200: FriendEntry, ...errors },
    },
  },
  suggestions: {
    method: 'GET', url: `${BASE}/suggestions`,
    schema: {
      operationId: 'friendSuggestions', summary: 'Friends of friends, most mutual friends first', tags: ['friendship'],
      description: 'Never the caller, a friend, a gamer with a pending request either way, a gamer blocked either way, or a gamer of another application.',
      querystring: SuggestionsQuery, response: { 200: Type.Array(Suggestion), ...errors },
    },
  },
  mutualFriends: {
    method: 'GET', url: `${BASE}/mutual/:gamerId`,
    schema: {
      operationId: 'mutualFriends', summary: 'Friends the caller and another gamer have in common', tags: ['friendship'],
      description: '404 for an unknown gamer, the caller, or a gamer who blocks the caller or whom the caller blocks.',
      params: GamerIdParams, response: { 200: Type.Array(UserSummary), ...errors },
    },
  },
  listBlocked: {
    method: 'GET', url: `${BASE}/blocked`,
    schema: { operationId: 'listBlocked', summary: 'List gamers the caller blocks', tags: ['friendship'], querystring: PageQuery, response: { 200: Type.Array(BlockedEntry), ...errors } },
  },
} as const;

/** Events the friendship service publishes (core NATS, at most once: notifications). */
export const FriendshipEventType = {
  REQUESTED: 'requested',
  ACCEPTED: 'accepted',
  REJECTED: 'rejected',
  CANCELLED: 'cancelled',
  REMOVED: 'removed',
  BLOCKED: 'blocked',
  UNBLOCKED: 'unblocked',
} as const;
export type FriendshipEventType = (typeof FriendshipEventType)[keyof typeof FriendshipEventType];

/**
 * `friendshipId` is the relation's id (the block's id for blocked/unblocked). A request's
 * id stays the friendship's id after accept, so `requested`, `accepted` and `removed` of
 * one friendship carry the same id.
 */
export const FriendshipEvent = Type.Object({
  type: Type.Enum(Object.values(FriendshipEventType)),
  applicationId: Uuid,
  friendshipId: Uuid,
  actorId: Uuid,
  targetId: Uuid,
  occurredAt: Type.String({ format: 'date-time' }),
  /** the acting gamer as the directory shows them (requested, accepted): what a notification shows the other side */
  actor: Type.Optional(UserSummary),
  /**
   * blocked: the relation the block removed, if the pair had one, so the notifications service
   * can tell the blocked gamer what they lost (as an unfriend or a cancel, never as a block).
   */
  removedRelation: Type.Optional(
    Type.Object({
      friendshipId: Uuid,
      status: Type.Union([Type.Literal(FriendshipStatus.PENDING), Type.Literal(FriendshipStatus.ACCEPTED)]),
      requesterId: Uuid,
    }),
  ),
});
export type FriendshipEvent = Static<typeof FriendshipEvent>;

/**
 * A gamer's presence changed and the change settled (docs/friendship.md, Presence): published
 * once per change by the friendship replica that claimed it, with the friends to tell
 * (friends who are online, never a gamer blocking or blocked by the gamer). The
 * notifications service turns it into one live-only `presence.changed` per recipient.
 */
export const PresenceChangedEvent = Type.Object({
  applicationId: Uuid,
  gamerId: Uuid,
  status: Presence.properties.status,
  lastSeenAt: Type.Union([DateTime, Type.Null()]),
  occurredAt: Type.String({ format: 'date-time' }),
  recipients: Type.Array(Uuid, { maxItems: 100_000 }),
});
export type PresenceChangedEvent = Static<typeof PresenceChangedEvent>;

/** Request-reply: "may `from` message `to`?" Answered false while `to` blocks `from`. */
export const CanMessageRequest = Type.Object(
  { applicationId: Uuid, from: Uuid, to: Uuid },
  { additionalProperties: false },
);
export type CanMessageRequest = Static<typeof CanMessageRequest>;
export const CanMessageReply = Type.Object({
  allowed: Type.Boolean(),
  reason: Type.Optional(Type.Union([Type.Literal('blocked'), Type.Literal('invalid_request')])),
});
export type CanMessageReply = Static<typeof CanMessageReply>;
