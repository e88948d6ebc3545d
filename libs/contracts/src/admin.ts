import Type, { type Static } from 'typebox';
import { DateTime, HealthResponse, Uuid } from './common.ts';
import { Problem } from './errors.ts';
import { BlockedEntry, DISPLAY_NAME_MAX, FriendshipEntry, UserSummary } from './friendship.ts';
import { GamerTaskWithChildren, InventoryItem } from './tasks.ts';

/**
 * Admin routes the console (apps/console) reads and acts through. Every one needs role
 * `admin` and works within the token's application only: the application comes from the
 * token, never from the path, and a gamer or dead letter of another application answers
 * the same 404 as an unknown one. Each service answers for its own data; the gateway only
 * routes (docs/console.md).
 */

const ADMIN_LIST_MAX = 200;
const AdminListLimit = Type.Optional(Type.Integer({ minimum: 1, maximum: ADMIN_LIST_MAX, description: `entries per list (default 50, at most ${ADMIN_LIST_MAX})` }));

export const AdminGamerParams = Type.Object({ gamerId: Uuid }, { additionalProperties: false });
export type AdminGamerParams = Static<typeof AdminGamerParams>;

// ---------------------------------------------------------------------------------------
// Friendship

export const AdminGamerSearchQuery = Type.Object(
  {
    displayName: Type.String({ minLength: 1, maxLength: DISPLAY_NAME_MAX, pattern: '\\S', description: 'display-name prefix, case-insensitive, literal; not blank' }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'result size (default 20)' })),
  },
  { additionalProperties: false },
);
export type AdminGamerSearchQuery = Static<typeof AdminGamerSearchQuery>;

export const AdminListQuery = Type.Object({ limit: AdminListLimit }, { additionalProperties: false });
export type AdminListQuery = Static<typeof AdminListQuery>;

/** One gamer as the friendship service knows them: profile and every relation, first `limit` of each list. */
export const AdminGamerRelations = Type.Object(
  {
    profile: UserSummary,
    friends: Type.Array(FriendshipEntry),
    incoming: Type.Array(FriendshipEntry, { description: 'pending requests to the gamer (user is the sender)' }),
    outgoing: Type.Array(FriendshipEntry, { description: 'pending requests of the gamer (user is the recipient)' }),
    blocked: Type.Array(BlockedEntry, { description: 'gamers this gamer blocks' }),
    blockedBy: Type.Array(UserSummary, { description: 'gamers who block this gamer, oldest block first, at most limit' }),
  },
  { additionalProperties: false },
);
export type AdminGamerRelations = Static<typeof AdminGamerRelations>;

/** GET .../admin/health of a service: its readiness, the same checks as its /readyz. */
export const AdminServiceHealth = Type.Object(
  { service: Type.String(), ...HealthResponse.properties, at: DateTime },
  { additionalProperties: false },
);
export type AdminServiceHealth = Static<typeof AdminServiceHealth>;

const friendshipErrors = { 400: Problem, 401: Problem, 403: Problem, 404: Problem, 429: Problem };
const FRIENDSHIP_ADMIN = '/api/v1/friendship/admin';

export const friendshipAdminRoutes = {
  searchGamers: {
    method: 'GET', url: `${FRIENDSHIP_ADMIN}/gamers`,
    schema: { operationId: 'adminSearchGamers', summary: 'Find gamers of the token\'s application by display-name prefix, nobody excluded (role admin)', tags: ['admin'], querystring: AdminGamerSearchQuery, response: { 200: Type.Array(UserSummary), ...friendshipErrors } },
  },
  gamerRelations: {
    method: 'GET', url: `${FRIENDSHIP_ADMIN}/gamers/:gamerId`,
    schema: { operationId: 'adminGetGamerRelations', summary: 'A gamer\'s profile, friends, pending requests and blocks (role admin); 404 for a gamer the friendship service never saw', tags: ['admin'], params: AdminGamerParams, querystring: AdminListQuery, response: { 200: AdminGamerRelations, ...friendshipErrors } },
  },
  health: {
    method: 'GET', url: `${FRIENDSHIP_ADMIN}/health`,
    schema: { operationId: 'adminFriendshipHealth', summary: 'Readiness of the friendship service (role admin)', tags: ['admin'], response: { 200: AdminServiceHealth, ...friendshipErrors } },
  },
} as const;

