import type { Consumer, JsMsg } from '@nats-io/jetstream';

/**
 * How long one pull stays open when the stream has nothing for it (nats.js allows no less):
 * a consumer that stops waits about this for its open pull to end.
 */
export const PULL_EXPIRES_MS = 1_000;

/** How long a stop waits for the open pull's end before closing it (NATS away: the end never comes). */
const STOP_WAIT_MS = 2 * PULL_EXPIRES_MS;

/** How often a pull waiting for messages looks whether it should stop. */
const STOP_CHECK_MS = 250;

/**
 * Pulls `consumer` with one pull request (up to `maxMessages`) at a time until `stopping()`,
 * handing each message to `take`, which the pull waits for. Each pull is left to end by
 * itself: when all it asked for arrived, or when the server says it expired, which comes
 * after every message sent for it. So a consumer that stops still gets every message the
 * server sent it. Closing a standing pull instead (nats.js `consume`) dropped what was still
 * unread in the socket, and JetStream held those until `ack_wait` before another replica got
 * them: a delay on every rolling deploy. `take` also gets what arrives while stopping, and
 * decides: apply it, or give it back (`nak`, with a delay past this pull's end). Only when
 * NATS is away does a stop close the pull, after STOP_WAIT_MS.
 */
export async function pullUntilStopped(consumer: Consumer, maxMessages: number, stopping: () => boolean, take: (msg: JsMsg) => Promise<void> | void): Promise<void> {
  while (!stopping()) {
    const messages = await consumer.fetch({ max_messages: maxMessages, expires: PULL_EXPIRES_MS });
    // Read as they arrive, into this pull's own queue: the pull then ends when the server is
    // done with it, however long `take` waits. (Left in the library's buffer, a pull whose
    // messages all arrived but were not yet taken failed its heartbeat check after ~1 s.)
    const queue: JsMsg[] = [];
    let ended = false;
    let failure: unknown;
    let wake: () => void = () => undefined;
    const reading = (async () => {
      try {
        for await (const msg of messages) {
          queue.push(msg);
          wake();
        }
      } catch (error) {
        failure = error;
      } finally {
        ended = true;
        wake();
      }
    })();
    let stopSeenAt: number | undefined;
    try {
      for (;;) {
        const msg = queue.shift();
        if (msg) {
          await take(msg);
          continue;
        }
        if (ended) break;
        if (stopping()) {
          stopSeenAt ??= Date.now();
          if (Date.now() - stopSeenAt >= STOP_WAIT_MS) await messages.close().catch(() => undefined);
        }
        await new Promise<void>((resolve) => {
          const check = setTimeout(resolve, STOP_CHECK_MS);
          wake = () => {
            clearTimeout(check);
            resolve();
          };
        });
        wake = () => undefined;
      }
    } finally {
      // `take` failed: nothing more is taken from this pull
      if (!ended) await messages.close().catch(() => undefined);
      await reading;
    }
    if (failure !== undefined) throw failure;
  }
}
