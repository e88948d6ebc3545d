import { createHash } from 'node:crypto';

/**
 * The id of the gamer task that tracks an achievement (or a child of one) for a gamer:
 * derived from what identifies it, so every replica that creates it at the same time
 * writes the same document and all but one insert are refused by its primary key. An RFC
 * 9562 version 8 (custom) UUID.
 */
export function trackedTaskId(applicationId: string, gamerId: string, taskId: string): string {
  const h = createHash('sha256').update(`${applicationId}|${gamerId}|${taskId}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
