/**
 * Keys of the presence bucket (`natsNames(prefix).presenceBucket`), written by the
 * notifications replicas and read by the friendship service's watch (docs/friendship.md,
 * Presence). Per replica, not per gamer refresh:
 * - `<holder>.alive` -> epoch ms: the replica's heartbeat, put every PRESENCE_RECORD_INTERVAL_MS;
 * - `<holder>.<applicationId>.<gamerId>` -> epoch ms: the replica holds live sockets of the
 *   gamer since then; put once on the first socket, deleted with the last, never refreshed.
 * The holder comes first, so one subject filter (`<holder>.>`) covers everything a replica wrote.
 */

/** A notifications replica's token: letters, digits, dashes (a uuid in practice). */
const HOLDER = '[A-Za-z0-9-]{1,64}';
const UUID = '[0-9a-f-]{36}';
const BEAT = new RegExp(`^(${HOLDER})\\.alive$`);
const HOLD = new RegExp(`^(${HOLDER})\\.(${UUID})\\.(${UUID})$`);

export const presenceBeatKey = (holder: string) => `${holder}.alive`;
export const presenceHoldKey = (holder: string, applicationId: string, gamerId: string) => `${holder}.${applicationId}.${gamerId}`;
/** Every key a replica wrote, as a KV key filter (or, after `$KV.<bucket>.`, a subject filter). */
export const presenceHolderFilter = (holder: string) => `${holder}.>`;

export type PresenceKey =
  | { kind: 'beat'; holder: string }
  | { kind: 'hold'; holder: string; applicationId: string; gamerId: string };

/** What a key of the presence bucket is; undefined for anything else (never trusted blindly). */
export function parsePresenceKey(key: string): PresenceKey | undefined {
  const beat = BEAT.exec(key);
  if (beat) return { kind: 'beat', holder: beat[1]! };
  const hold = HOLD.exec(key);
  if (hold) return { kind: 'hold', holder: hold[1]!, applicationId: hold[2]!, gamerId: hold[3]! };
  return undefined;
}
