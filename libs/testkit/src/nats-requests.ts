import type { Msg, NatsConnection } from '@nats-io/transport-node';

/**
 * `nc` with every `request()` (what JetStream publishes and KV writes go through) handed to
 * `intercept`, which may fail it before it leaves, hold it, or send it (`send`) and then fail
 * its answer: a lost answer, a timeout, over a real server. Everything else is `nc`'s own.
 */
export function interceptRequests(nc: NatsConnection, intercept: (subject: string, send: () => Promise<Msg>) => Promise<Msg>): NatsConnection {
  return new Proxy(nc, {
    get(target, prop) {
      if (prop === 'request') {
        return (subject: string, data: Uint8Array, opts: object) => intercept(subject, () => target.request(subject, data, opts as never));
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
