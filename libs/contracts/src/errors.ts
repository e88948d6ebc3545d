import Type, { type Static } from 'typebox';

/**
 * Stable machine-readable error codes, sent as `code` in every problem+json body.
 * Clients switch on these, never on `title` or `detail`, so a code is never renamed.
 */
export const ErrorCode = {
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  RATE_LIMITED: 'RATE_LIMITED',
  /** the request's headers and body did not arrive within the server's REQUEST_TIMEOUT_MS */
  REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  /** the request's headers are larger than the server reads */
  HEADERS_TOO_LARGE: 'HEADERS_TOO_LARGE',
  /** not an HTTP/1.1 request the server can parse */
  MALFORMED_REQUEST: 'MALFORMED_REQUEST',
  CONFLICT: 'CONFLICT',
  INTERNAL: 'INTERNAL',
  UPSTREAM_UNAVAILABLE: 'UPSTREAM_UNAVAILABLE',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  /** a WebSocket path asked without the upgrade */
  UPGRADE_REQUIRED: 'UPGRADE_REQUIRED',
  // friendship
  CANNOT_TARGET_SELF: 'CANNOT_TARGET_SELF',
  ALREADY_FRIENDS: 'ALREADY_FRIENDS',
  BLOCKED: 'BLOCKED',
  FRIEND_LIMIT_REACHED: 'FRIEND_LIMIT_REACHED',
  PENDING_LIMIT_REACHED: 'PENDING_LIMIT_REACHED',
  BLOCK_LIMIT_REACHED: 'BLOCK_LIMIT_REACHED',
  // tasks
  TASK_NOT_COMPLETED: 'TASK_NOT_COMPLETED',
  ALREADY_CLAIMED: 'ALREADY_CLAIMED',
  IDEMPOTENCY_KEY_REUSED: 'IDEMPOTENCY_KEY_REUSED',
  NOT_ENOUGH_TASKS: 'NOT_ENOUGH_TASKS',
  /** the application's catalog holds CATALOG_MAX_TASKS live tasks already */
  CATALOG_FULL: 'CATALOG_FULL',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** RFC 9457 problem details, the body of every 4xx and 5xx answer. */
/** The most validation failures a problem's `errors[]` lists (libs/platform errors.ts). */
export const PROBLEM_ERRORS_MAX = 20;

export const Problem = Type.Object(
  {
    type: Type.String({ description: 'URI reference naming the problem type' }),
    title: Type.String(),
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    detail: Type.Optional(Type.String()),
    // an enum, so a typed client can switch over every code (docs/client.md, Error codes)
    code: Type.Enum(Object.values(ErrorCode), { description: 'stable error code; what each means and what a client does: docs/client.md, Error codes' }),
    instance: Type.Optional(Type.String()),
    requestId: Type.Optional(Type.String()),
    errors: Type.Optional(
      Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), { maxItems: PROBLEM_ERRORS_MAX, description: `validation failures, the first ${PROBLEM_ERRORS_MAX} (the detail counts them all when there are more)` }),
    ),
  },
  { $id: 'Problem' },
);
export type Problem = Static<typeof Problem>;

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** The `type` URI of a code; relative, resolvable against the docs site. */
export function problemType(code: ErrorCode | string): string {
  return `/problems/${code.toLowerCase().replaceAll('_', '-')}`;
}
