import { natsNames } from '@gfts/contracts';
import { connectMongo, connectNats, createHttpServer, healthPlugin, identityPlugin, pingMongo, pingNats } from '@gfts/platform';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { FastifyInstance } from 'fastify';
import { AssignService } from './assign-service.ts';
import { CatalogCache } from './catalog-cache.ts';
import { CatalogService } from './catalog-service.ts';
import { ClaimService, type ClaimFaults } from './claim-service.ts';
import type { TasksConfig } from './config.ts';
import { TaskEvents } from './events.ts';
import { GamerTaskService } from './gamer-task-service.ts';
import { CatalogRepository } from './repository/catalog-repository.ts';
import { IdempotencyRepository, ProcessedEventRepository } from './repository/event-log-repository.ts';
import { GamerTaskRepository } from './repository/gamer-task-repository.ts';
import { InventoryRepository } from './repository/inventory-repository.ts';
import { ensureIndexes, openStore } from './repository/store.ts';
import { catalogRoutes } from './routes/catalog-routes.ts';
import { gamerRoutes } from './routes/gamer-routes.ts';
import { statsRoutes } from './routes/stats-routes.ts';
import { StatsConsumer } from './stats/consumer.ts';
import { claimMetrics, statsMetrics } from './stats/metrics.ts';
import { StatBatchProcessor, type ProcessorFaults } from './stats/processor.ts';
import { ensureStatsTopology } from './stats/stream.ts';
import { Sweeper } from './sweep.ts';

export interface TasksAppOptions {
  /** failure injection for tests: a crash between steps, a poison event */
  faults?: { processor?: ProcessorFaults; claim?: ClaimFaults };
}

/** Wires the tasks service: its own database, NATS, identity, routes, the stat consumer and the sweep. */
export async function buildTasksApp(config: TasksConfig, options: TasksAppOptions = {}): Promise<FastifyInstance> {
  const app = createHttpServer({ service: 'tasks', logLevel: config.LOG_LEVEL, bodyLimit: config.BODY_LIMIT_BYTES });
  await app.after(); // the shared plugins (metrics registry) are loaded
  const mongo = await connectMongo(config.MONGO_URL, app.log);
  const nats = await connectNats(config.NATS_URL, 'tasks', app.log, { user: config.NATS_USER, password: config.NATS_PASSWORD });
  const names = natsNames(config.NATS_PREFIX);

  const store = openStore(mongo);
  await ensureIndexes(store);
  const jsm = await jetstreamManager(nats);
  const js = jetstream(nats);
  await ensureStatsTopology(jsm, names, {
    replicas: config.STATS_STREAM_REPLICAS,
    maxAgeMs: config.STATS_STREAM_MAX_AGE_MS,
    duplicateWindowMs: config.STATS_DUPLICATE_WINDOW_MS,
    maxDeliver: config.STATS_MAX_DELIVER,
    ackWaitMs: config.STATS_ACK_WAIT_MS,
  });

  const catalogRepository = new CatalogRepository(store);
  const gamerTasks = new GamerTaskRepository(store);
  const inventory = new InventoryRepository(store);
  const processed = new ProcessedEventRepository(store);
  const keys = new IdempotencyRepository(store);
  const cache = new CatalogCache(catalogRepository, config.CATALOG_CACHE_TTL_MS);
  const events = new TaskEvents(nats, names, app.log);

  const catalog = new CatalogService(catalogRepository, cache, events);
  const assign = new AssignService(catalogRepository, gamerTasks, keys, config.MAX_TASKS_PER_ASSIGN);
  const reads = new GamerTaskService(catalogRepository, gamerTasks, inventory);
  const claims = new ClaimService({ gamerTasks, inventory, events, metrics: claimMetrics(app.metrics), log: app.log, ...(options.faults?.claim ? { faults: options.faults.claim } : {}) });

  // claims a crash left half-done are finished before this replica serves anything
  await claims.recover(new Date());

  const catalogChanges = nats.subscribe(names.tasksCatalogChanged, {
    callback: (error, msg) => {
      if (error) return;
      try {
        cache.invalidate(String((msg.json() as { applicationId?: unknown }).applicationId));
      } catch {
        // not ours to fail on
      }
    },
  });

  const sweeper = new Sweeper({
    gamerTasks,
    claims,
    processed,
    keys,
    log: app.log,
    settings: {
      intervalMs: config.EXPIRY_SWEEP_INTERVAL_MS,
      claimRecoveryAfterMs: config.CLAIM_RECOVERY_AFTER_MS,
      processedEventRetentionMs: config.PROCESSED_EVENT_RETENTION_MS,
      idempotencyKeyRetentionMs: config.IDEMPOTENCY_KEY_RETENTION_MS,
    },
  });

  const processor = new StatBatchProcessor({ gamerTasks, processed, catalog: cache, events, log: app.log, ...(options.faults?.processor ? { faults: options.faults.processor } : {}) });
  const consumer = config.STATS_CONSUMER_ENABLED
    ? new StatsConsumer({
        nc: nats,
        js,
        jsm,
        names,
        processor,
        metrics: statsMetrics(app.metrics, jsm, names),
        log: app.log,
        settings: { batch: config.CONSUMER_BATCH, batchWaitMs: config.CONSUMER_BATCH_WAIT_MS, maxDeliver: config.STATS_MAX_DELIVER, retryBaseMs: config.STATS_RETRY_BASE_MS, ackWaitMs: config.STATS_ACK_WAIT_MS },
      })
    : undefined;

  app.addHook('onClose', async () => {
    await consumer?.stop();
    await sweeper.stop();
    catalogChanges.unsubscribe();
    await nats.drain();
    await mongo.close();
  });
  await app.register(healthPlugin, { checks: { mongodb: () => pingMongo(mongo), nats: () => pingNats(nats) } });
  await app.register(identityPlugin, { secret: config.INTERNAL_TOKEN_SECRET });
  await app.register(catalogRoutes, { catalog });
  await app.register(gamerRoutes, { assign, claims, reads });
  await app.register(statsRoutes, { js, names });

  consumer?.start();
  sweeper.start();
  return app;
}