// ---------------------------------------------------------------------------------------
// Tasks

/** What the tasks service holds of one gamer: active tasks, tracked achievements, inventory. */
export const AdminGamerProgress = Type.Object(
  {
    gamerId: Uuid,
    tasks: Type.Array(GamerTaskWithChildren, { description: 'active gamer tasks with their child tasks (as GET /tasks shows them to the gamer)' }),
    achievements: Type.Array(GamerTaskWithChildren, { description: 'achievements the gamer has a record of (an achievement no event touched yet is not listed)' }),
    inventory: Type.Array(InventoryItem),
  },
  { additionalProperties: false },
);
export type AdminGamerProgress = Static<typeof AdminGamerProgress>;

const DeadLetterSequence = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'the dead letter\'s sequence in the dead-letter stream (its id)' });

export const DeadLetterParams = Type.Object({ sequence: DeadLetterSequence }, { additionalProperties: false });
export type DeadLetterParams = Static<typeof DeadLetterParams>;

export const DeadLetterQuery = Type.Object(
  {
    limit: AdminListLimit,
    after: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'list dead letters after this sequence (the next page: Link rel="next")' })),
  },
  { additionalProperties: false },
);
export type DeadLetterQuery = Static<typeof DeadLetterQuery>;

/** POST .../dead-letters/replay: where to begin. */
export const DeadLetterReplayAllQuery = Type.Object(
  {
    after: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'replay the letters after this sequence (an earlier call\'s `after`); absent, from the oldest' })),
  },
  { additionalProperties: false },
);
export type DeadLetterReplayAllQuery = Static<typeof DeadLetterReplayAllQuery>;

/** A stat event the consumer gave up on, as the dead-letter stream keeps it (contracts StatDeadLetter) plus its id. */
export const DeadLetter = Type.Object(
  {
    sequence: DeadLetterSequence,
    reason: Type.String(),
    errors: Type.Array(Type.String(), { description: 'validation errors of a malformed event; empty otherwise' }),
    subject: Type.String({ description: 'the stats subject the event came on' }),
    streamSequence: Type.Integer({ description: 'the event\'s sequence in the stats stream' }),
    deliveryCount: Type.Integer(),
    deadLetteredAt: DateTime,
    eventId: Type.Union([Type.String(), Type.Null()], { description: 'the event\'s eventId, null when the payload has none' }),
    gamerId: Type.Union([Type.String(), Type.Null()], { description: 'the event\'s gamerId, null when the payload has none' }),
    payload: Type.String({ description: 'the original message body (UTF-8)' }),
    requestId: Type.Union([Type.String(), Type.Null()], {
      description: 'the request id the event came with (the game server\'s POST /stats, or the x-request-id header of its own publish): the key to its log lines; null when it had none (its log lines then go by its eventId). A replay publishes the event with it again',
    }),
  },
  { additionalProperties: false },
);
export type DeadLetter = Static<typeof DeadLetter>;

export const DeadLetterReplayed = Type.Object(
  {
    sequence: DeadLetterSequence,
    eventId: Type.Union([Type.String(), Type.Null()]),
    stream: Type.String({ description: 'the stats stream it was published to again' }),
    seq: Type.Integer({ description: 'its new sequence there' }),
    duplicate: Type.Boolean({ description: 'JetStream already held this replay (a repeated replay within the duplicate window)' }),
  },
  { additionalProperties: false },
);
export type DeadLetterReplayed = Static<typeof DeadLetterReplayed>;

/** The most letters one replay-all call replays: a flood is replayed in calls of this many, each answered in seconds. */
export const DEAD_LETTER_REPLAY_ALL_MAX = 500;

export const DeadLetterReplayAll = Type.Object(
  {
    replayed: Type.Array(DeadLetterReplayed),
    failed: Type.Array(Type.Object({ sequence: DeadLetterSequence, detail: Type.String() }, { additionalProperties: false })),
    more: Type.Boolean({ description: `letters may remain after this call's ${DEAD_LETTER_REPLAY_ALL_MAX} (DEAD_LETTER_REPLAY_ALL_MAX) or its time budget (DEAD_LETTER_REPLAY_ALL_BUDGET_MS, 5 s): call again` }),
    after: Type.Integer({ minimum: 0, description: 'the sequence of the last letter this call tried, or the ?after= it was given (0 without one) when it tried none: call again with ?after= to go on past it, past letters that failed and stay' }),
  },
  { additionalProperties: false },
);
export type DeadLetterReplayAll = Static<typeof DeadLetterReplayAll>;

