import Type, { type Static } from 'typebox';
import { DateTime, Uuid } from './common.ts';
import { Problem } from './errors.ts';
import { TASK_FAMILIES, TaskFamily } from './task-families.ts';

// Task families live in a module of their own, for the console's bundle.
export { TaskFamily, TASK_FAMILIES } from './task-families.ts';

/** Bounds of every number and string of the tasks API, named once. */
export const TaskLimits = {
  NAME_MAX: 200,
  DESCRIPTION_MAX: 2000,
  TARGET_MAX: 1_000_000_000,
  GAMES_MAX: 100_000,
  STAT_ID_MAX: 128,
  REWARDS_MAX: 20,
  QUANTITY_MAX: 1_000_000,
  CHILDREN_MIN: 2,
  CHILDREN_MAX: 20,
  IDEMPOTENCY_KEY_MAX: 200,
  GAME_ID_MAX: 128,
  /** a stat event's occurredAt: RFC 3339 with nanoseconds and an offset is 35 characters */
  OCCURRED_AT_MAX: 64,
  STATS_PER_EVENT_MAX: 100,
  STAT_VALUE_MAX: 1_000_000_000,
  /** largest numberOfTasks of one assign; MAX_TASKS_PER_ASSIGN may lower it, never raise it */
  TASKS_PER_ASSIGN_MAX: 50,
} as const;

const Family = Type.Enum([...TASK_FAMILIES], { description: 'daily, weekly, monthly, seasonal or lifetime; any casing accepted in requests, lower case in responses' });
const StatId = Type.String({ minLength: 1, maxLength: TaskLimits.STAT_ID_MAX, description: 'the game stat the task is tied to' });
const Name = Type.String({ minLength: 1, maxLength: TaskLimits.NAME_MAX });
const Description = Type.String({ maxLength: TaskLimits.DESCRIPTION_MAX, description: 'what must be done' });
const TargetValue = Type.Integer({ minimum: 1, maximum: TaskLimits.TARGET_MAX, description: 'minimum value to reach for completion' });
const NumberOfGames = Type.Integer({ minimum: 0, maximum: TaskLimits.GAMES_MAX, description: 'games within which the target must be reached; 0 means no limit' });
const Quantity = Type.Integer({ minimum: 1, maximum: TaskLimits.QUANTITY_MAX });

// ---------------------------------------------------------------------------------------
// Rewards and application tasks (spec 2.4, 2.5)

/** 2.5 Reward as configured (with its id). */
export const Reward = Type.Object({ id: Uuid, inventoryItemId: Uuid, quantity: Quantity }, { additionalProperties: false });
export type Reward = Static<typeof Reward>;

/** A reward as an admin writes it (the id is the service's) and as a gamer task shows it. */
export const RewardItem = Type.Object({ inventoryItemId: Uuid, quantity: Quantity }, { additionalProperties: false });
export type RewardItem = Static<typeof RewardItem>;

const applicationTaskFields = {
  id: Uuid,
  applicationId: Uuid,
  name: Name,
  description: Description,
  targetValue: TargetValue,
  numberOfGames: NumberOfGames,
  family: Family,
  parentTaskId: Type.Union([Uuid, Type.Null()], { description: 'null when there is no parent' }),
  applicationStatsId: StatId,
  isAchievement: Type.Boolean(),
  rewards: Type.Array(Reward),
};

/** A child of a composite task, as nested in its parent's `children`. */
export const ApplicationTaskChild = Type.Object(applicationTaskFields, { additionalProperties: false });
export type ApplicationTaskChild = Static<typeof ApplicationTaskChild>;

/**
 * 2.4 Application task. `children` holds a composite parent's child tasks (empty for a
 * single task and for a child, whose `parentTaskId` names its parent).
 */
export const ApplicationTask = Type.Object(
  { ...applicationTaskFields, children: Type.Array(ApplicationTaskChild, { description: 'child tasks of a composite parent' }) },
  { additionalProperties: false },
);
export type ApplicationTask = Static<typeof ApplicationTask>;

const inputFields = {
  name: Name,
  description: Type.Optional(Description),
  targetValue: TargetValue,
  numberOfGames: NumberOfGames,
  applicationStatsId: StatId,
  rewards: Type.Optional(Type.Array(RewardItem, { maxItems: TaskLimits.REWARDS_MAX, description: 'at most one entry per inventory item' })),
};

