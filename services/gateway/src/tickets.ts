import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { knownRoles, type Identity } from '@gfts/contracts';
import { isUuid } from '@gfts/platform';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

interface TicketPayload {
  /** ticket id: what the notifications service records as used */
  i: string;
  /** expiry, epoch milliseconds */
  e: number;
  s: string;
  a: string;
  r?: string[];
}

export interface IssuedTicket {
  ticket: string;
  expiresAt: Date;
}

/**
 * Single-use tickets for the live notification channel (issue 12: browsers cannot set an
 * Authorization header on a WebSocket, and the JWT itself must never sit in a URL). A
 * ticket is the gamer's ids, a random ticket id and an expiry, sealed with AES-256-GCM under
 * a key derived from INTERNAL_TOKEN_SECRET: opaque to whoever sees the URL, unforgeable,
 * and readable by every gateway replica without shared state. Single use is the
 * notifications service's part: the first socket a ticket opens records its id there.
 */
export function ticketSealer(internalSecret: string, ttlMs: number, clock: () => number = Date.now) {
  const key = Buffer.from(hkdfSync('sha256', internalSecret, 'gfts', 'notification-ticket-v1', 32));
  return {
    issue(identity: Identity): IssuedTicket {
      const expiresAt = clock() + ttlMs;
      const payload: TicketPayload = { i: randomBytes(16).toString('base64url'), e: expiresAt, s: identity.gamerId, a: identity.applicationId };
      if (identity.roles.length > 0) payload.r = identity.roles;
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      const sealed = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
      return { ticket: Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString('base64url'), expiresAt: new Date(expiresAt) };
    },

    /** The identity a ticket stands for, with its ticket id; undefined for anything forged, damaged or expired. */
    open(ticket: string): Identity | undefined {
      const bytes = Buffer.from(ticket, 'base64url');
      if (bytes.length <= NONCE_BYTES + TAG_BYTES) return undefined;
      let payload: TicketPayload;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, NONCE_BYTES));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        const plain = Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
        payload = JSON.parse(plain.toString('utf8')) as TicketPayload;
      } catch {
        return undefined;
      }
      if (typeof payload.e !== 'number' || payload.e <= clock() || typeof payload.i !== 'string') return undefined;
      if (!isUuid(payload.s) || !isUuid(payload.a)) return undefined;
      return { gamerId: payload.s, applicationId: payload.a, roles: knownRoles(payload.r), ticketId: payload.i };
    },
  };
}
export type TicketSealer = ReturnType<typeof ticketSealer>;
