import { ErrorCode, Role, tasksRoutes, type NatsNames } from '@gfts/contracts';
import { AppError, forbidden, requestHeaders, requirePathAccess, tracedPublish } from '@gfts/platform';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { FastifyInstance } from 'fastify';
import { normaliseEvent } from '../domain/stat-event.ts';

/**
 * POST /api/v1/stats: a game server (role server) reports one game of one gamer of its own
 * application. 202 only once JetStream has stored the event; the eventId is the message id,
 * so a retry within the duplicate window is stored once (and the consumer dedupes beyond).
 */
export async function statsRoutes(parent: FastifyInstance, { js, names }: { js: JetStreamClient; names: NatsNames }): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  app.route({
    ...tasksRoutes.reportStats,
    // before the body is read: a gamer's token gets 403 whatever it sent (a 400 first until 2026-11-29)
    onRequest: requirePathAccess(Role.SERVER),
    handler: async (request, reply) => {
      const event = normaliseEvent(request.body);
      if (event.applicationId !== request.identity.applicationId) throw forbidden('the event belongs to another application than the token');
      let ack;
      try {
        const subject = names.statsSubject(event.applicationId);
        ack = await tracedPublish(subject, () => {
          const headers = requestHeaders();
          return js.publish(subject, JSON.stringify(event), { msgID: event.eventId, timeout: 5_000, ...(headers ? { headers } : {}) });
        });
      } catch (error) {
        // a timeout may hide a stored event: say "may not", and that the retry is safe
        request.log.error({ err: error }, 'JetStream did not acknowledge a stat event');
        throw new AppError(503, ErrorCode.SERVICE_UNAVAILABLE, 'the event may not have been stored; retry with the same eventId (a stored one counts once)');
      }
      return reply.code(202).send({ eventId: event.eventId, duplicate: ack.duplicate, stream: ack.stream, seq: ack.seq });
    },
  });
}
