import { getHeapStatistics } from 'node:v8';
import { GamerErasureCompletedEvent, natsNames } from '@gfts/contracts';
import { connectMongo, connectNats, consumeGamerEvents, createHttpServer, ensureGamersConsumer, ensureGamersStream, healthPlugin, identityPlugin, keepSubscribed, pingMongo, pingNats, startGamerErasure, uuidv7 } from '@gfts/platform';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { FastifyInstance } from 'fastify';
import { AssignService } from './assign-service.ts';
import { CatalogCache } from './catalog-cache.ts';
import { CatalogService } from './catalog-service.ts';
import { ClaimService, type ClaimFaults } from './claim-service.ts';
import { definitionCacheOverHeap, type TasksConfig } from './config.ts';
import { TaskEvents } from './events.ts';
import { GamerTaskService } from './gamer-task-service.ts';
import { tasksEraser } from './erasure/erase-gamer.ts';
import { ErasureService } from './erasure/erasure-service.ts';
import { ProgressResetService } from './progress-reset-service.ts';
import { AchievementStatsRepository } from './repository/achievement-stats-repository.ts';
import { CatalogRepository } from './repository/catalog-repository.ts';
import { ErasureJobRepository } from './repository/erasure-job-repository.ts';
import { IdempotencyRepository, ProcessedEventRepository } from './repository/event-log-repository.ts';
import { GamerProgressRepository } from './repository/gamer-progress-repository.ts';
import { GamerTaskRepository } from './repository/gamer-task-repository.ts';
import { InventoryRepository } from './repository/inventory-repository.ts';
import { SettingsRepository } from './repository/settings-repository.ts';
import { ensureIndexes, openStore } from './repository/store.ts';
import { applicationRoutes } from './routes/application-routes.ts';
import { adminRoutes } from './routes/admin-routes.ts';
import { catalogRoutes } from './routes/catalog-routes.ts';
import { gamerAdministrationRoutes } from './routes/gamer-admin-routes.ts';
import { gamerRoutes } from './routes/gamer-routes.ts';
import { statsRoutes } from './routes/stats-routes.ts';
import { StatsConsumer } from './stats/consumer.ts';
import { DeadLetterStore } from './stats/dead-letters.ts';
import { claimMetrics, statsMetrics } from './stats/metrics.ts';
import { StatBatchProcessor, type ProcessorFaults } from './stats/processor.ts';
import { ensureStatsTopology } from './stats/stream.ts';
import { streamMetrics } from './stats/stream-metrics.ts';
import { SettingsService } from './settings-service.ts';
import { LeaseRepository } from './repository/lease-repository.ts';
import { Sweeper } from './sweep.ts';
import { UnlockRateService } from './unlock-rate-service.ts';

export interface TasksAppOptions {
  /** failure injection for tests: a crash between steps, a poison event */
  faults?: { processor?: ProcessorFaults; claim?: ClaimFaults };
}

