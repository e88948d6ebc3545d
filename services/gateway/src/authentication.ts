import fastifyJwt, { type TokenOrHeader } from '@fastify/jwt';
import { check, knownRoles, notificationsRoutes, profileClaims, TokenClaims, type Identity } from '@gfts/contracts';
import { ConfigError, ExpiringCache, unauthorized } from '@gfts/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { acceptedAlgorithms, type GatewayConfig } from './config.ts';
import { startJwksRefresh } from './jwks-refresh.ts';
import { keyringFingerprint, selectKey, type Keyring } from './key-selection.ts';
import type { TicketSealer } from './tickets.ts';
import { keyFromPem, keyFromSecret } from './verification-keys.ts';

declare module 'fastify' {
  interface FastifyRequest {
    gamer: Identity | undefined;
  }
}

/** A token whose header names no usable key; its message is safe to show the caller. */
class KeyRefusedError extends Error {
  readonly code = 'GFTS_JWT_KEY_REFUSED';
}

/** What @fastify/jwt puts before the verifier's own sentence in an invalid token's message. */
const INVALID_PREFIX = 'Authorization token is invalid: ';

/**
 * Why a token was refused, in words safe to show the caller. An invalid token names what
 * the verifier (fast-jwt) found: its sentences describe the token only ("The token
 * signature is invalid.", "The aud claim value is not allowed.", "The exp claim is
 * required."), never a key or an accepted value, and they tell a studio's developer which of
 * their provider's settings to look at.
 */
function reason(error: unknown): string {
  if (error instanceof KeyRefusedError) return error.message;
  const { code = '', message = '' } = error as { code?: string; message?: string };
  if (code === 'FST_JWT_NO_AUTHORIZATION_IN_HEADER') return 'missing bearer token';
  if (code === 'FST_JWT_AUTHORIZATION_TOKEN_EXPIRED') return 'token expired';
  if (code === 'FST_JWT_BAD_REQUEST') return 'authorization header must be "Bearer <token>"';
  if (code === 'FAST_JWT_INACTIVE') return 'token not valid yet (nbf)';
  if (code === 'FST_JWT_AUTHORIZATION_TOKEN_INVALID' && message.startsWith(INVALID_PREFIX)) {
    const found = message.slice(INVALID_PREFIX.length).replace(/\.$/, '');
    return `invalid token: ${found.charAt(0).toLowerCase()}${found.slice(1)}`;
  }
  return 'invalid token';
}

export function identityFromClaims(payload: unknown): Identity | undefined {
  const result = check(TokenClaims, payload);
  if (!result.ok) return undefined;
  const claims = result.value;
  const optional = payload as { name?: unknown; picture?: unknown; roles?: unknown };
  return {
    gamerId: claims.sub.toLowerCase(),
    applicationId: claims.app.toLowerCase(),
    ...profileClaims(optional),
    roles: knownRoles(optional.roles),
  };
}

/**
 * The keys tokens are verified with: the single key of JWT_SECRET or JWT_PUBLIC_KEY, and
 * the key set of JWT_JWKS_FILE / JWT_JWKS_URL, kept fresh in the background until the app
 * closes. The returned function reads the keys of this moment.
 */
async function openKeyring(app: FastifyInstance, config: GatewayConfig): Promise<() => Keyring> {
  const accepted = acceptedAlgorithms(config);
  const single = config.JWT_SECRET ? keyFromSecret(config.JWT_SECRET) : config.JWT_PUBLIC_KEY ? keyFromPem(config.JWT_PUBLIC_KEY, accepted) : undefined;
  if (!config.JWT_JWKS_FILE && !config.JWT_JWKS_URL) return () => ({ single });
  const setting = config.JWT_JWKS_FILE ? 'JWT_JWKS_FILE' : 'JWT_JWKS_URL';
  let jwks;
  try {
    jwks = await startJwksRefresh({
      file: config.JWT_JWKS_FILE,
      url: config.JWT_JWKS_URL,
      refreshMs: config.JWT_JWKS_REFRESH_MS,
      timeoutMs: config.JWT_JWKS_TIMEOUT_MS,
      accepted,
      log: app.log.child({ module: 'jwks' }),
    });
  } catch (error) {
    // Without its keys the gateway would refuse every token while looking healthy: stop.
    throw new ConfigError([`${setting}: no usable key set at start (${(error as Error).message})`]);
  }
  app.addHook('onClose', async () => jwks.stop());
  return () => ({ single, jwks: jwks.current() });
}

