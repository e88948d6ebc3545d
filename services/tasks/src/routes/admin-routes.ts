import { DEAD_LETTER_REPLAY_ALL_MAX, ErrorCode, Role, tasksAdminRoutes, type AdminPipelineHealth, type DeadLetterReplayAll, type NatsNames } from '@gfts/contracts';
import { AppError, notFound, readiness, requireRole, type ReadinessCheck } from '@gfts/platform';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GamerTaskService } from '../gamer-task-service.ts';
import type { DeadLetterStore, ReplayOutcome } from '../stats/dead-letters.ts';

interface Deps {
  reads: GamerTaskService;
  deadLetters: DeadLetterStore;
  jsm: JetStreamManager;
  names: NatsNames;
  checks: Record<string, ReadinessCheck>;
  /** DEAD_LETTER_REPLAY_ALL_BUDGET_MS */
  replayAllBudgetMs: number;
}

const DEFAULT_LIMIT = 50;
/** Letters a replay-all reads at once. */
const REPLAY_PAGE = 100;
const NATS_READ_TIMEOUT_MS = 2_000;
const noLetter = () => notFound('no such dead letter of this application');

function bounded<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('NATS did not answer in time')), NATS_READ_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * NATS is where dead letters live: when it fails the answer is a 503, never a wait.
 * `detail`: what the 503 says (a replay's may have happened).
 */
async function fromNats<T>(request: FastifyRequest, work: () => Promise<T>, detail = 'the dead-letter stream is unavailable; try again'): Promise<T> {
  try {
    return await bounded(work());
  } catch (error) {
    if (error instanceof AppError) throw error;
    request.log.error({ err: error }, 'dead-letter stream unavailable');
    throw new AppError(503, ErrorCode.SERVICE_UNAVAILABLE, detail);
  }
}

const REPLAY_UNKNOWN = 'the dead-letter stream did not answer in time; the replay may have happened: list the letters again (a replay again is stored once)';

function replayed(outcome: Extract<ReplayOutcome, { kind: 'replayed' }>) {
  return { sequence: outcome.letter.sequence, eventId: outcome.letter.eventId, stream: outcome.stream, seq: outcome.seq, duplicate: outcome.duplicate };
}

function linkAfter(reply: FastifyReply, url: string, limit: number, after: number): void {
  reply.header('link', `<${url}?${new URLSearchParams({ limit: String(limit), after: String(after) }).toString()}>; rel="next"`);
}

/** The console's tasks routes: role admin, the token's application only. */
export async function adminRoutes(parent: FastifyInstance, deps: Deps): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('onRequest', async (request) => requireRole(request, Role.ADMIN));

  app.route({
    ...tasksAdminRoutes.gamerProgress,
    handler: async (request) => deps.reads.adminView(request.identity.applicationId, request.params.gamerId),
  });

  app.route({
    ...tasksAdminRoutes.listDeadLetters,
    handler: async (request, reply) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const page = await fromNats(request, () => deps.deadLetters.list(request.identity.applicationId, request.query.after ?? 0, limit));
      const last = page.letters.at(-1);
      if (page.more && last) linkAfter(reply, request.routeOptions.url ?? '', limit, last.sequence);
      return page.letters;
    },
  });

  app.route({
    ...tasksAdminRoutes.replayDeadLetter,
    handler: async (request) => {
      const outcome = await fromNats(request, () => deps.deadLetters.replay(request.identity.applicationId, request.params.sequence), REPLAY_UNKNOWN);
      if (outcome.kind === 'notFound') throw noLetter();
      request.log.info({ sequence: outcome.letter.sequence, eventId: outcome.letter.eventId }, 'dead letter replayed');
      return replayed(outcome);
    },
  });

  app.route({
    ...tasksAdminRoutes.replayAllDeadLetters,
    handler: async (request) => {
      const { applicationId } = request.identity;
      const result: DeadLetterReplayAll = { replayed: [], failed: [], more: false, after: request.query.after ?? 0 };
      // A page at a time, at most DEAD_LETTER_REPLAY_ALL_MAX per call: until 2026-11-28 every
      // letter was read first, in one unbounded scan a flood made answer 503 while it went on
      // (and held every payload); the flood is when replay-all is wanted.
      // from ?after= (an earlier call's `after`): letters that failed stay, and a call that
      // began at the oldest again every time kept trying them (until 2026-11-29)
      let after = request.query.after ?? 0;
      // and within a time budget: each replay is bounded (2 s), but 500 of them one after the
      // other held the call for up to 16 minutes when publishing timed out (until 2026-11-29)
      const deadline = Date.now() + deps.replayAllBudgetMs;
      // checked before each read and each replay but the first, so that every call gets on
      const spent = (tried: number) => tried > 0 && Date.now() >= deadline;
      pages: for (let tried = 0; tried < DEAD_LETTER_REPLAY_ALL_MAX; ) {
        if (spent(tried)) {
          result.more = true;
          break;
        }
        const page = await fromNats(request, () => deps.deadLetters.list(applicationId, after, Math.min(REPLAY_PAGE, DEAD_LETTER_REPLAY_ALL_MAX - tried)));
        for (const letter of page.letters) {
          if (spent(tried)) {
            result.more = true;
            break pages;
          }
          tried++;
          after = letter.sequence;
          result.after = after;
          try {
            const outcome = await bounded(deps.deadLetters.replay(applicationId, letter.sequence));
            // gone meanwhile (a concurrent replay or delete): nothing to do
            if (outcome.kind === 'replayed') result.replayed.push(replayed(outcome));
          } catch (error) {
            result.failed.push({ sequence: letter.sequence, detail: `${(error as Error).message}; it may have been replayed (a replay again is stored once)` });
          }
        }
        if (!page.more) break;
        result.more = tried >= DEAD_LETTER_REPLAY_ALL_MAX;
      }
      request.log.info({ replayed: result.replayed.length, failed: result.failed.length, more: result.more }, 'dead letters replayed');
      return result;
    },
  });

  app.route({
    ...tasksAdminRoutes.deleteDeadLetter,
    handler: async (request, reply) => {
      const removed = await fromNats(request, () => deps.deadLetters.remove(request.identity.applicationId, request.params.sequence));
      if (!removed) throw noLetter();
      return reply.code(204).send(null);
    },
  });

  app.route({
    ...tasksAdminRoutes.health,
    handler: async (request): Promise<AdminPipelineHealth> => {
      const { names, jsm } = deps;
      const [ready, consumer, stream, letters] = await Promise.all([
        readiness(deps.checks),
        bounded(jsm.consumers.info(names.statsStream, names.statsConsumer)).catch(() => null),
        bounded(jsm.streams.info(names.statsStream)).catch(() => null),
        bounded(deps.deadLetters.count(request.identity.applicationId)).catch(() => null),
      ]);
      return {
        service: 'tasks',
        ...ready,
        at: new Date().toISOString(),
        consumer: consumer ? { pending: consumer.num_pending, ackPending: consumer.num_ack_pending, redelivered: consumer.num_redelivered, waiting: consumer.num_waiting } : null,
        stream: stream
          ? { messages: stream.state.messages, lastSequence: stream.state.last_seq, lastEventAt: stream.state.messages > 0 && stream.state.last_ts ? new Date(stream.state.last_ts).toISOString() : null }
          : null,
        deadLetters: letters,
      };
    },
  });
}
