import type { NatsNames, StatDeadLetter } from '@gfts/contracts';
import type { ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { requestIdOf, withRequestId } from '@gfts/platform';
import type { FastifyBaseLogger } from 'fastify';
import type { StatsMetrics } from './metrics.ts';
import { KeyedRunner } from './keyed-runner.ts';
import { parseStatMessage, retryDelay } from './parse.ts';
import type { StatEventProcessor } from './processor.ts';

export interface ConsumerSettings {
  batch: number;
  concurrency: number;
  maxDeliver: number;
  retryBaseMs: number;
}

interface Deps {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  names: NatsNames;
  processor: StatEventProcessor;
  metrics: StatsMetrics;
  log: FastifyBaseLogger;
  settings: ConsumerSettings;
}

const text = new TextDecoder();

/**
 * The stat-event consumer: pulls from the durable consumer every replica shares (each
 * message goes to one replica), processes a batch concurrently but one gamer's events one
 * at a time, acknowledges after the database write, retries failures with a growing
 * delay, and after STATS_MAX_DELIVER deliveries moves an event to the dead-letter subject.
 * A poison event never blocks the others: it is parked, not retried in line.
 */
export class StatsConsumer {
  private readonly deps: Deps;
  private readonly runner: KeyedRunner;
  private messages: ConsumerMessages | undefined;
  private stopping = false;
  private loop: Promise<void> | undefined;
  private advisories: Subscription | undefined;

  constructor(deps: Deps) {
    this.deps = deps;
    this.runner = new KeyedRunner(deps.settings.concurrency);
  }

  start(): void {
    this.loop = this.run();
    this.watchMaxDeliveries();
  }

  /** Stops pulling, lets the events in hand finish (and be acknowledged), then returns. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.advisories?.unsubscribe();
    await this.messages?.close().catch(() => undefined);
    await this.loop;
    await this.runner.idle();
  }

  private async run(): Promise<void> {
    const { js, names, log, settings } = this.deps;
    while (!this.stopping) {
      try {
        const consumer = await js.consumers.get(names.statsStream, names.statsConsumer);
        const messages = await consumer.consume({ max_messages: settings.batch });
        this.messages = messages;
        if (this.stopping) await messages.close();
        void this.watchHeartbeats(messages);
        for await (const msg of messages) {
          await this.runner.capacity();
          this.dispatch(msg);
        }
      } catch (error) {
        if (this.stopping) break;
        log.warn({ err: error }, 'stat consumer interrupted; resuming');
        await new Promise((resolve) => setTimeout(resolve, 1_000).unref());
      }
    }
  }

  private async watchHeartbeats(messages: ConsumerMessages): Promise<void> {
    for await (const status of messages.status()) {
      if ((status.type === 'heartbeats_missed' && status.count >= 2) || status.type === 'consumer_deleted') {
        this.deps.log.warn({ status: status.type }, 'stat consumer lost its server side; re-subscribing');
        await messages.close().catch(() => undefined);
      }
    }
  }

  private dispatch(msg: JsMsg): void {
    const parsed = parseStatMessage(msg.subject, msg.data);
    if (!parsed.ok) {
      this.runner.run(`poison:${msg.seq}`, () => this.deadLetter(msg, parsed.reason, parsed.errors));
      return;
    }
    const { event } = parsed;
    if (msg.info.redelivered) this.deps.metrics.redelivered.inc();
    // The game server's request id (from POST /stats or its own publish) follows the event
    // into logs and the task events it causes; an event without one goes by its eventId.
    const requestId = requestIdOf(msg) ?? event.eventId;
    this.runner.run(`${event.applicationId}:${event.gamerId}`, () => withRequestId(requestId, async () => {
      try {
        const outcome = await this.deps.processor.process(event, msg.info.redelivered);
        msg.ack();
        this.deps.metrics.processed.inc({ outcome });
      } catch (error) {
        this.deps.metrics.processed.inc({ outcome: 'failed' });
        const deliveries = msg.info.deliveryCount;
        if (deliveries >= this.deps.settings.maxDeliver) {
          this.deps.log.error({ err: error, eventId: event.eventId, deliveries }, 'stat event failed on its last delivery; dead-lettering it');
          await this.deadLetter(msg, `processing failed ${deliveries} times: ${(error as Error).message ?? String(error)}`);
        } else {
          this.deps.log.warn({ err: error, eventId: event.eventId, deliveries }, 'stat event failed; will be redelivered');
          msg.nak(retryDelay(deliveries, this.deps.settings.retryBaseMs));
        }
      }
    }));
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
    };
    try {
      await this.deps.js.publish(this.deps.names.statsDeadLetter, JSON.stringify(letter), { msgID: `dlq-${msg.info.stream}-${msg.seq}` });
    } catch (error) {
      // the dead-letter stream is unreachable: keep the event, try again later
      this.deps.log.error({ err: error, seq: msg.seq }, 'could not dead-letter a stat event');
      msg.nak(retryDelay(msg.info.deliveryCount, this.deps.settings.retryBaseMs));
      return;
    }
    this.deps.metrics.deadLettered.inc();
    this.deps.log.warn({ seq: msg.seq, reason }, 'stat event dead-lettered');
    msg.term(reason.slice(0, 200));
  }

  /**
   * An event whose last delivery timed out (its replica died holding it) is dropped by the
   * server with a MAX_DELIVERIES advisory; one replica (queue group) copies it to the
   * dead-letter stream.
   */
  private watchMaxDeliveries(): void {
    const { nc, jsm, names, log } = this.deps;
    const subject = `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${names.statsStream}.${names.statsConsumer}`;
    this.advisories = nc.subscribe(subject, {
      queue: `${names.statsConsumer}-dlq`,
      callback: (error, msg) => {
        if (error) return;
        void (async () => {
          try {
            const advisory = JSON.parse(text.decode(msg.data)) as { stream_seq: number; deliveries: number };
            const stored = await jsm.streams.getMessage(names.statsStream, { seq: advisory.stream_seq });
            if (!stored) return;
            const letter: StatDeadLetter = {
              reason: `not acknowledged after ${advisory.deliveries} deliveries`,
              subject: stored.subject,
              streamSequence: stored.seq,
              deliveryCount: advisory.deliveries,
              deadLetteredAt: new Date().toISOString(),
              payload: text.decode(stored.data),
            };
            await this.deps.js.publish(names.statsDeadLetter, JSON.stringify(letter), { msgID: `dlq-${names.statsStream}-${stored.seq}` });
            this.deps.metrics.deadLettered.inc();
          } catch (err) {
            log.error({ err }, 'could not dead-letter an event past its deliveries');
          }
        })();
      },
    });
  }
}
