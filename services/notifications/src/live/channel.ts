import { NotificationCloseCode, type Identity } from '@gfts/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { WebSocket } from 'ws';
import { isLivePing } from '../domain/live-ping.ts';
import type { InboxRepository } from '../repository/inbox.ts';
import type { TicketLedger } from '../repository/tickets.ts';
import type { Hub } from './hub.ts';
import type { LiveMetrics } from './metrics.ts';
import { Session, type SessionLimits } from './session.ts';

export interface LiveChannel {
  tickets: TicketLedger;
  /** Serves one upgraded socket of the verified gamer: subscribe, replay after `since`, then live. */
  open(socket: WebSocket, identity: Identity, since: string | undefined): void;
}

export function liveChannel(deps: { hub: Hub; inbox: InboxRepository; tickets: TicketLedger; limits: SessionLimits; metrics: LiveMetrics; log: FastifyBaseLogger }): LiveChannel {
  const { hub, inbox, tickets, limits, metrics, log } = deps;
  return {
    tickets,
    open(socket, identity, since) {
      const gamer = { applicationId: identity.applicationId, gamerId: identity.gamerId };
      const resumeFrom = since?.toLowerCase();
      const session = new Session(socket, gamer, limits, metrics, resumeFrom !== undefined);
      socket.on('error', (error) => {
        log.warn({ err: error }, 'live socket error');
        session.failed(error);
      });
      // A client sends only heartbeat pings (a browser cannot see WebSocket pings); anything
      // else it sends is ignored.
      socket.on('message', (data, isBinary) => {
        if (isLivePing(data, isBinary)) session.answerPing();
      });
      void (async () => {
        try {
          await hub.attach(session);
          // closed meanwhile (turned away by a draining hub, or too many sockets): nothing to replay to
          if (resumeFrom !== undefined && !session.isClosed) await session.replay(inbox, resumeFrom);
        } catch (error) {
          log.error({ err: error }, 'live channel could not start');
          session.close(NotificationCloseCode.INTERNAL_ERROR, 'internal error');
        }
      })();
    },
  };
}