/**
 * Whether a request is an API call, which needs a gamer: the route it matched says, not its
 * raw URL. The router matches the decoded path, so `/%61pi/v1/…` reaches an /api route while
 * its raw URL does not start with /api/. (A path no route takes is answered 404 before this.)
 */
export function isApiRequest(request: FastifyRequest): boolean {
  return request.routeOptions.url?.startsWith('/api/') === true;
}

/**
 * The ticket of a live-channel request that has no Authorization header: the one place a
 * ticket stands in for a bearer token (the header wins when both are sent).
 */
function liveTicket(request: FastifyRequest): unknown {
  if (request.routeOptions.url !== notificationsRoutes.live.url || request.headers.authorization !== undefined) return undefined;
  return (request.query as { ticket?: unknown }).ticket;
}

/**
 * Verifies the bearer JWT of every /api request: signature by the key the token's header
 * selects (key-selection.ts), with the algorithms that key may verify only (`alg: none`
 * and HMAC-with-public-key are refused), `exp` required, `iss`/`aud` when configured,
 * claims shaped as contracts/TokenClaims. Failure is a 401. On the live notification channel
 * a single-use ticket (tickets.ts) may stand in for the header.
 */
export const authentication = fp<{ config: GatewayConfig; tickets: TicketSealer }>(async (app: FastifyInstance, { config, tickets }) => {
  const keyring = await openKeyring(app, config);
  await app.register(fastifyJwt, {
    // The header is needed to pick the key, so the secret callback gets the decoded token whole.
    decode: { complete: true },
    secret: async (_request: FastifyRequest, token: TokenOrHeader) => {
      const selection = selectKey('header' in token ? token.header : {}, keyring());
      if ('refused' in selection) throw new KeyRefusedError(selection.refused);
      return selection.key.material;
    },
    verify: {
      algorithms: acceptedAlgorithms(config) as never,
      // fast-jwt checks allowedIss/allowedAud only on a token that carries the claim: a
      // configured issuer or audience must also be required, or a token without it passes.
      requiredClaims: ['exp', 'sub', 'app', ...(config.JWT_ISSUER ? ['iss'] : []), ...(config.JWT_AUDIENCE ? ['aud'] : [])],
      clockTolerance: config.JWT_CLOCK_TOLERANCE_MS,
      ...(config.JWT_ISSUER ? { allowedIss: config.JWT_ISSUER } : {}),
      ...(config.JWT_AUDIENCE ? { allowedAud: config.JWT_AUDIENCE } : {}),
    },
  });
  app.decorateRequest('gamer', undefined);
  // Verified bearer tokens, by their exact header, until their exp (JWT_CACHE_MAX; 0 = off).
  // A change of the key set drops them all: a token of a withdrawn key must fail at once.
  const verified = new ExpiringCache<Identity>(config.JWT_CACHE_MAX);
  let keysSeen: Keyring = keyring();
  let keysPrint = keyringFingerprint(keysSeen);
  const currentKeys = () => {
    const keys = keyring();
    // the key set's array is replaced on every reload; compare contents only then
    if (keys.jwks !== keysSeen.jwks || keys.single !== keysSeen.single) {
      const print = keyringFingerprint(keys);
      if (print !== keysPrint) verified.clear();
      keysSeen = keys;
      keysPrint = print;
    }
  };
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (!isApiRequest(request)) return;
    const ticket = liveTicket(request);
    if (ticket !== undefined) {
      const identity = typeof ticket === 'string' ? tickets.open(ticket) : undefined;
      if (!identity) throw unauthorized('invalid or expired ticket');
      request.gamer = identity;
      return;
    }
    const header = request.headers.authorization;
    currentKeys();
    const now = Date.now();
    const known = header === undefined ? undefined : verified.get(header, now);
    if (known) {
      request.gamer = known;
      return;
    }
    let payload: unknown;
    try {
      payload = await request.jwtVerify();
    } catch (error) {
      throw unauthorized(reason(error));
    }
    const identity = identityFromClaims(payload);
    if (!identity) throw unauthorized('token claims sub and app must be UUIDs');
    request.gamer = identity;
    // exp is required and checked by the verification above
    if (header !== undefined) verified.set(header, identity, (payload as { exp: number }).exp * 1000, Date.now());
  });
}, { name: 'authentication' });