/** Wires the tasks service: its own database, NATS, identity, routes, the stat consumer and the sweep. */
export async function buildTasksApp(config: TasksConfig, options: TasksAppOptions = {}): Promise<FastifyInstance> {
  const app = createHttpServer({ service: 'tasks', logLevel: config.LOG_LEVEL, logBufferBytes: config.LOG_BUFFER_BYTES, bodyLimit: config.BODY_LIMIT_BYTES, requestTimeoutMs: config.REQUEST_TIMEOUT_MS, sendTimeoutMs: config.SEND_TIMEOUT_MS });
  await app.after(); // the shared plugins (metrics registry) are loaded
  const mongo = await connectMongo(config.MONGO_URL, app.log);
  const nats = await connectNats(config.NATS_URL, 'tasks', app.log, { user: config.NATS_USER, password: config.NATS_PASSWORD });
  const names = natsNames(config.NATS_PREFIX);

  const store = openStore(mongo);
  await ensureIndexes(store);
  const jsm = await jetstreamManager(nats);
  const js = jetstream(nats);
  const ensureStats = () => ensureStatsTopology(jsm, names, {
    replicas: config.STATS_STREAM_REPLICAS,
    maxAgeMs: config.STATS_STREAM_MAX_AGE_MS,
    maxBytes: config.STATS_STREAM_MAX_BYTES,
    deadLetterMaxBytes: config.STATS_DEAD_LETTER_STREAM_MAX_BYTES,
    duplicateWindowMs: config.STATS_DUPLICATE_WINDOW_MS,
    maxDeliver: config.STATS_MAX_DELIVER,
    ackWaitMs: config.STATS_ACK_WAIT_MS,
  });
  await ensureStats();

  const catalogRepository = new CatalogRepository(store);
  const gamerTasks = new GamerTaskRepository(store);
  const progress = new GamerProgressRepository(store, gamerTasks, config.TASK_DEFINITION_CACHE_SIZE);
  const overHeap = definitionCacheOverHeap(config.TASK_DEFINITION_CACHE_SIZE, getHeapStatistics().heap_size_limit);
  if (overHeap) {
    app.log.warn(
      { TASK_DEFINITION_CACHE_SIZE: config.TASK_DEFINITION_CACHE_SIZE, ...overHeap },
      'the task definition cache, when full, would take more than half of the heap: give the replica more memory (and --max-old-space-size) or lower TASK_DEFINITION_CACHE_SIZE (docs/deploy.md)',
    );
  }
  const inventory = new InventoryRepository(store);
  const processed = new ProcessedEventRepository(store);
  const keys = new IdempotencyRepository(store);
  const settingsRepository = new SettingsRepository(store);
  const unlockStats = new AchievementStatsRepository(store);
  const erasureJobs = new ErasureJobRepository(store);
  const cache = new CatalogCache(catalogRepository, config.CATALOG_CACHE_TTL_MS);
  const events = new TaskEvents(nats, names, app.log);

  const catalog = new CatalogService(catalogRepository, cache, events, settingsRepository, config.CATALOG_MAX_TASKS);
  const assign = new AssignService(catalogRepository, gamerTasks, progress, keys, config.MAX_TASKS_PER_ASSIGN, settingsRepository, config.IDEMPOTENCY_KEY_RETENTION_MS);
  const reads = new GamerTaskService(catalogRepository, gamerTasks, progress, inventory, unlockStats);
  const settings = new SettingsService(settingsRepository);
  const unlockRates = new UnlockRateService(catalogRepository, unlockStats);
  const resets = new ProgressResetService({ gamerTasks, progress, inventory, unlockStats, log: app.log });
  const erasures = new ErasureService({ jobs: erasureJobs, js, names, expected: config.ERASURE_SERVICES.split(','), log: app.log });
  const claims = new ClaimService({ gamerTasks, progress, inventory, erasures: erasureJobs, events, metrics: claimMetrics(app.metrics), log: app.log, recoveryAfterMs: config.CLAIM_RECOVERY_AFTER_MS, ...(options.faults?.claim ? { faults: options.faults.claim } : {}) });

  // claims a crash left half-done are finished before this replica serves anything
  // one that keeps failing is logged and left to the sweep (every EXPIRY_SWEEP_INTERVAL_MS):
  // failing the start for it, the replica could never start
  await claims.recover(new Date()).catch((error: unknown) => app.log.error({ err: error }, 'claims left half-done not all finished at start; the sweep tries again'));

  const catalogChanges = keepSubscribed(nats, names.tasksCatalogChanged, { what: 'catalog edits of other replicas reach this one when its cache expires (CATALOG_CACHE_TTL_MS)', log: app.log }, (msg) => {
    try {
      cache.invalidate(String((msg.json() as { applicationId?: unknown }).applicationId));
    } catch {
      // not ours to fail on
    }
  });

  const deadLetters = new DeadLetterStore(jsm, js, names);
  // gamer erasure (docs/gamer-erasure.md): this service's own part, and the reports of every service
  const durable = { ackWaitMs: config.ERASURE_ACK_WAIT_MS, retryBaseMs: config.ERASURE_RETRY_BASE_MS };
  const erasing = await startGamerErasure(
    { js, jsm, names, service: 'tasks', log: app.log, stream: { replicas: config.GAMERS_STREAM_REPLICAS, maxBytes: config.GAMERS_STREAM_MAX_BYTES }, durable },
    tasksEraser({ gamerTasks, progress, unlockStats, inventory, keys, deadLetters }),
  );
  const ensureReportsConsumer = async () => {
    await ensureGamersStream(jsm, names, { replicas: config.GAMERS_STREAM_REPLICAS, maxBytes: config.GAMERS_STREAM_MAX_BYTES });
    await ensureGamersConsumer(jsm, names, names.erasureProgressConsumer, names.gamerErasureCompleted, durable);
  };
  await ensureReportsConsumer();
  const erasureReports = consumeGamerEvents(
    { js, names, durable: names.erasureProgressConsumer, schema: GamerErasureCompletedEvent, log: app.log, retryBaseMs: config.ERASURE_RETRY_BASE_MS, recreate: ensureReportsConsumer },
    (report) => erasures.reported(report),
  );

  const sweeper = new Sweeper({
    gamerTasks,
    progress,
    claims,
    erasures,
    processed,
    keys,
    log: app.log,
    lease: { leases: new LeaseRepository(store), holder: uuidv7() },
    settings: {
      intervalMs: config.EXPIRY_SWEEP_INTERVAL_MS,
      expiryPage: config.EXPIRY_SWEEP_PAGE,
      claimRecoveryAfterMs: config.CLAIM_RECOVERY_AFTER_MS,
      processedEventRetentionMs: config.PROCESSED_EVENT_RETENTION_MS,
      idempotencyKeyRetentionMs: config.IDEMPOTENCY_KEY_RETENTION_MS,
      erasureRepublishAfterMs: config.ERASURE_REPUBLISH_AFTER_MS,
    },
  });

  streamMetrics(app.metrics, jsm, names);
  const processor = new StatBatchProcessor({ gamerTasks, progress, processed, unlockStats, catalog: cache, events, log: app.log, ...(options.faults?.processor ? { faults: options.faults.processor } : {}) });
  const consumer = config.STATS_CONSUMER_ENABLED
    ? new StatsConsumer({
        nc: nats,
        js,
        jsm,
        names,
        processor,
        metrics: statsMetrics(app.metrics, jsm, names, config.CONSUMER_BATCH),
        log: app.log,
        recreate: ensureStats,
        settings: { batch: config.CONSUMER_BATCH, batchWaitMs: config.CONSUMER_BATCH_WAIT_MS, lanes: config.CONSUMER_LANES, maxDeliver: config.STATS_MAX_DELIVER, retryBaseMs: config.STATS_RETRY_BASE_MS, ackWaitMs: config.STATS_ACK_WAIT_MS, heldMaxBytes: config.CONSUMER_HELD_MAX_BYTES },
      })
    : undefined;

  app.addHook('onClose', async () => {
    // side by side: each lets its open pull end (about 1 s)
    await Promise.all([consumer?.stop(), erasing.stop(), erasureReports.stop()]);
    await sweeper.stop();
    catalogChanges.unsubscribe();
    await nats.drain();
    await mongo.close();
  });
  const checks = { mongodb: () => pingMongo(mongo), nats: () => pingNats(nats) };
  await app.register(healthPlugin, { checks });
  await app.register(identityPlugin, { secret: config.INTERNAL_TOKEN_SECRET });
  await app.register(catalogRoutes, { catalog });
  await app.register(gamerRoutes, { assign, claims, reads });
  await app.register(statsRoutes, { js, names });
  await app.register(applicationRoutes, { settings, unlockRates });
  await app.register(gamerAdministrationRoutes, { resets, erasures });
  await app.register(adminRoutes, { reads, deadLetters, jsm, names, checks, replayAllBudgetMs: config.DEAD_LETTER_REPLAY_ALL_BUDGET_MS });

  consumer?.start();
  sweeper.start();
  return app;
}
