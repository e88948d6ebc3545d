import { BaseConfig, ConfigError, loadConfig, natsCredentialProblems, NatsCredentialsConfig } from '@gfts/platform';
import Type, { type Static, type TObject } from 'typebox';
import { keyFromPem } from './verification-keys.ts';

const GatewaySettings = {
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  ...BaseConfig,
  FRIENDSHIP_URL: Type.String({ pattern: '^https?://', description: 'base URL of the friendship service' }),
  TASKS_URL: Type.String({ pattern: '^https?://', description: 'base URL of the tasks service' }),
  NOTIFICATIONS_URL: Type.Optional(Type.String({ pattern: '^https?://', description: 'base URL of the notifications service; unset: /api/v1/notifications is not served' })),
  CORS_ORIGINS: Type.Optional(Type.String({ pattern: '^(\\*|https?://[^,/\\s]+(,https?://[^,/\\s]+)*)$', description: 'origins (scheme://host[:port], comma-separated) whose browser pages may call the API, or * for any; unset: same-origin only' })),
  LIVE_IDLE_TIMEOUT_MS: Type.Integer({ minimum: 1_000, maximum: 3_600_000, default: 75_000, description: 'a live-channel pipe on which the notifications service sent nothing for this long is cut; it pings each NOTIFY_HEARTBEAT_MS (30 s), so keep this above that, about 2.5 heartbeats' }),
  NOTIFY_TICKET_TTL_MS: Type.Integer({ minimum: 1_000, maximum: 30_000, default: 30_000, description: 'life of a live-channel ticket (at most 30 s)' }),
  JWT_SECRET: Type.Optional(Type.String({ minLength: 32, description: 'HS256 secret (development); alone, without any other key setting' })),
  JWT_PUBLIC_KEY: Type.Optional(Type.String({ pattern: '-----BEGIN PUBLIC KEY-----', description: 'PEM public key for RS256/ES256 (production)' })),
  JWT_JWKS_FILE: Type.Optional(Type.String({ minLength: 1, description: 'path of a JWKS document (JSON Web Key Set), re-read every JWT_JWKS_REFRESH_MS' })),
  JWT_JWKS_URL: Type.Optional(Type.String({ pattern: '^https?://', description: 'URL of a JWKS document, fetched every JWT_JWKS_REFRESH_MS' })),
  JWT_JWKS_REFRESH_MS: Type.Integer({ minimum: 100, maximum: 86_400_000, default: 300_000, description: 'interval between two loads of the key set' }),
  JWT_JWKS_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 5_000, description: 'time one fetch of JWT_JWKS_URL may take' }),
  JWT_ALGORITHMS: Type.Optional(Type.String({ pattern: '^(HS256|RS256|ES256|PS256|EdDSA)(,(HS256|RS256|ES256|PS256|EdDSA))*$', description: 'comma-separated accepted algorithms' })),
  JWT_ISSUER: Type.Optional(Type.String({ minLength: 1, description: 'required iss claim' })),
  JWT_AUDIENCE: Type.Optional(Type.String({ minLength: 1, description: 'required aud claim' })),
  JWT_CLOCK_TOLERANCE_MS: Type.Integer({ minimum: 0, maximum: 300_000, default: 30_000, description: 'leeway on a token\'s nbf and exp for clocks that differ between the identity provider and the gateway (a token signed with nbf = now is refused while the gateway\'s clock is behind)' }),
  JWT_CACHE_MAX: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 10_000, description: 'verified bearer tokens kept until their exp (least recently used out first; dropped when the keys change); 0 turns the cache off' }),
  RATE_LIMIT_MAX: Type.Integer({ minimum: 1, default: 600, description: 'requests per gamer per window (a request without a valid token is refused 401 before it is counted: limit those per address at the ingress, docs/operations.md)' }),
  RATE_LIMIT_SERVER_MAX: Type.Integer({ minimum: 1, default: 60_000, description: 'requests per game-server identity (role server) per window: one identity often reports the stats of a whole fleet' }),
  RATE_LIMIT_IN_FLIGHT_MAX: Type.Integer({ minimum: 1, maximum: 10_000, default: 16, description: 'requests of one gamer a gateway replica serves at once; more answer 429 (game-server identities and live sockets are not counted)' }),
  RATE_LIMIT_WINDOW_MS: Type.Integer({ minimum: 1000, maximum: 86_400_000, default: 60_000, description: 'rate-limit window' }),
  RATE_LIMIT_STORE: Type.Optional(Type.Enum(['local', 'nats'], { description: 'where the counters live: nats (shared by every replica; the default when NATS_URL is set) or local (per replica)' })),
  NATS_URL: Type.Optional(Type.String({ minLength: 1, description: 'comma-separated NATS server URLs, for the shared rate-limit counters' })),
  // the NATS user `gateway` may use the rate-limit bucket and nothing else
  ...NatsCredentialsConfig,
  RATE_LIMIT_STORE_TIMEOUT_MS: Type.Integer({ minimum: 5, maximum: 1000, default: 100, description: 'bound on one shared-counter check; beyond it the replica limits locally' }),
  RATE_LIMIT_LOCAL_KEYS_MAX: Type.Integer({ minimum: 100, maximum: 1_000_000, default: 10_000, description: 'gamers whose requests a replica counts itself in a window (its fallback when the shared store is away, and the start of any fallback), and whose shared-budget leases it keeps; past it the gamer first seen is dropped and counts from 1 again, and the lease taken longest ago goes with its unused slots. ~1 KB of heap each' }),
  RATE_LIMIT_LEASE_MAX: Type.Integer({ minimum: 1, maximum: 10_000, default: 64, description: 'most slots of a gamer\'s shared budget a replica takes ahead in one update (1: one round trip per request)' }),
  RATE_LIMIT_LEASE_FIRST: Type.Integer({ minimum: 1, maximum: 10_000, default: 4, description: 'slots a replica takes in a gamer\'s first update of a window (at most RATE_LIMIT_LEASE_MAX); each next update of the window takes twice as many' }),
  RATE_LIMIT_KV_REPLICAS: Type.Integer({ minimum: 1, maximum: 5, default: 1, description: 'NATS servers holding the counters\' bucket, when the gateway creates it' }),
  UPSTREAM_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 10_000, description: 'time an upstream service has to answer' }),
  UPSTREAM_CONNECTIONS: Type.Integer({ minimum: 1, maximum: 4096, default: 128, description: 'keep-alive connections the gateway holds open to each upstream service, at most' }),
  UPSTREAM_CONNECTION_MAX_AGE_MS: Type.Integer({
    minimum: 1_000,
    maximum: 3_600_000,
    default: 30_000,
    description: 'a keep-alive connection to an upstream service older than this is not used again (closed once idle), so new connections spread over replicas added since (the cluster balances per connection)',
  }),
  CONSOLE_ENABLED: Type.Boolean({ default: true, description: 'serve the admin console at /console (false: /console answers 404)' }),
  CONSOLE_DIR: Type.Optional(Type.String({ minLength: 1, description: 'directory of the built admin console (default: apps/console/dist of this checkout or image)' })),
  CONSOLE_TOKEN_SIGN_IN: Type.Boolean({ default: true, description: 'the console accepts a pasted bearer token (turn off where only OIDC may sign in)' }),
  CONSOLE_OIDC_AUTHORIZATION_URL: Type.Optional(Type.String({ pattern: '^https?://', description: 'OIDC authorization endpoint of the studio\'s identity provider' })),
  CONSOLE_OIDC_TOKEN_URL: Type.Optional(Type.String({ pattern: '^https?://', description: 'its token endpoint' })),
  CONSOLE_OIDC_CLIENT_ID: Type.Optional(Type.String({ minLength: 1, description: 'the console\'s public client id (no secret: PKCE)' })),
  CONSOLE_OIDC_SCOPE: Type.String({ minLength: 1, default: 'openid', description: 'scopes the console asks for' }),
  CONSOLE_OIDC_AUDIENCE: Type.Optional(Type.String({ minLength: 1, description: 'audience parameter of the authorization request, for providers that need one' })),
  CONSOLE_OIDC_TOKEN_FIELD: Type.Enum(['access_token', 'id_token'], { default: 'access_token', description: 'the token response field the console calls the API with' }),
};
type Settings = Static<TObject<typeof GatewaySettings>>;
export type GatewayConfig = Omit<Settings, 'RATE_LIMIT_STORE'> & { RATE_LIMIT_STORE: 'local' | 'nats' };

