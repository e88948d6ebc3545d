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

/** The server's `ack_wait` when a consumer's info does not say (nats-server's default). */
const DEFAULT_ACK_WAIT_MS = 30_000;

/** How often held messages are kept in progress: three times per `ack_wait`, so one lost +WPI does not let them lapse. */
export function keepAliveEveryMs(ackWaitMs: number): number {
  return Math.max(100, Math.floor(ackWaitMs / 3));
}

/** How often a keep-alive looks at its pace again: a shorter one (ack_wait lowered) applies within this. */
const PACE_LOOK_MS = 1_000;

/**
 * Runs `beat` every `everyMs()`, a pace looked at again at least every PACE_LOOK_MS: it
 * follows a consumer's ack_wait as it changes (a rollout), where setInterval kept the one it
 * started with, and a beat already waiting at the old pace does not hold a shorter one back.
 */
export function keepAliveEvery(everyMs: () => number, beat: () => void): { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let lastBeat = performance.now();
  const next = () => {
    if (stopped) return;
    const pace = everyMs();
    const due = lastBeat + pace - performance.now();
    timer = setTimeout(() => {
      if (performance.now() - lastBeat >= everyMs()) {
        beat();
        lastBeat = performance.now();
      }
      next();
    }, Math.max(0, Math.min(due, PACE_LOOK_MS)));
  };
  next();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

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
 *
 * Every message the pull holds, those waiting in its queue and the one `take` has not
 * finished with, is kept in progress (`working`, three times per the consumer's `ack_wait`)
 * for as long as it is held: a `take` that waits (the stat consumer's, while the store is
 * away; an erasure that takes long) would otherwise let them pass their ack deadline, and
 * JetStream would hand them to another replica while this one still holds them, using up a
 * delivery each time. Once `take` resolves, a message is the caller's to keep alive.
 */
export async function pullUntilStopped(
  consumer: Consumer, maxMessages: number, stopping: () => boolean, take: (msg: JsMsg) => Promise<void> | void,
  /** the consumer's ack_wait as it stands (a rollout may change it); else the one its info gave when the pull began */
  liveAckWaitMs?: () => number,
): Promise<void> {
  const ackWaitNanos = (await consumer.info(true)).config.ack_wait;
  const startingAckWaitMs = ackWaitNanos ? ackWaitNanos / 1_000_000 : DEFAULT_ACK_WAIT_MS;
  const ackWaitMs = liveAckWaitMs ?? (() => startingAckWaitMs);
  while (!stopping()) {
    const messages = await consumer.fetch({ max_messages: maxMessages, expires: PULL_EXPIRES_MS });
    // Read as they arrive, into this pull's own queue: the pull then ends when the server is
    // done with it, however long `take` waits. (Left in the library's buffer, a pull whose
    // messages all arrived but were not yet taken failed its heartbeat check after ~1 s.)
    const queue: JsMsg[] = [];
    let taking: JsMsg | undefined;
    // a message already settled ignores `working` (nats.js sends nothing after a final ack)
    const keepAlive = keepAliveEvery(() => keepAliveEveryMs(ackWaitMs()), () => {
      taking?.working();
      for (const msg of queue) msg.working();
    });
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
          taking = msg;
          await take(msg);
          taking = undefined;
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
      // what is left (`take` failed) is abandoned: redelivered after `ack_wait`
      keepAlive.stop();
      // `take` failed: nothing more is taken from this pull
      if (!ended) await messages.close().catch(() => undefined);
      await reading;
    }
    if (failure !== undefined) throw failure;
  }
}
