import Type, { type Static } from 'typebox';
import { Uuid } from './common.ts';

/** Roles a token may carry beyond a plain gamer's. */
export const Role = { ADMIN: 'admin', SERVER: 'server' } as const;
export type Role = (typeof Role)[keyof typeof Role];

const ROLES = new Set<string>(Object.values(Role));

/** The roles of a token that mean something here; unknown ones are ignored, not refused. */
export function knownRoles(value: unknown): Role[] {
  return Array.isArray(value) ? ([...new Set(value.filter((r) => typeof r === 'string' && ROLES.has(r)))] as Role[]) : [];
}

/**
 * The claims of the bearer JWT a client presents to the gateway that it must carry
 * (design.md "Identity"), checked strictly: `sub` is the gamerId and `app` the
 * applicationId; `exp` is required. The profile claims (`name`, `picture`) and `roles` are
 * read leniently (profileClaims, knownRoles): an identity provider's long display name or
 * namespaced roles must not lock a player out.
 */
export const TokenClaims = Type.Object({
  sub: Uuid,
  app: Uuid,
  exp: Type.Integer(),
});
export type TokenClaims = Static<typeof TokenClaims>;

/** Longest `name` kept (a display name's bound) and `picture` taken (a URL's). */
export const NAME_CLAIM_MAX = 64;
export const PICTURE_CLAIM_MAX = 2048;

/**
 * The profile a token's claims give: `name` cut to NAME_CLAIM_MAX characters, `picture`
 * when a string of at most PICTURE_CLAIM_MAX (a URL cut short would be broken), anything
 * else ignored as if absent (the stored profile then stays as it is).
 */
export function profileClaims(claims: { name?: unknown; picture?: unknown }): { displayName?: string; avatar?: string } {
  const profile: { displayName?: string; avatar?: string } = {};
  if (typeof claims.name === 'string') profile.displayName = [...claims.name].slice(0, NAME_CLAIM_MAX).join('');
  if (typeof claims.picture === 'string' && claims.picture.length <= PICTURE_CLAIM_MAX) profile.avatar = claims.picture;
  return profile;
}

/** The verified identity the gateway passes to a service. */
export interface Identity {
  gamerId: string;
  applicationId: string;
  displayName?: string;
  avatar?: string;
  roles: Role[];
  /**
   * Set when the gateway authenticated the request with a single-use ticket (the live
   * notification channel): the service that honours it records the id as used, once.
   */
  ticketId?: string;
}

/**
 * Header carrying the gateway-signed identity assertion (a short-lived HS256 JWT signed
 * with the internal secret shared by the gateway and the services). The gateway removes
 * any value a caller sends; services accept identity from nowhere else.
 */
export const IDENTITY_HEADER = 'x-gfts-identity';
export const IDENTITY_AUDIENCE = 'gfts-internal';
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * Headers a caller might use to smuggle identity; the gateway drops them all, and every
 * header of the project's own `x-gfts-` prefix (IDENTITY_HEADER_PREFIX) as well: the next
 * one a service reads must not be a caller's to set.
 */
export const FORGEABLE_IDENTITY_HEADERS = [
  IDENTITY_HEADER,
  'x-user-id',
  'x-gamer-id',
  'x-application-id',
  'x-app-id',
  'x-roles',
  'x-forwarded-user',
  'x-forwarded-email',
  'x-forwarded-preferred-username',
  'x-auth-request-user',
  'x-auth-request-email',
  'x-auth-request-preferred-username',
  'x-authenticated-user',
  'x-remote-user',
  'remote-user',
] as const;
/** The prefix of the project's own headers between the gateway and the services: a caller's never reach them. */
export const IDENTITY_HEADER_PREFIX = 'x-gfts-';
