import { check, GamerErasedEvent, GamerErasureCompletedEvent, type NatsNames } from '@gfts/contracts';
import {
  AckPolicy, DeliverPolicy, DiscardPolicy, JetStreamApiCodes, JetStreamApiError, RetentionPolicy, StorageType,
  type JetStreamClient, type JetStreamManager, type JsMsg,
} from '@nats-io/jetstream';
import type { TSchema, Static } from 'typebox';
import type { FastifyBaseLogger } from 'fastify';
import { PULL_EXPIRES_MS, pullUntilStopped } from './jetstream-pull.ts';
import { ensureStream, MissingSince } from './jetstream-streams.ts';

type Logger = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

const nanos = (ms: number) => ms * 1_000_000;
const DAY_MS = 86_400_000;

function isNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound;
}

export interface GamerStreamSettings {
  replicas: number;
  /** GAMERS_STREAM_MAX_BYTES: most bytes the stream holds per server */
  maxBytes: number;
}

/**
 * The GAMERS stream (gamer.erased and gamer.erasure.completed), the same from every service
 * that ensures it (each may start first). Kept 30 days: a service down for less than that
 * still erases every gamer asked of it. Deduplicated by message id (the jobId) for 2 minutes.
 * Bounded by `maxBytes`, and when full it refuses new messages (discard New) instead of
 * dropping the oldest: an erasure is a legal duty, so its publisher gets the error and
 * retries (the erasure request answers 503; a service's completion report is redelivered)
 * rather than an unhandled erasure vanishing.
 */
/** How long `GFTS_GAMERS` keeps an event, handled or not: a service down longer misses it. */
export const GAMERS_STREAM_MAX_AGE_MS = 30 * DAY_MS;

export async function ensureGamersStream(jsm: JetStreamManager, names: NatsNames, settings: GamerStreamSettings): Promise<void> {
  await ensureStream(jsm, names.gamersStream, {
    subjects: [names.gamerErased, names.gamerErasureCompleted],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.New,
    num_replicas: settings.replicas,
    max_age: nanos(GAMERS_STREAM_MAX_AGE_MS),
    max_bytes: settings.maxBytes,
    duplicate_window: nanos(120_000),
  });
}

export interface DurableSettings {
  ackWaitMs: number;
  /** redelivery delay of a failed message (grows with each delivery, at most 30 s) */
  retryBaseMs: number;
}

/** A durable pull consumer on one subject of the GAMERS stream; safe from several replicas at once. */
export async function ensureGamersConsumer(jsm: JetStreamManager, names: NatsNames, durable: string, subject: string, settings: DurableSettings): Promise<void> {
  const config = { ack_policy: AckPolicy.Explicit, ack_wait: nanos(settings.ackWaitMs), max_ack_pending: 1_000, filter_subject: subject };
  try {
    await jsm.consumers.info(names.gamersStream, durable);
    await jsm.consumers.update(names.gamersStream, durable, config);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await jsm.consumers.add(names.gamersStream, { durable_name: durable, deliver_policy: DeliverPolicy.All, ...config });
  }
}

export interface GamerEventConsumer {
  /** stops pulling, waits for the message being handled, and gives back the ones not started */
  stop(): Promise<void>;
}

/**
 * Handles the messages of a durable consumer one at a time: acknowledged after `handle`
 * resolves, redelivered later (growing delay) when it throws, dropped with a log line when
 * the payload is not the contract's shape. Never gives up on a valid message: erasure is a
 * legal duty, so a store outage delays it and never loses it.
 */
