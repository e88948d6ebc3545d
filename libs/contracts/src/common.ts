import Type, { type Static } from 'typebox';

/** Every identifier of the service is a UUID string (spec section 2). */
export const Uuid = Type.String({ format: 'uuid', description: 'UUID' });
export const DateTime = Type.String({ format: 'date-time', description: 'ISO 8601 date-time, UTC' });

/** Success body of every state-changing friendship operation (spec 4.1). */
export const OkResponse = Type.Object({ ok: Type.Boolean() }, { additionalProperties: false });
export type OkResponse = Static<typeof OkResponse>;

/** Paging of list endpoints; the next page is announced in an RFC 8288 Link header. */
export const PageQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'page size (default 50)' })),
    // The cursor is base64url (unpadded) of 16 bytes: 22 characters, the last one carrying two
    // bits and four zero bits, so only A, Q, g or w. Anything else the service refuses (400).
    cursor: Type.Optional(
      Type.String({ minLength: 22, maxLength: 22, pattern: '^[A-Za-z0-9_-]{21}[AQgw]$', description: 'opaque cursor from a Link: rel="next" header' }),
    ),
  },
  { additionalProperties: false },
);
export type PageQuery = Static<typeof PageQuery>;

export const DEFAULT_PAGE_SIZE = 50;

/** GET /healthz and /readyz bodies. */
export const HealthResponse = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  checks: Type.Optional(Type.Record(Type.String(), Type.Union([Type.Literal('ok'), Type.Literal('failed')]))),
});
export type HealthResponse = Static<typeof HealthResponse>;
