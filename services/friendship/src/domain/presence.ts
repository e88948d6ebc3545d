import type { Presence } from '@gfts/contracts';

export type PresenceStatus = Presence['status'];

export interface PresenceFacts {
  /** epoch ms of the latest write of a live connection's hold the presence board has, if online */
  liveSeenAt: number | undefined;
  /** epoch ms of a session the board ended and the directory may not have recorded yet */
  endedAt?: number | undefined;
  /** the end of the last session the directory recorded, if any */
  storedSeenAt: Date | undefined;
}

/**
 * A gamer is online while they hold a live notifications connection: the board has a hold
 * written less than `onlineWindowMs` ago (docs/friendship.md, Presence). `lastSeenAt` is the
 * latest of what the board (live, or a session it ended) and the directory know; null when
 * neither ever saw the gamer.
 */
export function presenceOf(facts: PresenceFacts, now: number, onlineWindowMs: number): Presence {
  const stored = facts.storedSeenAt?.getTime();
  // the end just seen counts until the directory has it (written in batches, after): until
  // 2026-11-29 a gamer's lastSeenAt went back to the session before, or to null, meanwhile
  const latest = Math.max(facts.liveSeenAt ?? -Infinity, facts.endedAt ?? -Infinity, stored ?? -Infinity);
  if (latest === -Infinity) return { status: 'offline', lastSeenAt: null };
  const online = facts.liveSeenAt !== undefined && now - facts.liveSeenAt < onlineWindowMs;
  return { status: online ? 'online' : 'offline', lastSeenAt: new Date(latest).toISOString() };
}

export type Announcement = { kind: 'none' } | { kind: 'wait'; ms: number } | { kind: 'announce' };

/**
 * The settle rule of `presence.changed` (docs/friendship.md, Presence): a gamer's status is
 * announced once it has held for `settleMs` and differs from the last status announced for
 * them. A change undone within `settleMs` (a reconnect, a flapping network) is never
 * announced, so friends get at most one `presence.changed` per gamer per `settleMs`. A gamer
 * never announced counts as offline (nobody was told they were online).
 */
export function settledAnnouncement(lastAnnounced: PresenceStatus | undefined, current: { status: PresenceStatus; since: number }, now: number, settleMs: number): Announcement {
  if (current.status === (lastAnnounced ?? 'offline')) return { kind: 'none' };
  const held = now - current.since;
  if (held < settleMs) return { kind: 'wait', ms: settleMs - held };
  return { kind: 'announce' };
}

/**
 * Who is told of a gamer's presence change: their friends who are online, never the gamer,
 * never a gamer who blocks them or whom they block (a block ends the friendship; this also
 * covers a friendship read just before the block removed it).
 */
export function presenceRecipients(gamerId: string, friends: readonly string[], blockedEitherWay: ReadonlySet<string>, isOnline: (gamerId: string) => boolean): string[] {
  const out = new Set<string>();
  for (const friend of friends) {
    if (friend !== gamerId && !blockedEitherWay.has(friend) && isOnline(friend)) out.add(friend);
  }
  return [...out];
}