export function consumeGamerEvents<S extends TSchema>(
  deps: {
    js: JetStreamClient; names: NatsNames; durable: string; schema: S; log: Logger; retryBaseMs: number;
    /** makes the stream and the durable again when they are found gone (as the service's start does) */
    recreate?: () => Promise<void>;
  },
  handle: (event: Static<S>) => Promise<void>,
): GamerEventConsumer {
  const { js, names, durable, schema, log, retryBaseMs } = deps;
  let stopping = false;
  const settle = async (msg: JsMsg) => {
    let payload: unknown;
    try {
      payload = msg.json();
    } catch {
      payload = undefined;
    }
    const parsed = check(schema, payload);
    if (!parsed.ok) {
      log.error({ subject: msg.subject, seq: msg.seq }, 'gamer event of an unknown shape dropped');
      msg.term('invalid payload');
      return;
    }
    try {
      await handle(parsed.value as Static<S>);
      msg.ack();
    } catch (error) {
      const delay = Math.min(30_000, retryBaseMs * 2 ** (msg.info.deliveryCount - 1));
      log.warn({ err: error, durable, deliveries: msg.info.deliveryCount }, 'gamer event failed; will be redelivered');
      msg.nak(delay);
    }
  };
  const missing = new MissingSince();
  const loop = (async () => {
    while (!stopping) {
      try {
        const consumer = await js.consumers.get(names.gamersStream, durable);
        missing.found();
        // An erasure can take a while: once stopping, the pull's other messages go back (nak)
        // for another replica rather than hold the shutdown; after this pull's end, or it would
        // deliver them again to itself.
        await pullUntilStopped(consumer, 100, () => stopping, (msg) => (stopping ? msg.nak(2 * PULL_EXPIRES_MS) : settle(msg)));
      } catch (error) {
        if (stopping) break;
        log.warn({ err: error, durable }, 'gamer event consumer interrupted; resuming');
        await missing.recreateIfGone(error, deps.recreate, log, 'gamer event consumer', { durable });
        await new Promise((resolve) => setTimeout(resolve, 1_000).unref());
      }
    }
  })();
  return {
    async stop() {
      stopping = true;
      // the open pull ends by itself, about PULL_EXPIRES_MS from now (pullUntilStopped)
      await loop;
    },
  };
}

/**
 * The part of erasure every service shares: set up the stream and the service's consumer of
 * gamer.erased, erase with `erase` (idempotent), then report to the job's owner. An event
 * that names other services only (a republish) is taken and left alone.
 */
export async function startGamerErasure(
  deps: { js: JetStreamClient; jsm: JetStreamManager; names: NatsNames; service: string; log: Logger; stream: GamerStreamSettings; durable: DurableSettings },
  erase: (event: GamerErasedEvent) => Promise<void>,
): Promise<GamerEventConsumer> {
  const { js, jsm, names, service, log } = deps;
  const durable = names.gamerErasedConsumer(service);
  const ensure = async () => {
    await ensureGamersStream(jsm, names, deps.stream);
    await ensureGamersConsumer(jsm, names, durable, names.gamerErased, deps.durable);
  };
  await ensure();
  return consumeGamerEvents({ js, names, durable, schema: GamerErasedEvent, log, retryBaseMs: deps.durable.retryBaseMs, recreate: ensure }, async (event) => {
    // published again for the services that have not reported: this one has, and the gamer
    // may have come back since
    if (event.services && !event.services.includes(service)) {
      log.info({ jobId: event.jobId, service }, 'gamer erased before: this service reported the job, its event came again for others');
      return;
    }
    await erase(event);
    const report: GamerErasureCompletedEvent = {
      jobId: event.jobId, applicationId: event.applicationId, gamerId: event.gamerId, service, completedAt: new Date().toISOString(),
      requestedAt: event.requestedAt,
      ...(event.services ? { republished: true } : {}),
    };
    // one report per job and service in the stream, however often the event is handled (its
    // duplicate window); core NATS subscribers of the subject hear every publish
    await js.publish(names.gamerErasureCompleted, JSON.stringify(report), { msgID: `${event.jobId}:${service}` });
    log.info({ jobId: event.jobId, service }, 'gamer erased');
  });
}

/** A `gamer.erasure.completed` report heard over core NATS, or undefined when it is not one (not JSON, not the contract's shape). */
export function erasureReportOf(msg: { json(): unknown }): GamerErasureCompletedEvent | undefined {
  let report: unknown;
  try {
    report = msg.json();
  } catch {
    return undefined;
  }
  const checked = check(GamerErasureCompletedEvent, report);
  return checked.ok ? checked.value : undefined;
}
