import { isDuplicateKey, type Store } from './store.ts';

export type TicketClaim = { kind: 'claimed' } | { kind: 'alreadyUsed' };

/**
 * Single use of the gateway's tickets, across every gateway and notifications replica: the
 * first socket a ticket opens inserts its id under the unique _id, any later one collides.
 */
export function ticketLedger(store: Store, clock: () => Date = () => new Date()) {
  const { usedTickets } = store;
  return {
    async claim(ticketId: string, expiresAt: Date): Promise<TicketClaim> {
      try {
        await usedTickets.insertOne({ _id: ticketId, expiresAt });
        return { kind: 'claimed' };
      } catch (error) {
        if (isDuplicateKey(error)) return { kind: 'alreadyUsed' };
        throw error;
      }
    },

    async sweep(): Promise<number> {
      return (await usedTickets.deleteMany({ expiresAt: { $lte: clock() } })).deletedCount;
    },
  };
}
export type TicketLedger = ReturnType<typeof ticketLedger>;
