import { IDENTITY_AUDIENCE, IDENTITY_HEADER, knownRoles, Role, type Identity } from '@gfts/contracts';
import { createSigner, createVerifier } from 'fast-jwt';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { forbidden, unauthorized } from './errors.ts';
import { ExpiringCache } from './expiring-cache.ts';
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
/** An assertion is sent again while it has at least half its life left (see the signer). */
const ASSERTION_REUSE_MS = IDENTITY_TTL_MS / 2;

/**
 * Gateway side: turns a verified identity into the short-lived internal assertion. The
 * assertion of one identity object (the gateway keeps one per cached bearer token) is
 * signed once and sent again for ASSERTION_REUSE_MS, so every later request costs no HMAC
 * here and is an exact-string cache hit in the service (createIdentityVerifier). What a
 * replay of a captured assertion could do is unchanged: it is valid 60 s either way.
 */
export function createIdentitySigner(secret: string, clock: () => number = Date.now): (identity: Identity) => string {
  const sign = createSigner({ key: secret, algorithm: 'HS256', aud: IDENTITY_AUDIENCE });
  const signed = new WeakMap<Identity, { assertion: string; signedAtMs: number }>();
  return (identity) => {
    const now = clock();
    const kept = signed.get(identity);
    if (kept && now - kept.signedAtMs < ASSERTION_REUSE_MS) return kept.assertion;
    const assertion = sign({
      sub: identity.gamerId, app: identity.applicationId, name: identity.displayName, picture: identity.avatar, roles: identity.roles, tid: identity.ticketId,
      iat: Math.floor(now / 1000), exp: Math.floor((now + IDENTITY_TTL_MS) / 1000),
    });
    signed.set(identity, { assertion, signedAtMs: now });
    return assertion;
  };
}

/**
 * Service side: the only way a request gets an identity. A verified assertion is kept
 * under its exact text until its `exp` (bounded, least recently used first), so the same
 * assertion again costs a map lookup instead of a base64 decode, a JSON parse and an HMAC.
 */
export function createIdentityVerifier(secret: string, options: { cacheSize?: number; clock?: () => number } = {}): (token: string) => Identity {
  const clock = options.clock ?? Date.now;
  // aud required: fast-jwt checks allowedAud only when the claim is there, and every assertion has it
  const verify = createVerifier({ key: secret, algorithms: ['HS256'], allowedAud: IDENTITY_AUDIENCE, requiredClaims: ['exp', 'sub', 'app', 'aud'] });
  const verified = new ExpiringCache<Identity>(options.cacheSize ?? 10_000);
  return (token) => {
    const now = clock();
    const hit = verified.get(token, now);
    if (hit) return hit;
    const claims = verify(token) as { sub: unknown; app: unknown; name?: unknown; picture?: unknown; roles?: unknown; tid?: unknown; exp: number };
    if (!isUuid(claims.sub) || !isUuid(claims.app)) throw new Error('identity claims are not uuids');
    const identity: Identity = {
      gamerId: claims.sub.toLowerCase(),
      applicationId: claims.app.toLowerCase(),
      ...(typeof claims.name === 'string' ? { displayName: claims.name } : {}),
      ...(typeof claims.picture === 'string' ? { avatar: claims.picture } : {}),
      roles: knownRoles(claims.roles),
      ...(typeof claims.tid === 'string' ? { ticketId: claims.tid } : {}),
    };
    verified.set(token, identity, claims.exp * 1000, now);
    return identity;
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

/**
 * An onRequest hook: a game server's token (role server) is no gamer, and is refused 403
 * (`what`: what it may not do), before the body is read.
 */
export function refuseGameServers(what: string): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    if (request.identity.roles.includes(Role.SERVER)) throw forbidden(`a game server token cannot ${what}: it is no gamer`);
  };
}

/**
 * An onRequest hook: the token must be of the path's application, and hold `role` when one is
 * named, checked before the body is read or validated, so a caller without the right gets 403
 * whatever it sent (until 2026-11-29 these checks ran in the handlers, after validation: a
 * body the schema refused answered 400 with its errors first, and the status depended on the
 * body). A path whose applicationId is no UUID is left to the schema's 400.
 */
export function requirePathAccess(role?: Role): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    const { applicationId } = (request.params ?? {}) as { applicationId?: unknown };
    if (isUuid(applicationId)) requireApplication(request, applicationId);
    if (role) requireRole(request, role);
  };
}
