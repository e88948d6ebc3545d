import type { NatsNames } from '@gfts/contracts';
import type { JetStreamManager } from '@nats-io/jetstream';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { LastKnown } from './last-known.ts';

export interface StatsMetrics {
  processed: Counter<'outcome'>;
  redelivered: Counter;
  deadLettered: Counter;
  /** stale on their last delivery, put back on the stream */
  requeued: Counter;
  batchSize: Histogram;
  /** an event's age (since JetStream stored it) at each stage of the consumer */
  eventAge: Histogram<'stage'>;
  /** bytes of stat events pulled and not yet settled (bounded by CONSUMER_HELD_MAX_BYTES) */
  heldBytes: Gauge;
}

/** The stages `gfts_stats_event_age_seconds` is observed at (docs/tasks.md, Metrics). */
export type EventStage = 'pulled' | 'batched' | 'written' | 'acknowledged';

export interface ClaimMetrics {
  /** `rewarded`: "true" when the claim's task carries rewards (a claimed one must write grants) */
  claims: Counter<'outcome' | 'rewarded'>;
  grants: Counter;
}

/**
 * The batch-size buckets for a CONSUMER_BATCH of `batch`: powers of four below a quarter of it,
 * then a quarter, a half, just under and at it, so that "full batches" (the lag runbook) show
 * as such at any setting (fixed buckets up to 1,000 until 2026-11-29: at the default 500 a full
 * batch fell in (256, 512], and above 1,000 every quantile stopped there).
 */
export function batchSizeBuckets(batch: number): number[] {
  const marks = [1, 4, 16, 64, 256, 1024].filter((b) => b < batch / 4);
  return [...new Set([...marks, Math.floor(batch / 4), Math.floor(batch / 2), batch - 1, batch])].filter((b) => b >= 1).sort((a, b) => a - b);
}

export function statsMetrics(registry: Registry, jsm: JetStreamManager, names: NatsNames, batch: number): StatsMetrics {
  // one consumer-info read serves the scrape's gauges; a failed one leaves their last values
  // for NATS_GAUGE_STALE_MS, then NaN
  const pending = new LastKnown();
  const ackPending = new LastKnown();
  let read: { at: number; done: Promise<void> } | undefined;
  const consumerInfo = () => {
    if (!read || Date.now() - read.at > 1_000) {
      read = {
        at: Date.now(),
        done: Promise.race([
          jsm.consumers.info(names.statsStream, names.statsConsumer),
          // a scrape must not wait on a slow NATS
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 1_000).unref()),
        ]).then((info) => {
          pending.read(info.num_pending);
          ackPending.read(info.num_ack_pending);
        }, () => undefined),
      };
    }
    return read.done;
  };
  const consumerGauge = (name: string, help: string, value: LastKnown) =>
    new Gauge({
      name,
      help: `${help} (NaN: NATS unread for a minute)`,
      registers: [registry],
      async collect() {
        await consumerInfo();
        this.set(value.now());
      },
    });
  consumerGauge('gfts_stats_consumer_pending', 'stat events in the stream not yet delivered to the tasks consumer', pending);
  consumerGauge('gfts_stats_consumer_ack_pending', 'stat events delivered to the tasks replicas and not acknowledged yet: being written, or held by a write that does not end', ackPending);
  return {
    processed: new Counter({ name: 'gfts_stats_events_processed_total', help: 'stat events handled, by outcome (processed, duplicate, stale: redelivered to apply on newer state, interrupted: put back by a replica stopping during a store outage, failed)', labelNames: ['outcome'], registers: [registry] }),
    batchSize: new Histogram({ name: 'gfts_stats_batch_events', help: 'stat events applied per batch', buckets: batchSizeBuckets(batch), registers: [registry] }),
    eventAge: new Histogram({
      name: 'gfts_stats_event_age_seconds',
      help: 'age of a stat event (since the stream stored it) when the consumer pulled it, when its batch started, when its batch was written (its completions announced), and when it was acknowledged',
      labelNames: ['stage'],
      // fine around the 100 ms aim of event-to-completion (docs/tasks.md), coarse beyond a second
      buckets: [0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    heldBytes: new Gauge({ name: 'gfts_stats_held_bytes', help: 'bytes of stat events this replica pulled and has not settled yet; the pull waits past CONSUMER_HELD_MAX_BYTES', registers: [registry] }),
    redelivered: new Counter({ name: 'gfts_stats_consumer_redelivered_total', help: 'stat events delivered more than once', registers: [registry] }),
    deadLettered: new Counter({ name: 'gfts_stats_dead_letter_total', help: 'stat events moved to the dead-letter subject', registers: [registry] }),
    requeued: new Counter({ name: 'gfts_stats_requeued_total', help: 'stat events stale on their last delivery (another writer kept moving the gamer), put back on the stream instead of being dropped', registers: [registry] }),
  };
}

export function claimMetrics(registry: Registry): ClaimMetrics {
  return {
    claims: new Counter({
      name: 'gfts_task_claims_total',
      help: 'claims, by outcome (claimed, unfinished: started and failed before its rewards and state were written, finished later by the sweep; already_claimed, not_completed, not_found) and by whether the task carries rewards (rewarded "true": a claimed one writes grants; "false" also where no task was read: not_found, not_completed)',
      labelNames: ['outcome', 'rewarded'],
      registers: [registry],
    }),
    grants: new Counter({ name: 'gfts_inventory_grants_total', help: 'inventory grants written (one per reward of a claimed task)', registers: [registry] }),
  };
}
