import { CanMessageRequest, check, natsNames, type CanMessageReply, type FriendshipEvent, type FriendshipEventType, type UserSummary } from '@gfts/contracts';
import { keepSubscribed, requestHeaders, tracedPublish } from '@gfts/platform';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FastifyBaseLogger } from 'fastify';
import type { BlockRepository } from './repository/index.ts';

type Logger = Pick<FastifyBaseLogger, 'warn' | 'error'>;

export interface FriendshipEventInput {
  applicationId: string;
  /** the relation id (the same from request to unfriend), or the block id for blocked/unblocked */
  friendshipId: string;
  /** the gamer who acted */
  actorId: string;
  /** the other gamer */
  targetId: string;
  /** the acting gamer's summary, for events whose notification shows who acted */
  actor?: UserSummary;
  /** blocked: the relation the block removed */
  removedRelation?: FriendshipEvent['removedRelation'];
}

export type PublishEvent = (type: FriendshipEventType, event: FriendshipEventInput) => void;

/**
 * Friendship notifications on core NATS (`<prefix>.friendship.<type>`), published after
 * the database write. They are best effort: a notification lost while NATS is away must
 * never turn a done change into a failed request, so publishing never throws.
 */
export function natsEventPublisher(nc: NatsConnection, prefix: string, log: Logger): PublishEvent {
  const names = natsNames(prefix);
  return (type, input) => {
    const event: FriendshipEvent = { type, ...input, occurredAt: new Date().toISOString() };
    try {
      const subject = names.friendshipEvent(type);
      tracedPublish(subject, () => {
        const headers = requestHeaders();
        nc.publish(subject, JSON.stringify(event), headers ? { headers } : undefined);
      });
    } catch (error) {
      log.warn({ err: error, event: type }, 'friendship event not published');
    }
  };
}

const INVALID: CanMessageReply = { allowed: false, reason: 'invalid_request' };

/** The answer to "may `from` message `to`?", for other services' chat and invites. */
export async function canMessage(blocks: Pick<BlockRepository, 'blocks'>, payload: unknown): Promise<CanMessageReply> {
  const request = check(CanMessageRequest, payload);
  if (!request.ok) return INVALID;
  const { applicationId, from, to } = request.value;
  // identities are lower-cased at the edge; a caller may not have done the same
  const blocked = await blocks.blocks(applicationId.toLowerCase(), to.toLowerCase(), from.toLowerCase());
  return blocked ? { allowed: false, reason: 'blocked' } : { allowed: true };
}

function parseJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data));
  } catch {
    return undefined;
  }
}

export interface CanMessageResponder {
  /** stops taking requests and waits for the answers already being worked on */
  stop(): Promise<void>;
}

/**
 * Request-reply responder on `<prefix>.rpc.friendship.can-message`. The queue group makes
 * one replica answer each request. When the database fails we do not answer at all: the
 * asker times out and applies its own failure policy rather than trusting a guess.
 */
export function startCanMessageResponder(nc: NatsConnection, prefix: string, blocks: Pick<BlockRepository, 'blocks'>, log: Logger): CanMessageResponder {
  const inFlight = new Set<Promise<void>>();
  const subscription = keepSubscribed(nc, natsNames(prefix).canMessage, { queue: 'friendship', what: 'can-message questions go unanswered', log }, (msg) => {
    const work = canMessage(blocks, parseJson(msg.data)).then(
      (reply) => {
        msg.respond(JSON.stringify(reply));
      },
      (failure: unknown) => log.error({ err: failure }, 'can-message check failed'),
    );
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  });
  return {
    async stop() {
      await subscription.drain();
      await Promise.allSettled([...inFlight]);
    },
  };
}
