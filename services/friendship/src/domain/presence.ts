import type { Presence } from '@gfts/contracts';

export interface PresenceFacts {
  /** epoch ms of the latest sighting the presence board holds (live, from the gateways), if any */
  liveSeenAt: number | undefined;
  /** the end of the last session the directory recorded, if any */
  storedSeenAt: Date | undefined;
}

/**
 * A gamer is online while their latest authenticated call is less than `onlineWindowMs`
 * old (docs/friendship.md, Presence: no live notifications channel exists yet, so a call
 * through the gateway is the sign of life). `lastSeenAt` is the latest of what the board
 * and the directory know; null when neither ever saw the gamer.
 */
export function presenceOf(facts: PresenceFacts, now: number, onlineWindowMs: number): Presence {
  const stored = facts.storedSeenAt?.getTime();
  const latest = Math.max(facts.liveSeenAt ?? -Infinity, stored ?? -Infinity);
  if (latest === -Infinity) return { status: 'offline', lastSeenAt: null };
  const online = facts.liveSeenAt !== undefined && now - facts.liveSeenAt < onlineWindowMs;
  return { status: online ? 'online' : 'offline', lastSeenAt: new Date(latest).toISOString() };
}
