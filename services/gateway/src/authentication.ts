import fastifyJwt, { type TokenOrHeader } from '@fastify/jwt';
import { check, knownRoles, TokenClaims, type Identity } from '@gfts/contracts';
import { ConfigError, unauthorized } from '@gfts/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { acceptedAlgorithms, type GatewayConfig } from './config.ts';
import { startJwksRefresh } from './jwks-refresh.ts';
import { selectKey, type Keyring } from './key-selection.ts';
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

/** Why a token was refused, in words safe to show the caller. */
function reason(error: unknown): string {
  if (error instanceof KeyRefusedError) return error.message;
  const code = (error as { code?: string }).code ?? '';
  if (code === 'FST_JWT_NO_AUTHORIZATION_IN_HEADER') return 'missing bearer token';
  if (code === 'FST_JWT_AUTHORIZATION_TOKEN_EXPIRED') return 'token expired';
  if (code === 'FST_JWT_BAD_REQUEST') return 'authorization header must be "Bearer <token>"';
  return 'invalid token';
}

export function identityFromClaims(payload: unknown): Identity | undefined {
  const result = check(TokenClaims, payload);
  if (!result.ok) return undefined;
  const claims = result.value;
  return {
    gamerId: claims.sub.toLowerCase(),
    applicationId: claims.app.toLowerCase(),
    ...(claims.name !== undefined ? { displayName: claims.name } : {}),
    ...(claims.picture !== undefined ? { avatar: claims.picture } : {}),
    roles: knownRoles(claims.roles),
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
 * Verifies the bearer JWT of every /api request: signature by the key the token's header
 * selects (key-selection.ts), with the algorithms that key may verify only (`alg: none`
 * and HMAC-with-public-key are refused), `exp` required, `iss`/`aud` when configured,
 * claims shaped as contracts/TokenClaims. Failure is a 401.
 */
export const authentication = fp<{ config: GatewayConfig }>(async (app: FastifyInstance, { config }) => {
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
      requiredClaims: ['exp', 'sub', 'app'],
      ...(config.JWT_ISSUER ? { allowedIss: config.JWT_ISSUER } : {}),
      ...(config.JWT_AUDIENCE ? { allowedAud: config.JWT_AUDIENCE } : {}),
    },
  });
  app.decorateRequest('gamer', undefined);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (!request.url.startsWith('/api/')) return;
    let payload: unknown;
    try {
      payload = await request.jwtVerify();
    } catch (error) {
      throw unauthorized(reason(error));
    }
    const identity = identityFromClaims(payload);
    if (!identity) throw unauthorized('token claims sub and app must be UUIDs');
    request.gamer = identity;
  });
}, { name: 'authentication' });
