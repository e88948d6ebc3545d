import { Transform, type TransformCallback } from 'node:stream';
import { ErrorCode, Role } from '@gfts/contracts';
import { AppError } from '@gfts/platform';
import type { FastifyRequest } from 'fastify';

/** Whose bodies a route's larger limit is for: the role, and what its message calls them. */
export const LargeBodies = {
  catalogWrite: { role: Role.ADMIN, what: "an admin's catalog write" },
  statsReport: { role: Role.SERVER, what: "a game server's stats report" },
} as const;
export type LargeBodies = (typeof LargeBodies)[keyof typeof LargeBodies];

const tooLarge = (limit: number, whose: LargeBodies) =>
  new AppError(413, ErrorCode.PAYLOAD_TOO_LARGE, `the body is over ${limit} bytes (BODY_LIMIT_BYTES); only ${whose.what} takes more`);

/**
 * A preParsing hook for routes whose large body limit is one role's (the catalog's writes,
 * an admin's; the stats report, a game server's): any other caller keeps `limit`
 * (BODY_LIMIT_BYTES), checked before the body is read (its Content-Length) or while it is
 * (a chunked one). The gateway reads a body before the rate limit and the service's role
 * check run: without this any gamer, even one over budget, could make it read and parse 704
 * KiB a request (192 KiB on the stats path until 2026-11-28).
 */
export function onlyRoleBeyond(limit: number, whose: LargeBodies) {
  return async (request: FastifyRequest, _reply: unknown, payload: NodeJS.ReadableStream): Promise<NodeJS.ReadableStream> => {
    // the role in the path's application, where the path names one: an admin of another
    // application is refused by the service, so its body gets no larger limit either
    const application = (request.params as { applicationId?: string } | undefined)?.applicationId;
    const own = application === undefined || request.gamer?.applicationId === application.toLowerCase();
    if (own && request.gamer?.roles.includes(whose.role)) return payload;
    const announced = Number(request.headers['content-length']);
    if (announced > limit) throw tooLarge(limit, whose);
    let seen = 0;
    return payload.pipe(
      new Transform({
        transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
          seen += chunk.length;
          done(seen > limit ? tooLarge(limit, whose) : null, chunk);
        },
      }),
    );
  };
}
