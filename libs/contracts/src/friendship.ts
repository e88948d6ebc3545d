import Type, { type Static } from 'typebox';
import { OkResponse, PageQuery, Uuid } from './common.ts';
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

/** 2.3 Blocked entry. */
export const BlockedEntry = Type.Object({ id: Uuid, toGamer: UserSummary }, { additionalProperties: false });
export type BlockedEntry = Static<typeof BlockedEntry>;

export const TargetBody = Type.Object({ target: Uuid }, { additionalProperties: false });
export type TargetBody = Static<typeof TargetBody>;

export const FriendshipIdParams = Type.Object({ friendshipId: Uuid }, { additionalProperties: false });
export type FriendshipIdParams = Static<typeof FriendshipIdParams>;

export const SearchQuery = Type.Object(
  {
    displayName: Type.String({ minLength: 1, maxLength: DISPLAY_NAME_MAX, description: 'display-name prefix, case-insensitive, literal' }),
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
    schema: { operationId: 'sendFriendRequest', summary: 'Send a friend request (accepts a crossed pending request)', tags: ['friendship'], body: TargetBody, response: { 200: OkResponse, ...errors } },
  },
  accept: {
    method: 'POST', url: `${BASE}/:friendshipId/accept`,
    schema: { operationId: 'acceptFriendRequest', summary: 'Accept an incoming friend request', tags: ['friendship'], params: FriendshipIdParams, response: { 200: OkResponse, ...errors } },
  },
  listFriends: {
    method: 'GET', url: `${BASE}`,
    schema: { operationId: 'listFriends', summary: 'List friends', tags: ['friendship'], querystring: PageQuery, response: { 200: Type.Array(FriendshipEntry), ...errors } },
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
});
export type FriendshipEvent = Static<typeof FriendshipEvent>;

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
