import { IDENTITY_AUDIENCE, IDENTITY_HEADER, knownRoles, type Identity, type Role } from '@gfts/contracts';
import { createSigner, createVerifier } from 'fast-jwt';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { forbidden, unauthorized } from './errors.ts';
import { isUuid } from './ids.ts';

declare module 'fastify' {
  interface FastifyRequest {
    identity: Identity;
  }
  interface FastifyContextConfig {
    /** false for routes any caller may reach (health, metrics) */
    auth?: boolean;
  }
}

const IDENTITY_TTL_MS = 60_000;

/** Gateway side: turns a verified identity into the short-lived internal assertion. */
export function createIdentitySigner(secret: string): (identity: Identity) => string {
  const sign = createSigner({ key: secret, algorithm: 'HS256', expiresIn: IDENTITY_TTL_MS, aud: IDENTITY_AUDIENCE });
  return (identity) =>
    sign({ sub: identity.gamerId, app: identity.applicationId, name: identity.displayName, picture: identity.avatar, roles: identity.roles, tid: identity.ticketId });
}

/** Service side: the only way a request gets an identity. */
export function createIdentityVerifier(secret: string): (token: string) => Identity {
  const verify = createVerifier({ key: secret, algorithms: ['HS256'], allowedAud: IDENTITY_AUDIENCE, requiredClaims: ['exp', 'sub', 'app'], cache: 1000 });
  return (token) => {
    const claims = verify(token) as { sub: unknown; app: unknown; name?: unknown; picture?: unknown; roles?: unknown; tid?: unknown };
    if (!isUuid(claims.sub) || !isUuid(claims.app)) throw new Error('identity claims are not uuids');
    return {
      gamerId: claims.sub.toLowerCase(),
      applicationId: claims.app.toLowerCase(),
      ...(typeof claims.name === 'string' ? { displayName: claims.name } : {}),
      ...(typeof claims.picture === 'string' ? { avatar: claims.picture } : {}),
      roles: knownRoles(claims.roles),
      ...(typeof claims.tid === 'string' ? { ticketId: claims.tid } : {}),
    };
  };
}

/**
 * Requires the gateway's identity assertion on every route not marked `config.auth: false`.
 * A request that reaches a service directly, with no assertion or a forged one, gets 401.
 */
export const identityPlugin = fp<{ secret: string }>(async (app: FastifyInstance, opts) => {
  const verify = createIdentityVerifier(opts.secret);
  app.decorateRequest('identity', null as unknown as Identity);
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config?.auth === false) return;
    const header = request.headers[IDENTITY_HEADER];
    if (typeof header !== 'string' || header.length === 0) throw unauthorized('missing identity; call through the gateway');
    try {
      request.identity = verify(header);
    } catch {
      throw unauthorized('invalid identity assertion');
    }
  });
}, { name: 'identity' });

/** Authorization helpers for handlers: the caller's application must be the path's. */
export function requireApplication(request: FastifyRequest, applicationId: string): void {
  if (request.identity.applicationId !== applicationId.toLowerCase()) throw forbidden('token belongs to another application');
}

export function requireRole(request: FastifyRequest, role: Role): void {
  if (!request.identity.roles.includes(role)) throw forbidden(`role '${role}' required`);
}
