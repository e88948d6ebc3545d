import { createAjv } from '@gfts/contracts';
import Type, { type Static, type TObject, type TProperties } from 'typebox';

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** REQUEST_TIMEOUT_MS when unset, also for a server built without config (tests). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/** SEND_TIMEOUT_MS when unset. */
export const DEFAULT_SEND_TIMEOUT_MS = 30_000;

/** Settings every service reads. */
export const BaseConfig = {
  HOST: Type.String({ default: '0.0.0.0', description: 'interface to listen on' }),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  LOG_BUFFER_BYTES: Type.Integer({ minimum: 0, maximum: 16_000, default: 4096, description: 'log bytes gathered before one write to stdout, at most 1 s late; 0 writes each line at once' }),
  BODY_LIMIT_BYTES: Type.Integer({ minimum: 256, maximum: 10_485_760, default: 16_384, description: 'largest accepted request body' }),
  REQUEST_TIMEOUT_MS: Type.Integer({
    minimum: 1_000,
    maximum: 300_000,
    default: DEFAULT_REQUEST_TIMEOUT_MS,
    description: 'time a client has to send a whole request, headers and body, from its first byte; then 408 and the connection closes (a WebSocket once upgraded is not concerned)',
  }),
  SEND_TIMEOUT_MS: Type.Integer({
    minimum: 1_000,
    maximum: 300_000,
    default: DEFAULT_SEND_TIMEOUT_MS,
    description: 'time an answer may wait for the client to take any of it; then the connection closes (a client that stops reading holds nothing longer; one that reads slowly is not concerned)',
  }),
  LISTEN_BACKLOG: Type.Integer({
    minimum: 1,
    maximum: 65_535,
    default: 4096,
    description: 'connections the kernel queues before the process accepts them (capped by net.core.somaxconn); when clients reconnect all at once, a full queue drops their SYNs and they wait 1, 3, 7 s for the kernel to retry',
  }),
  SHUTDOWN_GRACE_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 10_000, description: 'time in-flight work gets after SIGTERM' }),
  INTERNAL_TOKEN_SECRET: Type.String({ minLength: 32, description: 'HMAC secret of the gateway-signed identity assertion' }),
};

/** The NATS user a process connects as (libs/contracts nats-permissions.ts); both or neither. */
export const NatsCredentialsConfig = {
  NATS_USER: Type.Optional(Type.String({ minLength: 1, description: 'NATS user of this service; unset = connect without authentication (tests, a server without users)' })),
  NATS_PASSWORD: Type.Optional(Type.String({ minLength: 1, description: 'password of NATS_USER (a Secret)' })),
};

/**
 * The problem, if any, with the presence heartbeat of the notifications replicas
 * (PRESENCE_RECORD_INTERVAL_MS) against how long friendship counts a replica alive after its
 * last one (PRESENCE_ONLINE_WINDOW_MS): two services' settings, checked where both are known
 * (deploy/tools/settings-check.ts for each Helm rendering, the Compose test). With fewer than
 * two heartbeats per window one late beat, or an interval past the window, has friendship
 * declare a live replica dead and its gamers offline, until its next beat writes them again.
 */
export function presenceHeartbeatProblems(recordIntervalMs: number, onlineWindowMs: number): string[] {
  return recordIntervalMs * 2 <= onlineWindowMs ? [] : [`PRESENCE_RECORD_INTERVAL_MS of notifications (${recordIntervalMs}) must be at most half of PRESENCE_ONLINE_WINDOW_MS of friendship (${onlineWindowMs}): fewer beats per window show its gamers offline now and then`];
}

/** The problem with a NATS_USER set without NATS_PASSWORD or the reverse, if any. */
export function natsCredentialProblems(config: { NATS_USER?: string | undefined; NATS_PASSWORD?: string | undefined }): string[] {
  return (config.NATS_USER === undefined) === (config.NATS_PASSWORD === undefined) ? [] : ['NATS_USER and NATS_PASSWORD must be set together'];
}

/**
 * The GAMERS stream (gamer erasure), ensured alike by every service that erases gamers:
 * whichever starts last sets it, so give them the same values.
 */
export const GamersStreamConfig = {
  GAMERS_STREAM_REPLICAS: Type.Integer({ minimum: 1, maximum: 5, default: 1, description: 'JetStream replicas of the GAMERS stream (gamer.erased); the same in every service' }),
  GAMERS_STREAM_MAX_BYTES: Type.Integer({
    minimum: 1_048_576,
    default: 268_435_456,
    description: 'most bytes the GAMERS stream holds per server (256 MiB; the same in every service); when full, publishing an erasure is refused rather than an older one dropped (docs/operations.md, "Sizing the streams")',
  }),
};

/** Settings of a service that owns a MongoDB database and talks to NATS. */
export const StoreConfig = {
  MONGO_URL: Type.String({ pattern: '^mongodb(\\+srv)?://', description: 'MongoDB connection string of this service\'s own database' }),
  NATS_URL: Type.String({ minLength: 1, description: 'comma-separated NATS server URLs' }),
  NATS_PREFIX: Type.String({ pattern: '^[a-z][a-z0-9-]{0,31}$', default: 'gfts', description: 'prefix of every NATS subject and stream' }),
  ...NatsCredentialsConfig,
};

/**
 * Reads a configuration object from environment variables, applying defaults and
 * coercing numbers and booleans. Every wrong or missing setting is named at once, so an
 * operator fixes a deployment in one pass.
 */
export function loadConfig<P extends TProperties>(properties: P, env: Record<string, string | undefined> = process.env): Static<TObject<P>> {
  const schema = Type.Object(properties);
  const ajv = createAjv({ coerceTypes: true, useDefaults: true });
  const validate = ajv.compile(schema);
  const input: Record<string, unknown> = {};
  const notWhole: string[] = [];
  const unsafe: string[] = [];
  for (const key of Object.keys(properties)) {
    const raw = env[key];
    // blank is unset (a default applies, or a required setting is named missing)
    if (raw === undefined || raw.trim() === '') continue;
    // ajv's coercion takes what Number() takes ("0x1F90", "1e3", " 2 "): a whole number
    // setting takes decimal digits only, or a typo becomes a working value
    if ((properties[key] as { type?: unknown }).type === 'integer' && !/^-?\d+$/.test(raw)) notWhole.push(key);
    // past 2^53 a number is no longer exact ("9007199254740993" became …992) and one far past
    // it reached NATS or a timer as nonsense: refused here, named, like any other bound
    else if ((properties[key] as { type?: unknown }).type === 'integer' && !Number.isSafeInteger(Number(raw))) unsafe.push(key);
    else input[key] = raw;
  }
  if (!validate(input) || notWhole.length > 0 || unsafe.length > 0) {
    const problems = [
      ...notWhole.map((key) => `${key} must be a whole number in decimal digits (got ${JSON.stringify(env[key])})`),
      ...unsafe.map((key) => `${key} must be between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER} (got ${JSON.stringify(env[key])})`),
      ...(validate.errors ?? []).map((e) => {
        if (e.keyword === 'required') return `${String(e.params.missingProperty)} is required`;
        const key = e.instancePath.replace(/^\//, '');
        const described = (properties[key] as { description?: string } | undefined)?.description;
        return `${key} ${e.message ?? 'is invalid'}${described ? ` (${described})` : ''}`;
      }),
    ];
    throw new ConfigError(problems);
  }
  return input as Static<TObject<P>>;
}
