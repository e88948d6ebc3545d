import type { Consumer, JsMsg } from '@nats-io/jetstream';

/**
 * How long one pull stays open when the stream has nothing for it (nats.js allows no less):
 * a consumer that stops waits at most this for its open pull to end.
 */
export const PULL_EXPIRES_MS = 1_000;

/**
 * Pulls `consumer` with one pull request (up to `maxMessages`) at a time until `stopping()`,
 * handing each message to `take`, which the pull waits for. Each pull is left to end by
 * itself: when all it asked for arrived, or when the server says it expired, which comes
 * after every message sent for it. So a consumer that stops still gets every message the
 * server sent it. Closing a standing pull instead (nats.js `consume`) dropped what was still
 * unread in the socket, and JetStream held those until `ack_wait` before another replica got
 * them: a delay on every rolling deploy. `take` also gets what arrives while stopping, and
 * decides: apply it, or give it back (`nak`).
 */
export async function pullUntilStopped(consumer: Consumer, maxMessages: number, stopping: () => boolean, take: (msg: JsMsg) => Promise<void> | void): Promise<void> {
  while (!stopping()) {
    const messages = await consumer.fetch({ max_messages: maxMessages, expires: PULL_EXPIRES_MS });
    for await (const msg of messages) await take(msg);
  }
}
