import Type, { type Static } from 'typebox';
import { Uuid } from './common.ts';

/** Roles a token may carry beyond a plain gamer's. */
export const Role = { ADMIN: 'admin', SERVER: 'server' } as const;
export type Role = (typeof Role)[keyof typeof Role];

const ROLES = new Set<string>(Object.values(Role));

/** The roles of a token that mean something here; unknown ones are ignored, not refused. */
export function knownRoles(value: unknown): Role[] {
  return Array.isArray(value) ? (value.filter((r) => typeof r === 'string' && ROLES.has(r)) as Role[]) : [];
}

/**
 * Claims of the bearer JWT a client presents to the gateway (design.md "Identity").
 * `sub` is the gamerId and `app` the applicationId; `exp` is required.
 */
export const TokenClaims = Type.Object({
  sub: Uuid,
  app: Uuid,
  exp: Type.Integer(),
  name: Type.Optional(Type.String({ maxLength: 64 })),
  picture: Type.Optional(Type.String({ maxLength: 2048 })),
  roles: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 16 })),
  iss: Type.Optional(Type.String()),
  aud: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
  iat: Type.Optional(Type.Integer()),
});
export type TokenClaims = Static<typeof TokenClaims>;

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

/** Headers a caller might use to smuggle identity; the gateway drops them all. */
export const FORGEABLE_IDENTITY_HEADERS = [
  IDENTITY_HEADER,
  'x-user-id',
  'x-gamer-id',
  'x-application-id',
  'x-app-id',
  'x-roles',
  'x-forwarded-user',
  'x-auth-request-user',
  'x-remote-user',
] as const;
