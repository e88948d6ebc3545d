import { TaskLimits } from '@gfts/contracts';
import { BaseConfig, ConfigError, GAMERS_STREAM_MAX_AGE_MS, GamersStreamConfig, loadConfig, StoreConfig } from '@gfts/platform';
import Type, { type Static, type TObject } from 'typebox';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

const TasksSettings = {
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8082 }),
  ...BaseConfig,
  ...StoreConfig,
  // The contract's bound is what the OpenAPI document promises; configuration may only lower it.
  MAX_TASKS_PER_ASSIGN: Type.Integer({ minimum: 1, maximum: TaskLimits.TASKS_PER_ASSIGN_MAX, default: TaskLimits.TASKS_PER_ASSIGN_MAX, description: 'largest numberOfTasks of one assign (at most 50, the documented bound)' }),
  CATALOG_MAX_TASKS: Type.Integer({ minimum: 1, maximum: 100_000, default: 1000, description: 'live top-level tasks and achievements (a composite with its children counts once) an application\'s catalog may hold: a create past it is a 409 CATALOG_FULL; archiving makes room (archived entries are not counted, docs/tasks.md)' }),
  STATS_MAX_DELIVER: Type.Integer({ minimum: 1, maximum: 100, default: 5, description: 'deliveries of a stat event before it goes to the dead-letter subject (set on the shared consumer at the replica\'s start; every replica acts on the consumer\'s live value, docs/tasks.md)' }),
  STATS_STREAM_REPLICAS: Type.Integer({ minimum: 1, maximum: 5, default: 1, description: 'JetStream replicas of the stats stream' }),
  STATS_STREAM_MAX_AGE_MS: Type.Integer({ minimum: MINUTE, default: 7 * DAY, description: 'how long the stats stream keeps events, at most (STATS_STREAM_MAX_BYTES may make it shorter)' }),
  STATS_STREAM_MAX_BYTES: Type.Integer({
    minimum: 1_048_576,
    default: 2_147_483_648,
    description: 'most bytes the stats stream holds per server (2 GiB); past it the oldest events go, so under load it keeps less than STATS_STREAM_MAX_AGE_MS: size it from events/s x stored bytes x the retention wanted (docs/operations.md, "Sizing the streams")',
  }),
  STATS_DEAD_LETTER_STREAM_MAX_BYTES: Type.Integer({
    minimum: 1_048_576,
    default: 268_435_456,
    description: 'most bytes the stats dead-letter stream holds per server (256 MiB); past it the oldest letters go',
  }),
  STATS_DUPLICATE_WINDOW_MS: Type.Integer({ minimum: 1000, default: 2 * MINUTE, description: 'JetStream duplicate window of the stats stream (eventId as message id)' }),
  STATS_ACK_WAIT_MS: Type.Integer({ minimum: 1000, maximum: 3_600_000, default: 30_000, description: 'time a delivered stat event has before it is redelivered' }),
  STATS_RETRY_BASE_MS: Type.Integer({ minimum: 10, maximum: 3_600_000, default: 1000, description: 'first redelivery delay of a failed stat event; doubles per attempt, at most 30 s' }),
  STATS_CONSUMER_ENABLED: Type.Boolean({ default: true, description: 'run the stat-event consumer in this replica' }),
  CONSUMER_HELD_MAX_BYTES: Type.Integer({ minimum: 4_194_304, maximum: 1_073_741_824, default: 67_108_864, description: 'bytes of stat events a replica holds (pulled, not yet settled) past which it pulls no more (the pull it has open still brings up to CONSUMER_BATCH events). Events near the size limit (192 KiB) would otherwise fill the pod\'s memory long before the count bounds' }),
  CONSUMER_BATCH: Type.Integer({ minimum: 1, maximum: 5000, default: 500, description: 'most stat events applied in one batch (one bulk write)' }),
  CONSUMER_BATCH_WAIT_MS: Type.Integer({ minimum: 0, maximum: 1000, default: 5, description: 'how long a batch waits for more events once its first arrived' }),
  CONSUMER_LANES: Type.Integer({ minimum: 1, maximum: 16, default: 2, description: 'most stat batches of disjoint gamers written at once by one replica; a lane past the first takes events only while a full batch waits in the ones before it (a backlog), and a gamer keeps their lane until their events are settled' }),
  EXPIRY_SWEEP_INTERVAL_MS: Type.Integer({ minimum: 1000, maximum: DAY, default: 60_000, description: 'period of the expired-task sweep' }),
  EXPIRY_SWEEP_PAGE: Type.Integer({ minimum: 1, maximum: 10_000, default: 1_000, description: 'expired gamer tasks the sweep removes per step, their progress entries with them' }),
  PROCESSED_EVENT_RETENTION_MS: Type.Integer({ minimum: MINUTE, default: 7 * DAY, description: 'how long an eventId is remembered as processed; at least STATS_STREAM_MAX_AGE_MS' }),
  DEAD_LETTER_REPLAY_ALL_BUDGET_MS: Type.Integer({ minimum: 1, maximum: 6_000, default: 5_000, description: 'how long one replay-all call replays before it answers with more: true; the call may run one page read or one replay (2 s) past it, so at most 6 s keeps it within the gateway\'s UPSTREAM_TIMEOUT_MS default (10 s) and a stream that answers slowly cannot hold the call, and the service, for minutes' }),
  IDEMPOTENCY_KEY_RETENTION_MS: Type.Integer({ minimum: MINUTE, default: DAY, description: 'how long an assign Idempotency-Key replays its answer' }),
  TASK_DEFINITION_CACHE_SIZE: Type.Integer({ minimum: 0, default: 100_000, description: 'gamer task definitions the stat consumer keeps in memory (~1.2 KB of heap each, ~115 MB at the default: size the replica\'s memory for it, docs/deploy.md; 0: read them every batch)' }),
  CATALOG_CACHE_TTL_MS: Type.Integer({ minimum: 0, default: 5_000, description: 'lifetime of the consumer\'s cached catalog of an application' }),
  ERASURE_SERVICES: Type.String({ pattern: '^[a-z][a-z0-9-]{0,31}(,[a-z][a-z0-9-]{0,31})*$', default: 'tasks,friendship,notifications', description: 'comma-separated services an erasure job waits for' }),
  ...GamersStreamConfig,
  ERASURE_ACK_WAIT_MS: Type.Integer({ minimum: 1000, maximum: 3_600_000, default: 30_000, description: 'time a delivered gamer.erased event has before it is redelivered' }),
  ERASURE_RETRY_BASE_MS: Type.Integer({ minimum: 10, maximum: 3_600_000, default: 1000, description: 'first redelivery delay of a failed gamer event; doubles per attempt, at most 30 s' }),
  // below the stream's 30 days (GAMERS_STREAM_MAX_AGE_MS), with a day to spare: the next copy is in before the last one goes
  ERASURE_REPUBLISH_AFTER_MS: Type.Integer({ minimum: 60 * MINUTE, maximum: GAMERS_STREAM_MAX_AGE_MS - DAY, default: 7 * DAY, description: 'an erasure job some service has not reported is published again this long after its last publication, so a service down longer than the gamers stream keeps events still erases' }),
  CLAIM_RECOVERY_AFTER_MS: Type.Integer({ minimum: 0, default: 10_000, description: 'age after which the periodic sweep finishes a claim left half-done' }),
};
export type TasksConfig = Static<TObject<typeof TasksSettings>>;

