import rateLimit from '@fastify/rate-limit';
import { ErrorCode, type Identity } from '@gfts/contracts';
import { AppError } from '@gfts/platform';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter } from 'prom-client';
import { isApiRequest } from '../authentication.ts';
import type { GatewayConfig } from '../config.ts';
import { LIVE_PATH } from '../live-proxy.ts';
import { InFlight } from './in-flight.ts';
import { LocalCounter } from './local-counter.ts';
import { connectSharedKv } from './nats-kv.ts';
import { SharedStore } from './store.ts';

/** A game server's identity reports a fleet's stats: its own budget, no cap on requests at once. */
const isServer = (gamer: Identity) => gamer.roles.includes('server');
const budgetKey = (gamer: Identity) => `${gamer.applicationId}:${gamer.gamerId}`;

/** After a shared-store failure, how long this replica limits on its own before probing again. */
const PAUSE_AFTER_FAILURE_MS = 1_000;

type Options = { config: GatewayConfig };

/**
 * The per-gamer budget: RATE_LIMIT_MAX requests per fixed RATE_LIMIT_WINDOW_MS window,
 * counted across every replica in NATS KV (RATE_LIMIT_STORE=nats) or per replica (local).
 * Registered after authentication (a preHandler), so the budget is per gamer, not per NAT'd
 * address.
 */
export const rateLimiting = fp<Options>(async (app: FastifyInstance, { config }) => {
  const local = new LocalCounter(config.RATE_LIMIT_LOCAL_KEYS_MAX);
  let store: LocalCounter | SharedStore = local;
  if (config.RATE_LIMIT_STORE === 'nats' && config.NATS_URL) {
    const fallbacks = new Counter({
      name: 'gateway_rate_limit_fallback_total',
      help: 'rate-limit decisions taken by this replica alone because the shared NATS KV store was unavailable, failing or slow',
      labelNames: ['reason'],
      registers: [app.metrics],
    });
    const timeoutMs = config.RATE_LIMIT_STORE_TIMEOUT_MS;
    const shared = connectSharedKv({
      servers: config.NATS_URL,
      credentials: { user: config.NATS_USER, password: config.NATS_PASSWORD },
      windowMs: config.RATE_LIMIT_WINDOW_MS,
      replicas: config.RATE_LIMIT_KV_REPLICAS,
      timeoutMs,
      log: app.log,
    });
    app.addHook('onClose', () => shared.close());
    // A healthy stack starts shared from the first request; an unreachable NATS costs one
    // bounded attempt at start-up, then the gateway serves with local limits and keeps trying.
    await shared.firstAttempt;
    store = new SharedStore({
      kv: () => shared.current(),
      failed: (error) => shared.failed(error),
      local,
      timeoutMs,
      pauseMs: PAUSE_AFTER_FAILURE_MS,
      leaseMax: config.RATE_LIMIT_LEASE_MAX,
      leaseFirst: config.RATE_LIMIT_LEASE_FIRST,
      leaseKeysMax: config.RATE_LIMIT_LOCAL_KEYS_MAX,
      log: app.log,
      onFallback: (reason) => fallbacks.inc({ reason }),
    });
  }
  const instance = store;
  const inFlight = new InFlight(config.RATE_LIMIT_IN_FLIGHT_MAX);
  // Before the budget's own preHandler (a route hook, run after the global ones): a request
  // refused here is not counted.
  app.addHook('preHandler', async (request, reply) => {
    const { gamer } = request;
    if (!gamer || isServer(gamer) || request.routeOptions.url === LIVE_PATH || !isApiRequest(request)) return;
    const key = budgetKey(gamer);
    if (!inFlight.take(key)) {
      throw new AppError(429, ErrorCode.RATE_LIMITED, `more than ${inFlight.max} requests of this gamer at once; retry when one is answered`, { retryAfterSeconds: 1 });
    }
    // an answer's close comes once, whether it was sent whole or its client left
    reply.raw.once('close', () => inFlight.give(key));
  });
  await app.register(rateLimit, {
    global: true,
    hook: 'preHandler',
    max: (request) => (request.gamer && isServer(request.gamer) ? config.RATE_LIMIT_SERVER_MAX : config.RATE_LIMIT_MAX),
    timeWindow: config.RATE_LIMIT_WINDOW_MS,
    // The plugin constructs its store; this one is built above with what it needs.
    store: class {
      constructor() {
        return instance;
      }
    } as never,
    // Every limited request (/api) has a gamer by now: authentication answered 401 otherwise.
    // The plugin asks for the key before it asks allowList, so the exempt routes (/openapi.json,
    // /console) come here too, without a gamer, and must not throw (a 500).
    keyGenerator: (request) => (request.gamer ? budgetKey(request.gamer) : 'exempt'),
    allowList: (request) => !isApiRequest(request),
    errorResponseBuilder: (_request, context) =>
      new AppError(429, ErrorCode.RATE_LIMITED, `rate limit of ${context.max} requests per ${config.RATE_LIMIT_WINDOW_MS / 1000} s exceeded; retry in ${context.after}`),
  });
}, { name: 'rate-limiting' });
