import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { FastifyBaseLogger } from 'fastify';

type Logger = Pick<FastifyBaseLogger, 'warn'>;

export interface KeptSubscription {
  /** Stops taking messages; resolves once those already delivered were handed over. */
  drain(): Promise<void>;
  /** Stops at once. */
  unsubscribe(): void;
}

export interface KeptSubscriptionOptions {
  /** a queue group: one subscriber of the group gets each message */
  queue?: string;
  /** what the service stops doing while the subscription is gone, for the warning */
  what: string;
  log: Logger;
  /** first wait before subscribing again (doubled each time, to 60 s; back to it once a message came) */
  retryMs?: number;
}

const RETRY_MAX_MS = 60_000;

/**
 * A core NATS subscription that is made again when the server ends it. nats.js closes a
 * subscription the server refused (a permissions violation: a NATS server still on an older
 * permission file during a rollout, or a file reloaded without the subject) and does not make
 * it again, not even after a reconnect: until 2026-11-29 such a service stayed deaf to the
 * subject, ready and healthy, with one warning in its log, and its stop failed on draining
 * the closed subscription. Made again 1 s doubling to 60 s apart, with a warning each time.
 */
export function keepSubscribed(nc: NatsConnection, subject: string, opts: KeptSubscriptionOptions, onMessage: (msg: Msg) => void): KeptSubscription {
  const firstRetryMs = opts.retryMs ?? 1_000;
  let subscription: Subscription | undefined;
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;
  let nextDelayMs = firstRetryMs;
  const subscribe = () => {
    if (stopped || nc.isClosed() || nc.isDraining()) return;
    subscription = nc.subscribe(subject, {
      ...(opts.queue !== undefined ? { queue: opts.queue } : {}),
      callback: (error, msg) => {
        if (error) {
          if (stopped) return;
          opts.log.warn({ err: error, subject, retryInMs: nextDelayMs }, `subscription ended by NATS, subscribing again: ${opts.what} meanwhile`);
          clearTimeout(retry);
          retry = setTimeout(() => {
            try {
              subscribe();
            } catch (failure) {
              // the connection began to close meanwhile: nothing to subscribe on
              opts.log.warn({ err: failure, subject }, `not subscribed again: ${opts.what}`);
            }
          }, nextDelayMs);
          retry.unref();
          nextDelayMs = Math.min(nextDelayMs * 2, RETRY_MAX_MS);
          return;
        }
        nextDelayMs = firstRetryMs;
        onMessage(msg);
      },
    });
  };
  subscribe();
  const end = () => {
    stopped = true;
    clearTimeout(retry);
    return subscription && !subscription.isClosed() ? subscription : undefined;
  };
  return {
    async drain() {
      // a drain of a subscription the server has just ended rejects: nothing is left to hand over
      await end()?.drain().catch(() => undefined);
    },
    unsubscribe() {
      end()?.unsubscribe();
    },
  };
}
