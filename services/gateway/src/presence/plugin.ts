import { setTimeout as sleep } from 'node:timers/promises';
import { natsNames } from '@gfts/contracts';
import { natsConnectionOptions } from '@gfts/platform';
import { jetstream } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter } from 'prom-client';
import type { GatewayConfig } from '../config.ts';
import { sightingThrottle } from './throttle.ts';

/** Time between attempts to reach the bucket while NATS, or the bucket, is not there yet. */
const RETRY_MS = 2_000;
/** A sighting is fire-and-forget; this only bounds how long its acknowledgement is awaited. */
const WRITE_TIMEOUT_MS = 1_000;
/** Gamers whose last write this replica remembers (about 100 bytes each). */
const THROTTLE_ENTRIES = 200_000;

type Options = { config: GatewayConfig };

/**
 * Presence sightings: after each authenticated call, this replica writes "gamer seen now"
 * into the presence bucket (a NATS KV bucket the friendship service creates and watches),
 * at most once per PRESENCE_RECORD_INTERVAL_MS per gamer. The write happens after the
 * response and is never awaited by it: a slow or absent NATS costs presence freshness,
 * never a request's latency (docs/friendship.md, Presence). A live-connection service can
 * write the same keys later; the friendship side needs no change.
 */
export const presenceRecording = fp<Options>(async (app: FastifyInstance, { config }) => {
  if (!config.NATS_URL) return;
  const names = natsNames(config.NATS_PREFIX);
  const throttle = sightingThrottle(config.PRESENCE_RECORD_INTERVAL_MS, THROTTLE_ENTRIES);
  const failures = new Counter({ name: 'gateway_presence_write_failures_total', help: 'presence sightings not stored (NATS or the bucket unavailable)', registers: [app.metrics] });
  const stop = new AbortController();
  let nc: NatsConnection | undefined;
  let kv: KV | undefined;

  const opening = (async () => {
    let warned = false;
    while (!stop.signal.aborted) {
      try {
        // as the gateway's NATS user, whose grants include writing the presence bucket
        nc ??= await connect(natsConnectionOptions(config.NATS_URL!, 'gateway-presence', { user: config.NATS_USER, password: config.NATS_PASSWORD }));
        // binds without creating: the friendship service owns the bucket and its settings
        kv = await new Kvm(jetstream(nc, { timeout: WRITE_TIMEOUT_MS })).open(names.presenceBucket, { allow_direct: true });
        await kv.status();
        app.log.info({ bucket: names.presenceBucket }, 'presence sightings recorded');
        return;
      } catch (error) {
        kv = undefined;
        if (!warned) app.log.warn({ err: error }, 'presence bucket unreachable; sightings are dropped until it is');
        warned = true;
        await sleep(RETRY_MS, undefined, { signal: stop.signal }).catch(() => undefined);
      }
    }
  })();

  app.addHook('onResponse', async (request) => {
    const gamer = request.gamer;
    if (!gamer || !kv) return;
    const now = Date.now();
    const key = `${gamer.applicationId}.${gamer.gamerId}`;
    if (!throttle.take(key, now)) return;
    kv.put(key, String(now)).catch(() => failures.inc());
  });
  app.addHook('onClose', async () => {
    stop.abort();
    await opening;
    await nc?.close();
  });
}, { name: 'presence-recording' });