/**
 * A child task in a create request. `family` and `isAchievement` default to the parent's
 * and must equal it; `parentTaskId` is the service's to set. `children` is accepted only
 * to be refused with a clear message: a child never has children.
 */
export const ApplicationTaskChildInput = Type.Object(
  {
    ...inputFields,
    family: Type.Optional(Family),
    isAchievement: Type.Optional(Type.Boolean()),
    parentTaskId: Type.Optional(Type.Null()),
    children: Type.Optional(Type.Array(Type.Unknown(), { description: 'refused: a child task cannot have children' })),
  },
  { additionalProperties: false },
);
export type ApplicationTaskChildInput = Static<typeof ApplicationTaskChildInput>;

/** POST /{applicationId}/tasks: an application task without id; a composite carries its children inline. */
export const ApplicationTaskInput = Type.Object(
  {
    ...inputFields,
    family: Family,
    isAchievement: Type.Optional(Type.Boolean({ description: 'default false; an achievement is always lifetime' })),
    parentTaskId: Type.Optional(Type.Null({ description: 'children are created inline in their parent' })),
    children: Type.Optional(
      Type.Array(ApplicationTaskChildInput, { minItems: TaskLimits.CHILDREN_MIN, maxItems: TaskLimits.CHILDREN_MAX, description: 'two or more child tasks make this a composite' }),
    ),
  },
  { additionalProperties: false },
);
export type ApplicationTaskInput = Static<typeof ApplicationTaskInput>;

/**
 * PATCH /{applicationId}/tasks/{taskId}: the fields to change. The structure (children)
 * never changes; archive and recreate instead. Changes reach future assignments only.
 */
