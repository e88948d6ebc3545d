import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NatsNames, StatDeadLetter } from '@gfts/contracts';
import type { JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { headersOf, inBatchSpan, keepAliveEvery, keepAliveEveryMs, keepSubscribed, MissingSince, pullUntilStopped, requestIdOf, startMessageSpan, type KeptSubscription, type MessageSpan } from '@gfts/platform';
import type { FastifyBaseLogger } from 'fastify';
import { BatchQueue } from './batch-queue.ts';
import { ByteBudget } from './byte-budget.ts';
import { SpillRouter } from './lanes.ts';
import type { EventStage, StatsMetrics } from './metrics.ts';
import { LetterCount, publishDeadLetter, requestIdField, type DeadLetterStored } from './dead-letters.ts';
import { isStoreOutage } from '../repository/store.ts';
import { LiveConsumerSettings } from './live-consumer-settings.ts';
import { eventAgeSeconds, parseStatMessage, retryDelay } from './parse.ts';
import type { DeliveredEvent, EventOutcome, StatBatchProcessor } from './processor.ts';

export interface ConsumerSettings {
  /** most events applied in one batch */
  batch: number;
  /** how long a batch waits for more events once its first arrived */
  batchWaitMs: number;
  /** most batches of disjoint gamers in flight at once; lanes past the first open under a backlog (stats/lanes.ts) */
  lanes: number;
  /** STATS_MAX_DELIVER: the consumer's max_deliver until its live setting was read (LiveConsumerSettings) */
  maxDeliver: number;
  retryBaseMs: number;
  /** STATS_ACK_WAIT_MS: the consumer's ack_wait until its live setting was read; events held longer are kept alive with in-progress acks */
  ackWaitMs: number;
  /** bytes of events held (pulled, not yet settled) past which the pull waits (CONSUMER_HELD_MAX_BYTES) */
  heldMaxBytes: number;
}

interface Deps {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  names: NatsNames;
  processor: StatBatchProcessor;
  metrics: StatsMetrics;
  log: FastifyBaseLogger;
  settings: ConsumerSettings;
  /** makes the streams and the durable again when the pull finds them gone (as the service's start does) */
  recreate?: () => Promise<void>;
}

const text = new TextDecoder();

/**
 * A stale event (another replica moved the gamer's task meanwhile) comes back after this
 * plus up to as much again at random, so two replicas racing on one gamer fall out of step.
 */
const STALE_REDELIVERY_MS = 100;

/**
 * Dead letters and requeues in flight past which a poison message holds the pull: each holds
 * its message (up to the stream's largest) and its letter in memory until the stream answers,
 * and a flood of poison must not hold them all (the others are bounded by the lanes).
 */
export const LETTERS_IN_FLIGHT = 32;
/** How long an attempt at a batch may still take once the replica began to stop. */
const STOP_ATTEMPT_WAIT_MS = 2_000;
/** Tries of a dead letter for an event past its deliveries (1 + 2 + 4 + 8 + 16 s apart). */
const OVERDUE_ATTEMPTS = 6;
/** Events past their deliveries waiting for a copy slot (a few hundred bytes each). */
const OVERDUE_QUEUED_MAX = 100_000;

/** How many times a stat event was put back on the stream after going stale on its last delivery. */
export const REQUEUED_HEADER = 'Gfts-Requeued';
/**
 * Requeues of one event before it is dead-lettered after all: stale on every delivery of
 * them means something keeps moving the gamer, not a race to wait out.
 */
const MAX_REQUEUES = 3;

/** How often the consumer's live settings are read again (the keep-alives' pace follows them). */
export const LIVE_SETTINGS_MAX_AGE_MS = 10_000;
/** Age past which a requeue or dead-letter decision reads the consumer's live settings first. */
export const DECISION_SETTINGS_MAX_AGE_MS = 1_000;
/** Longest a decision waits for that read; past it, it decides on the settings last read. */
const DECISION_SETTINGS_WAIT_MS = 500;

interface Parsed {
  msg: JsMsg;
  delivered: DeliveredEvent;
  span: MessageSpan;
}

/** Batches of one set of gamers, written one after the other; lanes run side by side. */
interface Lane {
  queue: BatchQueue<Parsed>;
  /** the batch settling behind the one being written (StatBatchProcessor.write) */
  settling: Promise<void>;
}

/**
 * The stat-event consumer: pulls from the durable consumer every replica shares (each
 * message goes to one replica) and applies events in batches: what arrived while the
 * previous batch was written (up to CONSUMER_BATCH, waiting at most CONSUMER_BATCH_WAIT_MS
 * for a first few). A lane writes one batch at a time; up to CONSUMER_LANES lanes write
 * batches of disjoint gamers side by side (as two replicas' are), but a lane past the first
 * takes events only while a full batch waits in the ones before it (a backlog: stats/lanes.ts),
 * and a gamer keeps their lane while they have events not yet written, so a gamer's events
 * apply in stream order within a replica. Each event is
 * acknowledged after the batch's write; a failed one is redelivered
 * with a growing delay and after STATS_MAX_DELIVER deliveries moved to the dead-letter
 * stream. A poison event goes there at once and never holds the batch.
 *
 * Tracing: each message gets its own span, a child of its publisher's (the traceparent
 * header), ended when the message is settled; the batch's shared database work runs in one
 * span under the first message's and linked to the others' (platform inBatchSpan).
 */
export class StatsConsumer {
  private readonly deps: Deps;
  private stopping = false;
  private readonly stopped = new AbortController();
  private loop: Promise<void> | undefined;
  private advisories: KeptSubscription | undefined;
  private readonly lanes: Lane[];
  private readonly router: SpillRouter;
  private readonly letters = new Set<Promise<void>>();
  /** events not applied whose redelivery, requeue or dead letter is being decided (settle) */
  private readonly decisions = new Set<Promise<void>>();
  private liveRefresh: NodeJS.Timeout | undefined;
  /** each letter counted, once where this replica can tell (LetterCount) */
  private readonly letterCount = new LetterCount();
  private readonly held: ByteBudget;
  /** events past their deliveries (MAX_DELIVERIES advisories) waiting to be dead-lettered */
  private readonly overdue: { seq: number; deliveries: number }[] = [];
  private overdueRunning = 0;
  private readonly overdueCopies = new Set<Promise<void>>();
  /** the shared consumer's max_deliver and ack_wait as the server holds them */
  private readonly live: LiveConsumerSettings;

  constructor(deps: Deps) {
    this.deps = deps;
    const { jsm, names, settings } = deps;
    this.live = new LiveConsumerSettings(settings, async () => (await jsm.consumers.info(names.statsStream, names.statsConsumer)).config);
    this.held = new ByteBudget(deps.settings.heldMaxBytes);
    // every attempt of a batch and every overdue copy's wait listen for the stop (not a leak)
    setMaxListeners(0, this.stopped.signal);
    this.lanes = Array.from({ length: Math.max(1, deps.settings.lanes) }, () => {
      const lane: Lane = { settling: Promise.resolve(), queue: new BatchQueue(deps.settings.batch, deps.settings.batchWaitMs, (batch) => this.apply(lane, batch)) };
      return lane;
    });
    this.router = new SpillRouter(this.lanes.length, deps.settings.batch);
  }

  start(): void {
    this.loop = this.run();
    this.watchMaxDeliveries();
    this.liveRefresh = setInterval(() => void this.live.fresh(0), LIVE_SETTINGS_MAX_AGE_MS);
    this.liveRefresh.unref();
  }

  /** Stops pulling, then applies (and acknowledges) every event already pulled. */
  async stop(): Promise<void> {
    this.stopping = true;
    // a batch waiting to try the store again gives up now, not after its wait (up to 30 s,
    // past a pod's grace): its events are put back for redelivery
    this.stopped.abort();
    this.advisories?.unsubscribe();
    // the open pull ends by itself, about PULL_EXPIRES_MS from now (pullUntilStopped)
    await this.loop;
    await Promise.all(this.lanes.map((lane) => lane.queue.drain()));
    await Promise.all(this.lanes.map((lane) => lane.settling));
    await Promise.allSettled([...this.decisions, ...this.letters, ...this.overdueCopies]);
    clearInterval(this.liveRefresh);
  }

  private async run(): Promise<void> {
    const { js, names, log, settings } = this.deps;
    const missing = new MissingSince();
    while (!this.stopping) {
      try {
        const consumer = await js.consumers.get(names.statsStream, names.statsConsumer);
        missing.found();
        this.live.adopt((await consumer.info(true)).config);
        // What arrives while stopping is applied too (a batch is quick), so none is left
        // unacknowledged. Pulled messages wait in the pull's queue until taken (one batch at
        // most, taken as soon as a batch leaves its lane), kept in progress by the pull; once
        // in a lane, by the batch being written there (apply).
        // (one pull's bytes are not bounded: nats.js takes a count or bytes, not both, and bytes
        // alone pull 100 messages at most; a pull of a batch of the largest events is ~100 MB)
        await pullUntilStopped(consumer, settings.batch, () => this.stopping, async (msg) => {
          const parsed = this.parse(msg);
          if (!parsed) {
            // Dead letters in flight hold their messages (and letters) in memory: a flood of
            // poison waits for them as the lanes make events wait for the store.
            while (this.letters.size >= LETTERS_IN_FLIGHT) await Promise.race(this.letters);
            return;
          }
          this.hold(msg.data.length);
          const { applicationId, gamerId } = parsed.delivered.event;
          const waiting = (i: number) => this.lanes[i]!.queue.waiting.length;
          const lane = this.router.route(`${applicationId}:${gamerId}`, waiting);
          const room = this.lanes[lane]!.queue.push(parsed);
          // the pull stops while the store is behind (SpillRouter.mustWait)
          const wait = this.router.mustWait(lane, waiting);
          if (wait === 'thisLane') await room;
          else if (wait === 'anyLane') await Promise.race(this.lanes.map((l) => l.queue.nextRoom()));
          // and while the bytes held are over CONSUMER_HELD_MAX_BYTES (the batches before settle)
          await this.held.room();
        }, () => this.live.current.ackWaitMs);
      } catch (error) {
        if (this.stopping) break;
        log.warn({ err: error }, 'stat consumer interrupted; resuming');
        // the events it delivers again are recognised as applied
        await missing.recreateIfGone(error, this.deps.recreate, log, 'stat consumer');
        await new Promise((resolve) => setTimeout(resolve, 1_000).unref());
      }
    }
  }

  /** A pulled message as an event to apply; a poison one goes to the dead-letter stream at once. */
  private parse(msg: JsMsg): Parsed | undefined {
    const span = startMessageSpan(msg, { 'messaging.message.delivery_count': msg.info.deliveryCount });
    const parsed = parseStatMessage(msg.subject, msg.data);
    if (!parsed.ok) {
      span.end('poison');
      this.track(this.deadLetter(msg, parsed.reason, parsed.errors));
      return undefined;
    }
    if (msg.info.redelivered) this.deps.metrics.redelivered.inc();
    this.observeAge(msg, 'pulled');
    // the game server's request id (from POST /stats or its own publish) follows the event
    // into logs and the task events it causes; an event without one goes by its eventId
    const requestId = requestIdOf(msg) ?? parsed.event.eventId;
    return { msg, span, delivered: { event: parsed.event, redelivered: msg.info.redelivered, requestId, trace: span } };
  }

  private async apply(lane: Lane, batch: Parsed[]): Promise<void> {
    const { metrics, processor, log, settings } = this.deps;
    if (batch.length === 0) return;
    metrics.batchSize.observe(batch.length);
    for (const { msg } of batch) this.observeAge(msg, 'batched');
    // while the batch is written (or waits for the store), its events and those queued behind
    // it are kept in progress, so JetStream does not redeliver them meanwhile; at the pace of
    // the consumer's ack_wait as last read
    const keepAlive = keepAliveEvery(() => keepAliveEveryMs(this.live.current.ackWaitMs), () => {
      for (const { msg } of [...batch, ...lane.queue.waiting]) msg.working();
    });
    const delivered = batch.map((p) => p.delivered);
    const spans = batch.map((p) => p.span);
    // The batch as a whole failing (the store is away) is no fault of its events, so it must
    // not use up their deliveries (a long outage would dead-letter them all): it is tried
    // again, until it goes through or the replica stops.
    const retrying = async <T>(what: string, work: () => Promise<T>, giveUp: (error: unknown) => T): Promise<T> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.boundedByStop(inBatchSpan(what, spans, work));
        } catch (error) {
          if (this.stopping) {
            log.warn({ err: error, events: batch.length }, 'stat batch failed while stopping; its events will be redelivered');
            return giveUp(error);
          }
          log.warn({ err: error, events: batch.length, attempt }, 'stat batch failed; trying it again');
          await sleep(retryDelay(attempt, settings.retryBaseMs), undefined, { signal: this.stopped.signal }).catch(() => undefined);
        }
      }
    };
    // given up on only while stopping: the batch failed as a whole, which is none of its events' doing
    const interrupted = (): EventOutcome[] => batch.map(() => ({ kind: 'interrupted' }));
    // Written up to its progress write here, and its completions announced, before the next
    // batch may start (which reads what this one wrote: a gamer's events stay in stream
    // order); the rest (unlock counters, processed records, acks) settles while the next
    // batch is written. Batches settle one at a time, in order, and a batch is not written
    // before the one two back settled.
    // A later attempt, or a failure after the write, applies the batch again: what an earlier
    // attempt landed (its reply lost, say) is recognised as applied, and its completions are
    // announced then (a delivery announces what its event completed, whoever wrote it).
    // A failure of some gamer's data, not of the store, would fail every attempt the same
    // way and hold the lane (and, kept in progress, every event pulled behind it) for ever:
    // the batch is then applied gamer by gamer, and only the faulty gamers' events fail.
    const eachGamer = async (error: unknown) => {
      if (isStoreOutage(error)) throw error;
      log.warn({ err: error, events: batch.length }, 'stat batch failed on its data; applying it gamer by gamer');
      const outcomes = await processor.processEachGamer(delivered);
      return { settle: async () => outcomes };
    };
    let gaveUp = false;
    const written = await retrying('apply stat batch', () => processor.write(delivered).catch(eachGamer), () => {
      gaveUp = true;
      return { settle: async () => interrupted() };
    });
    if (!gaveUp) for (const { msg } of batch) this.observeAge(msg, 'written');
    const before = lane.settling;
    lane.settling = before
      .then(async () => {
        // bounded by the stop as the write is: a store stalled after the write lands held it past the grace
        const outcomes = await this.boundedByStop(written.settle()).catch(() => retrying('apply stat batch', () => processor.process(delivered).catch(async (error: unknown) => (await eachGamer(error)).settle()), interrupted));
        keepAlive.stop();
        batch.forEach(({ msg, delivered: event, span }, i) => {
          const outcome = outcomes[i]!;
          span.end(outcome.kind, outcome.kind === 'failed' ? outcome.error : undefined);
          this.settle(msg, event, outcome);
        });
      })
      .catch((error: unknown) => {
        keepAlive.stop();
        log.error({ err: error, events: batch.length }, 'stat batch left unsettled; its events will be redelivered');
      })
      // settled or left to JetStream's redelivery: no longer held here
      .finally(() => {
        this.release(batch.reduce((bytes, { msg }) => bytes + msg.data.length, 0));
        // The gamers' next events may take another lane only now: a settling prunes their
        // applied lists, and a write allows one prune since its read, which a lane's own
        // order keeps; a gamer moved to another lane at the write could be read there
        // before two prunes and written after them, stale (until 2026-11-28).
        this.router.settled(delivered.map(({ event }) => `${event.applicationId}:${event.gamerId}`));
      });
    await before;
  }

  private settle(msg: JsMsg, delivered: DeliveredEvent, outcome: EventOutcome): void {
    this.deps.metrics.processed.inc({ outcome: outcome.kind });
    if (outcome.kind === 'processed' || outcome.kind === 'duplicate') {
      msg.ack();
      return this.observeAge(msg, 'acknowledged');
    }
    // whether this is the event's last delivery is the consumer's live max_deliver's to say:
    // read again first when older than a second, the event kept in progress meanwhile (its
    // batch's keep-alive has stopped)
    if (this.live.isFresh(DECISION_SETTINGS_MAX_AGE_MS)) return this.track(this.settleUnapplied(msg, delivered, outcome, this.live.current.maxDeliver), this.decisions);
    msg.working();
    this.track(this.live.fresh(DECISION_SETTINGS_MAX_AGE_MS, DECISION_SETTINGS_WAIT_MS).then(({ maxDeliver }) => this.settleUnapplied(msg, delivered, outcome, maxDeliver)), this.decisions);
  }

  /** An event its batch did not apply: tried again, requeued or dead-lettered. */
  private async settleUnapplied(msg: JsMsg, delivered: DeliveredEvent, outcome: Exclude<EventOutcome, { kind: 'processed' | 'duplicate' }>, maxDeliver: number): Promise<void> {
    const { log, settings } = this.deps;
    if (outcome.kind === 'stale' || outcome.kind === 'interrupted') {
      if (msg.info.deliveryCount < maxDeliver) return msg.nak(STALE_REDELIVERY_MS + Math.floor(Math.random() * STALE_REDELIVERY_MS));
      // JetStream counts every delivery and would drop the event now, as if it had failed
      return this.requeue(msg, outcome.kind);
    }
    const { eventId } = delivered.event;
    const deliveries = msg.info.deliveryCount;
    const reason = (outcome.error as Error)?.message ?? String(outcome.error);
    if (deliveries >= maxDeliver) {
      log.error({ err: outcome.error, eventId, deliveries }, 'stat event failed on its last delivery; dead-lettering it');
      await this.deadLetter(msg, `processing failed ${deliveries} times: ${reason}`);
    } else {
      log.warn({ err: outcome.error, eventId, deliveries }, 'stat event failed; will be redelivered');
      msg.nak(retryDelay(deliveries, settings.retryBaseMs));
    }
  }

  /**
   * `work` as it goes, given up on once the stop began STOP_ATTEMPT_WAIT_MS ago: an attempt
   * waiting on a store that is away (5 s server selection, 30 s on a stalled socket) ran past
   * the pod's grace, and its events came back only after ack_wait, each a delivery used (those
   * on their last dead-lettered). What it was doing may still land: a redelivery finds it applied.
   */
  private boundedByStop<T>(work: Promise<T>): Promise<T> {
    const { signal } = this.stopped;
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onStop = () => {
        timer = setTimeout(() => reject(new Error('given up: the replica is stopping')), STOP_ATTEMPT_WAIT_MS);
      };
      if (signal.aborted) onStop();
      else signal.addEventListener('abort', onStop, { once: true });
      work.then(resolve, reject).finally(() => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onStop);
      });
    });
  }

  private hold(bytes: number): void {
    this.held.take(bytes);
    this.deps.metrics.heldBytes.set(this.held.held);
  }

  private release(bytes: number): void {
    this.held.give(bytes);
    this.deps.metrics.heldBytes.set(this.held.held);
  }

  private observeAge(msg: JsMsg, stage: EventStage): void {
    this.deps.metrics.eventAge.observe({ stage }, eventAgeSeconds(msg.info.timestampNanos, Date.now()));
  }

  /** `into`: the letters (whose count holds the pull) unless said otherwise. */
  private track(letter: Promise<void>, into: Set<Promise<void>> = this.letters): void {
    // never rejects: a dead letter or requeue that failed unforeseen is logged (its message,
    // neither acknowledged nor terminated, is redelivered, or past its last delivery
    // dead-lettered by the MAX_DELIVERIES advisory), not an unhandled rejection that stops
    // the process, nor a throw out of the pull's race on letters
    const settled = letter.catch((error: unknown) => this.deps.log.error({ err: error }, 'could not dead-letter or requeue a stat event'));
    into.add(settled);
    void settled.finally(() => into.delete(settled));
  }

  /**
   * A stale (or interrupted) event on its last delivery goes back on the stream as a new
   * message with the same payload and headers, JetStream's own left out (a message id of its
   * own: a re-publication within the duplicate window would be dropped), then this one is
   * acknowledged. Its events stay counted once (`processed_events`, the documents' `applied`
   * lists). A crash between the two leaves the
   * server's MAX_DELIVERIES advisory to dead-letter this one: a letter that replays as a
   * duplicate.
   */
  private async requeue(msg: JsMsg, why: 'stale' | 'interrupted'): Promise<void> {
    const { js, log, settings } = this.deps;
    // a game server may publish any header: a count that is not one is taken as used up
    // headers nats.js cannot decode go as none (headersOf): the copy is made without them
    const original = headersOf(() => msg.headers);
    const header = original?.get(REQUEUED_HEADER) || '0';
    const requeued = /^\d{1,2}$/.test(header) ? Number(header) : MAX_REQUEUES;
    if (requeued >= MAX_REQUEUES) {
      const cause = why === 'stale' ? 'the gamer kept being moved by other writers' : 'its batch kept failing as a whole while replicas stopped';
      return this.deadLetter(msg, `${why} on ${msg.info.deliveryCount} deliveries, requeued ${requeued} times: ${cause}`);
    }
    const headers = natsHeaders();
    for (const [name, values] of original ?? []) {
      // JetStream's own (Nats-Expected-Last-Sequence, Nats-Msg-Id, Nats-TTL…) were directives
      // for the first publish: a copy carrying them would be refused, or deduplicated
      if (name.toLowerCase().startsWith('nats-')) continue;
      for (const value of values) headers.append(name, value);
    }
    headers.set(REQUEUED_HEADER, String(requeued + 1));
    // the publish may take a while: the delivery must not time out meanwhile
    msg.working();
    try {
      await js.publish(msg.subject, msg.data, { msgID: `requeue-${msg.info.stream}-${msg.seq}`, headers, timeout: 5_000 });
    } catch (error) {
      // its last delivery: the server will not deliver it again, and its MAX_DELIVERIES advisory dead-letters it
      log.error({ err: error, seq: msg.seq }, `could not requeue a ${why} stat event; it will be dead-lettered`);
      msg.nak(retryDelay(msg.info.deliveryCount, settings.retryBaseMs));
      return;
    }
    this.deps.metrics.requeued.inc();
    log.info({ seq: msg.seq, requeued: requeued + 1 }, `${why} stat event requeued on its last delivery`);
    msg.ack();
  }

  /** Publishes the event to the dead-letter stream, then terminates it (never redelivered). */
  private async deadLetter(msg: JsMsg, reason: string, errors?: string[]): Promise<void> {
    const letter: StatDeadLetter = {
      reason,
      ...(errors ? { errors } : {}),
      subject: msg.subject,
      streamSequence: msg.seq,
      deliveryCount: msg.info.deliveryCount,
      deadLetteredAt: new Date().toISOString(),
      payload: text.decode(msg.data),
      ...requestIdField(requestIdOf(msg)),
    };
    const msgID = `dlq-${msg.info.stream}-${msg.seq}`;
    let stored: DeadLetterStored;
    try {
      stored = await publishDeadLetter(this.deps.js, this.deps.names, letter, msgID);
    } catch (error) {
      // the dead-letter stream is unreachable: keep the event, try again later
      this.deps.log.error({ err: error, seq: msg.seq }, 'could not dead-letter a stat event');
      msg.nak(retryDelay(msg.info.deliveryCount, this.deps.settings.retryBaseMs));
      return;
    }
    if (this.letterCount.counts(msgID, stored)) this.deps.metrics.deadLettered.inc();
    this.deps.log.warn({ seq: msg.seq, reason }, 'stat event dead-lettered');
    msg.term(reason.slice(0, 200));
  }

  /**
   * An event whose last delivery timed out (its replica died holding it), or whose dead
   * letter could not be written on its last delivery, is dropped by the server with a
   * MAX_DELIVERIES advisory; one replica (queue group) copies it to the dead-letter stream.
   * The advisory comes once: the copy is tried OVERDUE_ATTEMPTS times over ~30 s (a
   * dead-letter stream electing a leader), at most LETTERS_IN_FLIGHT at once (a peer that
   * died holding thousands on their last delivery), and a stop waits for those under way.
   * Until 2026-11-28 one failed try lost the event, with a log line.
   */
  private watchMaxDeliveries(): void {
    const { nc, names, log } = this.deps;
    const subject = `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${names.statsStream}.${names.statsConsumer}`;
    const what = 'events past their deliveries are not dead-lettered by this replica';
    this.advisories = keepSubscribed(nc, subject, { queue: `${names.statsConsumer}-dlq`, what, log }, (msg) => {
      try {
        const advisory = JSON.parse(text.decode(msg.data)) as { stream_seq: number; deliveries: number };
        if (this.overdue.length >= OVERDUE_QUEUED_MAX) return void log.error({ seq: advisory.stream_seq }, 'too many events past their deliveries waiting to be dead-lettered; this one is not');
        this.overdue.push({ seq: advisory.stream_seq, deliveries: advisory.deliveries });
        this.copyOverdue();
      } catch (err) {
        log.error({ err }, 'an unreadable MAX_DELIVERIES advisory');
      }
    });
  }

  /** Starts copies of overdue events while fewer than LETTERS_IN_FLIGHT run. */
  private copyOverdue(): void {
    if (this.stopping && this.overdue.length > 0) {
      // the advisory came once, to this replica: the events stay in the stream, not dead-lettered
      this.deps.log.error({ events: this.overdue.length, seqs: this.overdue.slice(0, 20).map((o) => o.seq) }, 'stopping with events past their deliveries not dead-lettered');
      this.overdue.length = 0;
      return;
    }
    while (this.overdueRunning < LETTERS_IN_FLIGHT && this.overdue.length > 0) {
      const next = this.overdue.shift()!;
      this.overdueRunning++;
      // not among the poison letters, whose count holds the pull: a backlog of these must not stop it
      const copy: Promise<void> = this.deadLetterOverdue(next).finally(() => {
        this.overdueCopies.delete(copy);
        this.overdueRunning--;
        this.copyOverdue();
      });
      this.overdueCopies.add(copy);
    }
  }

  private async deadLetterOverdue({ seq, deliveries }: { seq: number; deliveries: number }): Promise<void> {
    const { jsm, names, log } = this.deps;
    for (let attempt = 1; ; attempt++) {
      try {
        const stored = await jsm.streams.getMessage(names.statsStream, { seq });
        if (!stored) return;
        const letter: StatDeadLetter = {
          reason: `not acknowledged after ${deliveries} deliveries`,
          subject: stored.subject,
          streamSequence: stored.seq,
          deliveryCount: deliveries,
          deadLetteredAt: new Date().toISOString(),
          payload: text.decode(stored.data),
          ...requestIdField(requestIdOf({ headers: headersOf(() => stored.header) })),
        };
        const msgID = `dlq-${names.statsStream}-${stored.seq}`;
        if (this.letterCount.counts(msgID, await publishDeadLetter(this.deps.js, names, letter, msgID))) this.deps.metrics.deadLettered.inc();
        return;
      } catch (err) {
        if (attempt >= OVERDUE_ATTEMPTS || this.stopping) return void log.error({ err, seq, attempt }, 'could not dead-letter an event past its deliveries');
        log.warn({ err, seq, attempt }, 'could not dead-letter an event past its deliveries yet; trying again');
        await sleep(retryDelay(attempt, 1_000), undefined, { signal: this.stopped.signal }).catch(() => undefined);
      }
    }
  }
}