/**
 * Heap one cached gamer task definition holds, measured (2026-11-27: 90,000 definitions of the
 * bench's shape, ten strings, a date and the cache's entry each, took 1,173 bytes apiece).
 */
export const DEFINITION_CACHE_ENTRY_BYTES = 1_200;

/**
 * The definition cache when full, against the process's heap limit: more than half of it
 * leaves too little for the batches, and the process runs out of heap under load (measured:
 * the default 100,000 with a 128 MB old space died in the bench's first pass over 10,000
 * gamers). Undefined when it fits.
 */
export function definitionCacheOverHeap(entries: number, heapLimitBytes: number): { cacheMb: number; heapLimitMb: number } | undefined {
  const cacheBytes = entries * DEFINITION_CACHE_ENTRY_BYTES;
  if (cacheBytes <= heapLimitBytes / 2) return undefined;
  return { cacheMb: Math.round(cacheBytes / 1_048_576), heapLimitMb: Math.round(heapLimitBytes / 1_048_576) };
}

export function readTasksConfig(env: Record<string, string | undefined> = process.env): TasksConfig {
  const config = loadConfig(TasksSettings, env);
  // An event the stream (or its dead letters, kept as long) still holds can come back: a
  // replay after a restore, a dead letter replayed. Past its processed record it would count again.
  if (config.PROCESSED_EVENT_RETENTION_MS < config.STATS_STREAM_MAX_AGE_MS) {
    throw new ConfigError([
      `PROCESSED_EVENT_RETENTION_MS (${config.PROCESSED_EVENT_RETENTION_MS}) must be at least STATS_STREAM_MAX_AGE_MS (${config.STATS_STREAM_MAX_AGE_MS}): an event replayed from the stats stream or its dead letters after its processed record expired would count twice`,
    ]);
  }
  // JetStream refuses a stream whose duplicate window exceeds its max age: said here, by name
  if (config.STATS_DUPLICATE_WINDOW_MS > config.STATS_STREAM_MAX_AGE_MS) {
    throw new ConfigError([`STATS_DUPLICATE_WINDOW_MS (${config.STATS_DUPLICATE_WINDOW_MS}) must be at most STATS_STREAM_MAX_AGE_MS (${config.STATS_STREAM_MAX_AGE_MS}): JetStream refuses such a stream`]);
  }
  return config;
}