export function readGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  const config = loadConfig(GatewaySettings, env);
  const problems = [...keySettingProblems(config), ...natsCredentialProblems(config)];
  if (config.RATE_LIMIT_STORE === 'nats' && !config.NATS_URL) problems.push('RATE_LIMIT_STORE=nats needs NATS_URL');
  // whoever signs players' tokens could otherwise sign identity assertions the services trust
  if (config.JWT_SECRET !== undefined && config.JWT_SECRET === config.INTERNAL_TOKEN_SECRET) problems.push('JWT_SECRET and INTERNAL_TOKEN_SECRET must differ');
  const oidc = [config.CONSOLE_OIDC_AUTHORIZATION_URL, config.CONSOLE_OIDC_TOKEN_URL, config.CONSOLE_OIDC_CLIENT_ID].filter(Boolean).length;
  if (oidc > 0 && oidc < 3) problems.push('console OIDC needs all of CONSOLE_OIDC_AUTHORIZATION_URL, CONSOLE_OIDC_TOKEN_URL and CONSOLE_OIDC_CLIENT_ID');
  // the pattern takes `https://` or a port of 80443; the console's security policy parses the
  // token URL at start (a TypeError that named no setting), the browser the other at sign-in
  for (const key of ['CONSOLE_OIDC_AUTHORIZATION_URL', 'CONSOLE_OIDC_TOKEN_URL'] as const) {
    if (config[key] !== undefined && !URL.canParse(config[key])) problems.push(`${key} is not a URL (got ${JSON.stringify(config[key])})`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  // Shared when the gateway can reach NATS: per-replica limits multiply with the replica count.
  return { ...config, RATE_LIMIT_STORE: config.RATE_LIMIT_STORE ?? (config.NATS_URL ? 'nats' : 'local') };
}

/**
 * The verification keys come from JWT_SECRET alone (development), or from JWT_PUBLIC_KEY
 * and/or one key set (JWT_JWKS_FILE or JWT_JWKS_URL). A secret never sits next to public
 * keys: HMAC and public-key verification in one gateway is how algorithm confusion starts.
 */
function keySettingProblems(config: Settings): string[] {
  const publicKeySources = [config.JWT_PUBLIC_KEY, config.JWT_JWKS_FILE, config.JWT_JWKS_URL].filter(Boolean).length;
  if (config.JWT_SECRET && publicKeySources > 0) return ['JWT_SECRET (HS256) must be set alone, without JWT_PUBLIC_KEY, JWT_JWKS_FILE or JWT_JWKS_URL'];
  if (!config.JWT_SECRET && publicKeySources === 0) return ['a verification key is required: JWT_SECRET (HS256, development), or JWT_PUBLIC_KEY and/or JWT_JWKS_FILE or JWT_JWKS_URL'];
  if (config.JWT_JWKS_FILE && config.JWT_JWKS_URL) return ['set one of JWT_JWKS_FILE and JWT_JWKS_URL, not both'];
  const algorithms = acceptedAlgorithms(config);
  const symmetric = algorithms.filter((a) => a.startsWith('HS'));
  if (config.JWT_SECRET && symmetric.length !== algorithms.length) return ['JWT_ALGORITHMS must be HS256 with JWT_SECRET'];
  if (!config.JWT_SECRET && symmetric.length > 0) return ['JWT_ALGORITHMS must not include HS256 with JWT_PUBLIC_KEY or a key set'];
  if (config.JWT_PUBLIC_KEY) {
    try {
      keyFromPem(config.JWT_PUBLIC_KEY, algorithms);
    } catch (error) {
      return [`JWT_PUBLIC_KEY is unusable: ${(error as Error).message}`];
    }
  }
  return [];
}

/** Algorithms the gateway accepts; never `none`, and never HMAC with a public key. */
export function acceptedAlgorithms(config: Pick<GatewayConfig, 'JWT_SECRET' | 'JWT_ALGORITHMS'>): string[] {
  if (config.JWT_ALGORITHMS) return config.JWT_ALGORITHMS.split(',');
  return config.JWT_SECRET ? ['HS256'] : ['RS256', 'ES256'];
}
