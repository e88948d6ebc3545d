import type { MsgHdrs } from '@nats-io/transport-node';

/**
 * A NATS message's headers, or undefined when it has none or they do not decode. nats.js
 * decodes them on first read and throws on a name with a space or a character outside
 * ASCII, or a value with a bare line feed, which clients of other NATS libraries can
 * publish (a game server publishes its stat events itself). Such headers are metadata
 * lost, not a message lost: until 2026-11-29 the throw interrupted the stat consumer's pull
 * and made a poison event's dead letter reject unhandled.
 * `read`: the read of `msg.headers` (or a stored message's `header`).
 */
export function headersOf(read: () => MsgHdrs | undefined): MsgHdrs | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