export const ApplicationTaskPatch = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    targetValue: Type.Optional(TargetValue),
    numberOfGames: Type.Optional(NumberOfGames),
    applicationStatsId: Type.Optional(StatId),
    family: Type.Optional(Family),
    isAchievement: Type.Optional(Type.Boolean()),
    rewards: Type.Optional(Type.Array(RewardItem, { maxItems: TaskLimits.REWARDS_MAX })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ApplicationTaskPatch = Static<typeof ApplicationTaskPatch>;

// ---------------------------------------------------------------------------------------
// Gamer tasks (spec 2.6)

/** Task detail of a gamer task: the configured task as it was when assigned. */
export const TaskDetail = Type.Object(
  {
    id: Uuid,
    applicationId: Uuid,
    name: Type.String(),
    description: Type.String(),
    applicationStatsId: Type.String(),
    targetValue: Type.Integer(),
    numberOfGames: Type.Integer(),
    family: Family,
    parentTaskId: Type.Union([Uuid, Type.Null()]),
    isAchievement: Type.Boolean(),
    rewards: Type.Array(RewardItem),
    children: Type.Array(Type.Object({ id: Uuid }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
export type TaskDetail = Static<typeof TaskDetail>;

const gamerTaskFields = {
  id: Type.String({ format: 'uuid', description: 'gamer task id: the taskId of POST /tasks/{taskId}/claim' }),
  createdAt: DateTime,
  expiredAt: Type.Union([DateTime, Type.Null()], { description: 'null for lifetime tasks and achievements' }),
  progress: Type.Integer({ description: 'value reached in the current window; for a composite parent, the number of completed children' }),
  gamesPlayed: Type.Integer({ description: 'games counted in the current numberOfGames window' }),
  completed: Type.Boolean(),
  claimed: Type.Boolean({ description: 'rewards claimed into the inventory' }),
  task: TaskDetail,
};

/** 2.6 Gamer task as assign answers it and as nested in `childTasks`. */
export const GamerTask = Type.Object(gamerTaskFields, { additionalProperties: false });
export type GamerTask = Static<typeof GamerTask>;

/** 2.6 Gamer task in list responses (gamer tasks, achievements), with its child gamer tasks. */
export const GamerTaskWithChildren = Type.Object(
  { ...gamerTaskFields, childTasks: Type.Array(GamerTask, { description: 'child gamer tasks of a composite' }) },
  { additionalProperties: false },
);
export type GamerTaskWithChildren = Static<typeof GamerTaskWithChildren>;

// ---------------------------------------------------------------------------------------
// Requests

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

export const AssignHeaders = Type.Object({
  [IDEMPOTENCY_KEY_HEADER]: Type.Optional(
    Type.String({ minLength: 1, maxLength: TaskLimits.IDEMPOTENCY_KEY_MAX, pattern: '^[\\x21-\\x7E]+$', description: 'makes a retried assign safe: same key and body replay the first answer; 409 CONFLICT while the first request with the key still runs (retry it later for its answer)' }),
  ),
});
export type AssignHeaders = Static<typeof AssignHeaders>;

/**
 * numberOfTasks by family: seasonal assigns every seasonal task "whatever numberOfTasks is"
 * (spec 4.2, rule 1), any integer; the others pick 1 to 50 (a deployment may lower the most
 * with MAX_TASKS_PER_ASSIGN: above it, 400). The schema says both (if/then/else, JSON Schema
 * 2020-12 as OpenAPI 3.1 takes it), so a request it takes is one the service takes (the fuzz
 * test holds it to that), and a refused number is named as such: a union of two shapes
 * blamed the family first.
 */
export const AssignBody = Type.Object(
  {
    family: Family,
    numberOfTasks: Type.Integer({ description: `tasks to pick, from 1 to ${TaskLimits.TASKS_PER_ASSIGN_MAX} (a deployment may lower the most with MAX_TASKS_PER_ASSIGN); for seasonal any integer, ignored: every seasonal task the gamer does not hold is assigned` }),
  },
  {
    additionalProperties: false,
    if: { properties: { family: { const: TaskFamily.SEASONAL } } },
    then: {},
    else: { properties: { numberOfTasks: { minimum: 1, maximum: TaskLimits.TASKS_PER_ASSIGN_MAX } } },
  },
);
export type AssignBody = Static<typeof AssignBody>;

/** A boolean query parameter that may also be sent empty (as absent); any case of true/false and 1/0 (libs/platform boolean-query.ts). */
const BooleanOrEmpty = (description: string) => Type.Union([Type.Boolean(), Type.Literal('')], { description });

export const CompletedQuery = Type.Object(
  { completed: Type.Optional(BooleanOrEmpty('true: completed only; false: not completed only; absent or empty: all (any case; 1 and 0 too)')) },
  { additionalProperties: false },
);
export type CompletedQuery = Static<typeof CompletedQuery>;

export const CatalogQuery = Type.Object(
  { isAchievement: Type.Optional(BooleanOrEmpty('true returns achievements; false, empty or absent, tasks (any case; 1 and 0 too)')) },
  { additionalProperties: false },
);
export type CatalogQuery = Static<typeof CatalogQuery>;

export const ApplicationParams = Type.Object({ applicationId: Uuid }, { additionalProperties: false });
export type ApplicationParams = Static<typeof ApplicationParams>;

export const ApplicationTaskParams = Type.Object({ applicationId: Uuid, taskId: Uuid }, { additionalProperties: false });
export type ApplicationTaskParams = Static<typeof ApplicationTaskParams>;

export const GamerTaskParams = Type.Object({ taskId: Type.String({ format: 'uuid', description: 'the gamer task id (`id` in GET /tasks)' }) }, { additionalProperties: false });
export type GamerTaskParams = Static<typeof GamerTaskParams>;

/** Claim answer: the items put into the inventory. */
export const ClaimResponse = Type.Array(RewardItem);
export type ClaimResponse = Static<typeof ClaimResponse>;

/** GET /inventory: the gamer's items with their total quantity. */
export const InventoryItem = Type.Object({ inventoryItemId: Uuid, quantity: Type.Integer({ minimum: 0 }) }, { additionalProperties: false });
export type InventoryItem = Static<typeof InventoryItem>;

export const SeasonBody = Type.Object({ endsAt: DateTime }, { additionalProperties: false });
export type SeasonBody = Static<typeof SeasonBody>;

export const Season = Type.Object(
  {
    applicationId: Uuid,
    endsAt: DateTime,
    source: Type.Enum(['admin', 'quarter'], { description: 'admin-set, or the end of the current calendar quarter while unset' }),
  },
  { additionalProperties: false },
);
export type Season = Static<typeof Season>;

// ---------------------------------------------------------------------------------------
// Application settings: when periods turn over (design.md "Application settings")

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const ApplicationSettings = Type.Object(
  {
    timeZone: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$', description: 'IANA time zone (for example Europe/Berlin) in which resets happen; one the time-zone database does not know is a 400' }),
    dailyResetHour: Type.Integer({ minimum: 0, maximum: 23, description: 'local hour at which daily tasks expire (and weekly, monthly, quarterly periods turn over)' }),
    weeklyResetDay: Type.Enum([...WEEKDAYS], { description: 'local day on which weekly tasks expire, at dailyResetHour' }),
  },
  { additionalProperties: false },
);
export type ApplicationSettings = Static<typeof ApplicationSettings>;

// ---------------------------------------------------------------------------------------
// Unlock rates and gamer progress admin

/** One achievement's unlock rate, kept by counters as achievements are tracked and completed. */
export const AchievementStat = Type.Object(
  {
    taskId: Uuid,
    name: Type.String(),
    completedCount: Type.Integer({ minimum: 0, description: 'gamers who completed the achievement' }),
    trackedCount: Type.Integer({ minimum: 0, description: 'gamers holding the achievement: every gamer the service has tracked it for (a stat event or a read of their achievements since it exists)' }),
    completionRate: Type.Number({ minimum: 0, maximum: 1, description: 'completedCount / trackedCount; 0 while trackedCount is 0' }),
  },
  { additionalProperties: false },
);
export type AchievementStat = Static<typeof AchievementStat>;

export const RESET_SCOPES = ['tasks', 'achievements', 'all'] as const;
export type ResetScope = (typeof RESET_SCOPES)[number];

export const ProgressResetBody = Type.Object(
  {
    scope: Type.Enum([...RESET_SCOPES], {
      description: 'tasks: assigned tasks; achievements: achievements; all: both, and also claimed ones and the inventory. tasks and achievements clear progress and unclaimed completions and keep what was claimed (and its rewards)',
    }),
  },
  { additionalProperties: false },
);
export type ProgressResetBody = Static<typeof ProgressResetBody>;

export const ProgressResetResult = Type.Object(
  {
    gamerId: Uuid,
    scope: Type.Enum([...RESET_SCOPES]),
    tasksRemoved: Type.Integer({ minimum: 0, description: 'gamer tasks removed (assigned tasks and achievements, children included)' }),
    inventoryItemsRemoved: Type.Integer({ minimum: 0, description: 'inventory grants removed (scope all only)' }),
  },
  { additionalProperties: false },
);
export type ProgressResetResult = Static<typeof ProgressResetResult>;

export const ApplicationGamerParams = Type.Object({ applicationId: Uuid, gamerId: Uuid }, { additionalProperties: false });
export type ApplicationGamerParams = Static<typeof ApplicationGamerParams>;

// ---------------------------------------------------------------------------------------
// Stat events

/** One game of one gamer with that game's stat amounts (design.md "Tasks"). */
export const StatEvent = Type.Object(
  {
    eventId: Type.String({ format: 'uuid', description: 'the deduplication key, also the JetStream message id' }),
    applicationId: Uuid,
    gamerId: Uuid,
    gameId: Type.String({ minLength: 1, maxLength: TaskLimits.GAME_ID_MAX }),
    // bounded, or the largest event would be too (the date-time format takes any number of fraction digits)
    occurredAt: Type.String({ format: 'date-time', maxLength: TaskLimits.OCCURRED_AT_MAX, description: 'ISO 8601 date-time, UTC' }),
    stats: Type.Array(
      Type.Object(
        {
          // no lone surrogate (in the u-mode pattern a pair is one code point): the catalog
          // refuses such ids, so an event carrying one could match no task
          applicationStatsId: Type.String({ ...StatId, pattern: '^[^\\uD800-\\uDFFF]*$' }),
          value: Type.Integer({ minimum: 0, maximum: TaskLimits.STAT_VALUE_MAX, description: 'the game\'s amount of the stat' }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: TaskLimits.STATS_PER_EVENT_MAX },
    ),
  },
  { additionalProperties: false },
);
export type StatEvent = Static<typeof StatEvent>;

/**
 * The largest stat message the service takes, in bytes: the stats stream's max_msg_size
 * (body and headers of a NATS message) and the body limit of POST /api/v1/stats, so both
 * ways in take the same events. The largest schema-valid event is 159,892 bytes as an
 * encoder that escapes non-ASCII writes it (Python's json by default): 128-character
 * gameId and 100 stat ids of 128 characters outside the BMP, each a \uXXXX\uXXXX pair of
 * 12 bytes, 10-digit values, a 64-character occurredAt. The same event in ASCII is about
 * 17.7 KB. Above it: room for pretty-printing (about 5 KB at an indent of 4) and the
 * message's headers (message id, trace context, request id). A unit test builds that
 * event and checks it fits (libs/contracts/test/unit/stat-event-size.test.ts).
 */
export const STAT_EVENT_MAX_BYTES = 192 * 1024;

/**
 * The body limit of the catalog's create and patch, in bytes: the largest schema-valid task
 * fits (a composite of 20 children, each with a 200-character name, a 2,000-character
 * description, a 128-character stat id and 20 rewards). In ASCII that body is about 85 KB;
 * written by an encoder that escapes non-ASCII, every character outside the BMP takes 12
 * bytes, and the same body is 623 KB compact, 658 KB at an indent of 4. Until 2026-11-28
 * these routes had BODY_LIMIT_BYTES (16 KiB), and an admin's composite of 11 children with
 * 20 rewards each was refused with 413 although every field was within its bounds. A unit
 * test builds that body and checks it fits (libs/contracts/test/unit/catalog-task-size.test.ts).
 */
export const CATALOG_TASK_MAX_BYTES = 704 * 1024;

export const StatEventAccepted = Type.Object(
  {
    eventId: Uuid,
    duplicate: Type.Boolean({ description: 'JetStream already held this eventId (within its duplicate window)' }),
    stream: Type.String(),
    seq: Type.Integer(),
  },
  { additionalProperties: false },
);
export type StatEventAccepted = Static<typeof StatEventAccepted>;

/** Published on the stats dead-letter subject for an event that could not be processed. */
export const StatDeadLetter = Type.Object({
  reason: Type.String(),
  errors: Type.Optional(Type.Array(Type.String())),
  subject: Type.String(),
  streamSequence: Type.Integer(),
  deliveryCount: Type.Integer(),
  deadLetteredAt: DateTime,
  payload: Type.String({ description: 'the original message body (UTF-8)' }),
  /** the request id the event came with (REQUEST_ID_HEADER, as the consumer took it); absent when it had none, and in letters of before 2026-11-28 */
  requestId: Type.Optional(Type.String()),
});
export type StatDeadLetter = Static<typeof StatDeadLetter>;

/**
 * The largest dead letter, in bytes: the dead-letter stream's max_msg_size. A letter holds
 * its message's payload as a JSON string, which escaping at most doubles for any JSON
 * payload the stats stream takes (every byte a `"` or a `\`), plus the reason, the
 * subject and the errors (at most DEAD_LETTER_ERRORS_MAX). The tasks service cuts the
 * payload of a larger letter (a payload that is not JSON) to fit.
 */
export const STAT_DEAD_LETTER_MAX_BYTES = 2 * STAT_EVENT_MAX_BYTES + 32 * 1024;

/** Validation errors a dead letter keeps: a junk payload breaks the schema in thousands of places. */
export const DEAD_LETTER_ERRORS_MAX = 20;

// ---------------------------------------------------------------------------------------
// Events the tasks service publishes (core NATS, after the database write)

export const TaskCompletedEvent = Type.Object({
  applicationId: Uuid,
  gamerId: Uuid,
  gamerTaskId: Uuid,
  taskId: Uuid,
  parentGamerTaskId: Type.Union([Uuid, Type.Null()]),
  isAchievement: Type.Boolean(),
  completedAt: DateTime,
  eventId: Type.String({ description: 'the stat event that completed the task' }),
});
export type TaskCompletedEvent = Static<typeof TaskCompletedEvent>;

export const TaskClaimedEvent = Type.Object({
  applicationId: Uuid,
  gamerId: Uuid,
  gamerTaskId: Uuid,
  taskId: Uuid,
  claimedAt: DateTime,
  rewards: Type.Array(RewardItem),
});
export type TaskClaimedEvent = Static<typeof TaskClaimedEvent>;

/** A gamer task moved without completing (once per task per stat batch, after the write). */
export const TaskProgressEvent = Type.Object({
  applicationId: Uuid,
  gamerId: Uuid,
  gamerTaskId: Uuid,
  taskId: Uuid,
  isAchievement: Type.Boolean(),
  progress: Type.Integer({ minimum: 0 }),
  targetValue: Type.Integer({ minimum: 0 }),
  occurredAt: DateTime,
});
export type TaskProgressEvent = Static<typeof TaskProgressEvent>;

export const InventoryGrantedEvent = Type.Object({
  applicationId: Uuid,
  gamerId: Uuid,
  gamerTaskId: Uuid,
  items: Type.Array(RewardItem),
  grantedAt: DateTime,
});
export type InventoryGrantedEvent = Static<typeof InventoryGrantedEvent>;

/** Published by a tasks replica after a catalog write, so the others drop their cached copy. */
export const CatalogChangedEvent = Type.Object({ applicationId: Uuid });
export type CatalogChangedEvent = Static<typeof CatalogChangedEvent>;

// ---------------------------------------------------------------------------------------
// Routes (spec 4.2 plus the catalog admin, season, stats and inventory endpoints)

const errors = { 400: Problem, 401: Problem, 403: Problem, 404: Problem, 409: Problem, 429: Problem, 503: Problem };
const BASE = '/api/v1';

/** Invariants across fields (and, for a patch, the stored task) that JSON Schema does not state. */
const CATALOG_RULES =
  'A 400 (VALIDATION_FAILED) also when a rule across fields is broken, such as: an achievement is lifetime; children share ' +
  'their parent\'s family and isAchievement and have no children; names are not blank; reward items are distinct.';

export const tasksRoutes = {
  listCatalog: {
    method: 'GET', url: `${BASE}/:applicationId/tasks`,
    schema: { operationId: 'listApplicationTasks', summary: 'List the application\'s tasks (isAchievement=true: its achievements); children are listed too and nested in their parent', tags: ['catalog'], params: ApplicationParams, querystring: CatalogQuery, response: { 200: Type.Array(ApplicationTask), ...errors } },
  },
  getCatalogTask: {
    method: 'GET', url: `${BASE}/:applicationId/tasks/:taskId`,
    schema: { operationId: 'getApplicationTask', summary: 'One application task', tags: ['catalog'], params: ApplicationTaskParams, response: { 200: ApplicationTask, ...errors } },
  },
  createCatalogTask: {
    method: 'POST', url: `${BASE}/:applicationId/tasks`,
    bodyLimit: CATALOG_TASK_MAX_BYTES,
    // What a client does next with the task it created (and what the fuzzer follows).
    links: Object.fromEntries(['getApplicationTask', 'updateApplicationTask', 'archiveApplicationTask'].map((id) => [id, { applicationId: '$request.path.applicationId', taskId: '$response.body#/id' }])),
    schema: { operationId: 'createApplicationTask', summary: 'Create a task or achievement, a composite with its children inline (role admin)', tags: ['catalog'], description: CATALOG_RULES, params: ApplicationParams, body: ApplicationTaskInput, response: { 201: ApplicationTask, ...errors } },
  },
  updateCatalogTask: {
    method: 'PATCH', url: `${BASE}/:applicationId/tasks/:taskId`,
    bodyLimit: CATALOG_TASK_MAX_BYTES,
    schema: { operationId: 'updateApplicationTask', summary: 'Change fields of a task; reaches future assignments only (role admin)', tags: ['catalog'], description: `${CATALOG_RULES} A patch is checked against the stored task it changes.`, params: ApplicationTaskParams, body: ApplicationTaskPatch, response: { 200: ApplicationTask, ...errors } },
  },
  archiveCatalogTask: {
    method: 'DELETE', url: `${BASE}/:applicationId/tasks/:taskId`,
    schema: { operationId: 'archiveApplicationTask', summary: 'Archive a task with its children: hidden from the catalog and assignment; held gamer tasks keep working (role admin)', tags: ['catalog'], params: ApplicationTaskParams, response: { 204: Type.Null(), ...errors } },
  },
  getSeason: {
    method: 'GET', url: `${BASE}/:applicationId/season`,
    schema: { operationId: 'getSeason', summary: 'The season end seasonal tasks expire at', tags: ['catalog'], params: ApplicationParams, response: { 200: Season, ...errors } },
  },
  setSeason: {
    method: 'PUT', url: `${BASE}/:applicationId/season`,
    schema: { operationId: 'setSeason', summary: 'Set the season end for seasonal tasks assigned from now on (role admin)', tags: ['catalog'], description: 'A 400 (VALIDATION_FAILED) also when endsAt is not in the future, a rule of the clock the schema cannot state.', params: ApplicationParams, body: SeasonBody, response: { 200: Season, ...errors } },
  },
  getSettings: {
    method: 'GET', url: `${BASE}/:applicationId/settings`,
    schema: { operationId: 'getApplicationSettings', summary: 'When the application\'s daily and weekly periods turn over (any token of the application)', tags: ['settings'], params: ApplicationParams, response: { 200: ApplicationSettings, ...errors } },
  },
  putSettings: {
    method: 'PUT', url: `${BASE}/:applicationId/settings`,
    schema: {
      operationId: 'putApplicationSettings', summary: 'Set the reset time zone, hour and weekday for tasks assigned from now on (role admin)', tags: ['settings'],
      description: 'A 400 (VALIDATION_FAILED) also for a time zone the service\'s time-zone database does not know, or a UTC offset instead of a zone name. Tasks already held keep their expiry.',
      params: ApplicationParams, body: ApplicationSettings, response: { 200: ApplicationSettings, ...errors },
    },
  },
  achievementStats: {
    method: 'GET', url: `${BASE}/:applicationId/achievements/stats`,
    schema: { operationId: 'getAchievementStats', summary: 'Unlock rates of the application\'s achievements (any token of the application); counters, no scan', tags: ['catalog'], params: ApplicationParams, response: { 200: Type.Array(AchievementStat), ...errors } },
  },
  resetProgress: {
    method: 'POST', url: `${BASE}/:applicationId/gamers/:gamerId/progress/reset`,
    schema: { operationId: 'resetGamerProgress', summary: 'Clear a gamer\'s progress and unclaimed completions (role admin)', tags: ['gamer admin'], params: ApplicationGamerParams, body: ProgressResetBody, response: { 200: ProgressResetResult, ...errors } },
  },
  assign: {
    method: 'POST', url: `${BASE}/tasks/assign`,
    links: { claimTask: { taskId: '$response.body#/0/id' } },
    schema: { operationId: 'assignTasks', summary: 'Assign numberOfTasks random tasks of a family the gamer does not hold (seasonal: all)', tags: ['gamer tasks'], headers: AssignHeaders, body: AssignBody, response: { 200: Type.Array(GamerTask), ...errors } },
  },
  listGamerTasks: {
    method: 'GET', url: `${BASE}/tasks`,
    schema: { operationId: 'listGamerTasks', summary: 'The gamer\'s active tasks with their child tasks', tags: ['gamer tasks'], querystring: CompletedQuery, response: { 200: Type.Array(GamerTaskWithChildren), ...errors } },
  },
  claim: {
    method: 'POST', url: `${BASE}/tasks/:taskId/claim`,
    schema: { operationId: 'claimTask', summary: 'Claim a completed gamer task\'s rewards into the inventory, exactly once', tags: ['gamer tasks'], params: GamerTaskParams, response: { 200: ClaimResponse, ...errors } },
  },
  listAchievements: {
    method: 'GET', url: `${BASE}/achievements`,
    schema: { operationId: 'listAchievements', summary: 'The gamer\'s achievements (every achievement of the application, tracked without assignment)', tags: ['gamer tasks'], querystring: CompletedQuery, response: { 200: Type.Array(GamerTaskWithChildren), ...errors } },
  },
  inventory: {
    method: 'GET', url: `${BASE}/inventory`,
    schema: { operationId: 'listInventory', summary: 'The gamer\'s inventory items', tags: ['inventory'], response: { 200: Type.Array(InventoryItem), ...errors } },
  },
  reportStats: {
    method: 'POST', url: `${BASE}/stats`,
    // every schema-valid event, as on NATS (the gateway applies it on this path too)
    bodyLimit: STAT_EVENT_MAX_BYTES,
    schema: { operationId: 'reportStats', summary: 'Report one game of one gamer (role server); 202 once JetStream stored it', tags: ['stats'], body: StatEvent, response: { 202: StatEventAccepted, ...errors } },
  },
} as const;
