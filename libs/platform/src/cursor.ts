import { badRequest } from './errors.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Paging cursors (friend lists, the notification inbox) are the last id of the previous page (uuidv7 ids sort by creation time,
 * so "after this id" is a stable position even while entries come and go), as base64url
 * of its 16 bytes: opaque to clients, so the encoding can change without breaking them.
 */
export function encodeCursor(lastId: string): string {
  if (!UUID.test(lastId)) throw new Error(`cursor id is not a lower-case uuid: ${lastId}`);
  return Buffer.from(lastId.replaceAll('-', ''), 'hex').toString('base64url');
}

/**
 * The id a cursor stands for; anything that is not a cursor's shape is a 400. A well-formed
 * one we did not make is read as the position it encodes (only ever in the caller's own list).
 */
export function decodeCursor(cursor: string): string {
  const bytes = Buffer.from(cursor, 'base64url');
  // Node decodes leniently; re-encoding rejects padding, stray characters and wrong lengths.
  if (bytes.length !== 16 || bytes.toString('base64url') !== cursor) throw badRequest('malformed paging cursor');
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
