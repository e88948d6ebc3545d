import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ticketSealer } from '../../src/tickets.ts';

const SECRET = 'unit-test-internal-secret-unit-test-internal';

describe('live-channel tickets', () => {
  const gamer = { gamerId: randomUUID(), applicationId: randomUUID(), displayName: 'Ann', roles: [] };

  it('open to the gamer\'s ids and a ticket id, and reveal neither', () => {
    const sealer = ticketSealer(SECRET, 30_000);
    const { ticket } = sealer.issue(gamer);
    expect(ticket).not.toContain(gamer.gamerId);
    expect(Buffer.from(ticket, 'base64url').toString('latin1')).not.toContain(gamer.gamerId);
    const opened = sealer.open(ticket);
    expect(opened).toEqual({ gamerId: gamer.gamerId, applicationId: gamer.applicationId, roles: [], ticketId: expect.any(String) });
    expect(sealer.open(sealer.issue(gamer).ticket)?.ticketId).not.toBe(opened?.ticketId);
  });

  it('expire after their life', () => {
    let now = 1_000_000;
    const sealer = ticketSealer(SECRET, 30_000, () => now);
    const { ticket, expiresAt } = sealer.issue(gamer);
    expect(expiresAt.getTime()).toBe(1_030_000);
    now += 29_999;
    expect(sealer.open(ticket)).toBeDefined();
    now += 1;
    expect(sealer.open(ticket)).toBeUndefined();
  });

  it('refuse anything altered, truncated or sealed under another secret', () => {
    const sealer = ticketSealer(SECRET, 30_000);
    const { ticket } = sealer.issue(gamer);
    const bytes = Buffer.from(ticket, 'base64url');
    bytes[20]! ^= 1;
    expect(sealer.open(bytes.toString('base64url'))).toBeUndefined();
    expect(sealer.open(ticket.slice(0, 30))).toBeUndefined();
    expect(sealer.open('')).toBeUndefined();
    expect(ticketSealer(`${SECRET}-other`, 30_000).open(ticket)).toBeUndefined();
  });
});