/** Readiness of the tasks service and the state of its stat pipeline (consumer lag). */
export const AdminPipelineHealth = Type.Object(
  {
    ...AdminServiceHealth.properties,
    consumer: Type.Union([
      Type.Object(
        {
          pending: Type.Integer({ description: 'stat events stored but not yet delivered (the lag)' }),
          ackPending: Type.Integer({ description: 'delivered, not yet acknowledged' }),
          redelivered: Type.Integer({ description: 'delivered more than once, not yet acknowledged' }),
          waiting: Type.Integer({ description: 'pull requests waiting' }),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ], { description: 'null when NATS did not answer' }),
    stream: Type.Union([
      Type.Object(
        {
          messages: Type.Integer({ description: 'stat events the stream keeps (every application)' }),
          lastSequence: Type.Integer({ description: 'sequence of the last stored stat event (every application); its growth is the event rate' }),
          lastEventAt: Type.Union([DateTime, Type.Null()]),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    deadLetters: Type.Union([Type.Integer({ description: 'dead letters of the token\'s application' }), Type.Null()]),
  },
  { additionalProperties: false },
);
export type AdminPipelineHealth = Static<typeof AdminPipelineHealth>;

const tasksErrors = { 400: Problem, 401: Problem, 403: Problem, 404: Problem, 429: Problem, 503: Problem };
const TASKS_ADMIN = '/api/v1/admin';

export const tasksAdminRoutes = {
  gamerProgress: {
    method: 'GET', url: `${TASKS_ADMIN}/gamers/:gamerId`,
    schema: { operationId: 'adminGetGamerProgress', summary: 'A gamer\'s active tasks with progress, achievements and inventory (role admin); empty lists for a gamer without any', tags: ['admin'], params: AdminGamerParams, response: { 200: AdminGamerProgress, ...tasksErrors } },
  },
  listDeadLetters: {
    method: 'GET', url: `${TASKS_ADMIN}/dead-letters`,
    schema: { operationId: 'adminListDeadLetters', summary: 'Stat events of the application the consumer gave up on, oldest first (role admin); next page in Link: rel="next"', tags: ['admin'], querystring: DeadLetterQuery, response: { 200: Type.Array(DeadLetter), ...tasksErrors } },
  },
  replayDeadLetter: {
    method: 'POST', url: `${TASKS_ADMIN}/dead-letters/:sequence/replay`,
    schema: { operationId: 'adminReplayDeadLetter', summary: 'Publish a dead-lettered event again, unchanged (same eventId, so it never counts twice), then delete the letter (role admin)', tags: ['admin'], params: DeadLetterParams, response: { 200: DeadLetterReplayed, ...tasksErrors } },
  },
  replayAllDeadLetters: {
    method: 'POST', url: `${TASKS_ADMIN}/dead-letters/replay`,
    schema: { operationId: 'adminReplayAllDeadLetters', summary: 'Replay the dead letters of the application, oldest first (after ?after= when given), as one replay each, at most DEAD_LETTER_REPLAY_ALL_MAX (500) per call; `more` says letters remain, `after` where to go on (role admin)', tags: ['admin'], querystring: DeadLetterReplayAllQuery, response: { 200: DeadLetterReplayAll, ...tasksErrors } },
  },
  deleteDeadLetter: {
    method: 'DELETE', url: `${TASKS_ADMIN}/dead-letters/:sequence`,
    schema: { operationId: 'adminDeleteDeadLetter', summary: 'Delete a dead letter without replaying it (role admin)', tags: ['admin'], params: DeadLetterParams, response: { 204: Type.Null(), ...tasksErrors } },
  },
  health: {
    method: 'GET', url: `${TASKS_ADMIN}/health`,
    schema: { operationId: 'adminTasksHealth', summary: 'Readiness of the tasks service, stat-consumer lag and the application\'s dead-letter count (role admin)', tags: ['admin'], response: { 200: AdminPipelineHealth, ...tasksErrors } },
  },
} as const;
