import fastifyJwt from '@fastify/jwt';
import { check, knownRoles, TokenClaims, type Identity } from '@gfts/contracts';
import { unauthorized } from '@gfts/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { acceptedAlgorithms, type GatewayConfig } from './config.ts';

declare module 'fastify' {
  interface FastifyRequest {
    gamer: Identity | undefined;
  }
}

/** Why a token was refused, in words safe to show the caller. */
function reason(error: unknown): string {
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
 * Verifies the bearer JWT of every /api request: signature with the configured algorithms
 * only (`alg: none` and HMAC-with-public-key are refused), `exp` required, `iss`/`aud`
 * when configured, claims shaped as contracts/TokenClaims. Failure is a 401.
 */
export const authentication = fp<{ config: GatewayConfig }>(async (app: FastifyInstance, { config }) => {
  await app.register(fastifyJwt, {
    secret: config.JWT_SECRET ?? { public: config.JWT_PUBLIC_KEY!, private: '' },
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
