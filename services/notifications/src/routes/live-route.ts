import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ErrorCode, notificationsRoutes } from '@gfts/contracts';
import { AppError, recordHijacked, unauthorized } from '@gfts/platform';
import { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LiveChannel } from '../live/channel.ts';

/**
 * After the upgrade the TCP socket still points at the upgrade's HTTP response
 * (`socket._httpMessage`), and through it at the request, its headers, Fastify's request,
 * reply and child logger, for its whole life (bench heap profile: the largest per-socket cost
 * besides the connection itself). The response is never sent (ws answered 101 on the
 * socket), so it is detached, as Node does when a response finishes.
 */
function releaseUpgradeRequest(request: FastifyRequest): void {
  const response = request.raw.socket && (request.raw.socket as { _httpMessage?: unknown })._httpMessage;
  if (response instanceof ServerResponse) response.detachSocket(request.raw.socket);
}

/**
 * The reply of each upgrade being authorized: @fastify/websocket hijacks it and hands the
 * socket handler the request only, so its 101 is recorded (metrics, access line, span) from
 * here, as Fastify runs no hook for a hijacked reply.
 */
const upgrades = new WeakMap<FastifyRequest, FastifyReply>();

/** How long a used ticket id is remembered: past any ticket's life and its assertion's. */
const USED_TICKET_MEMORY_MS = 5 * 60_000;

/**
 * GET /api/v1/notifications/live: the WebSocket. The gateway authenticated the upgrade and
 * forwards it with the identity assertion; a ticket it accepted is honoured here once, for
 * every gateway replica at once (repository/tickets.ts). A plain GET is a 426.
 */
export function liveRoute(fastify: FastifyInstance, channel: LiveChannel): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { websocket: _websocket, ...route } = notificationsRoutes.live;
  app.route({
    ...route,
    preHandler: async (request, reply) => {
      if (!request.ws) return;
      upgrades.set(request, reply);
      const { ticketId } = request.identity;
      if (ticketId === undefined) return;
      const claim = await channel.tickets.claim(ticketId, new Date(Date.now() + USED_TICKET_MEMORY_MS));
      if (claim.kind === 'alreadyUsed') throw unauthorized('this ticket was used already; get a new one');
    },
    handler: async () => {
      throw new AppError(426, ErrorCode.UPGRADE_REQUIRED, 'this path is a WebSocket: send Connection: Upgrade and Upgrade: websocket');
    },
    wsHandler: (socket, request) => {
      const { identity } = request;
      const { since } = request.query;
      const reply = upgrades.get(request);
      upgrades.delete(request);
      if (reply) recordHijacked(request, reply, 101);
      releaseUpgradeRequest(request);
      // @fastify/websocket's own 'error' listener closes over the upgrade's request and reply
      // and so keeps them reachable as well: the channel's (log, close) holds neither.
      socket.removeAllListeners('error');
      channel.open(socket, identity, since);
    },
  });
}
