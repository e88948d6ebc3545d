import { Transform, type TransformCallback } from 'node:stream';
import { ErrorCode, Role } from '@gfts/contracts';
import { AppError } from '@gfts/platform';
import type { FastifyRequest } from 'fastify';

const tooLarge = (limit: number) =>
  new AppError(413, ErrorCode.PAYLOAD_TOO_LARGE, `the body is over ${limit} bytes (BODY_LIMIT_BYTES); only an admin's catalog write takes more`);

/**
 * A preParsing hook for routes whose large body limit is an admin's (the catalog's writes):
 * any other caller keeps `limit` (BODY_LIMIT_BYTES), checked before the body is read (its
 * Content-Length) or while it is (a chunked one). The gateway reads a body before the rate
 * limit and the service's role check run: without this any gamer, even one over budget,
 * could make it read and parse 704 KiB a request.
 */
export function adminOnlyBeyond(limit: number) {
  return async (request: FastifyRequest, _reply: unknown, payload: NodeJS.ReadableStream): Promise<NodeJS.ReadableStream> => {
    if (request.gamer?.roles.includes(Role.ADMIN)) return payload;
    const announced = Number(request.headers['content-length']);
    if (announced > limit) throw tooLarge(limit);
    let seen = 0;
    return payload.pipe(
      new Transform({
        transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
          seen += chunk.length;
          done(seen > limit ? tooLarge(limit) : null, chunk);
        },
      }),
    );
  };
}
