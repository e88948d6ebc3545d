/** A candidate friend and how many of the caller's friends they are friends with. */
export interface RankedCandidate {
  gamerId: string;
  mutualFriends: number;
}

export interface SuggestionInput {
  caller: string;
  /** the caller's friends */
  friends: readonly string[];
  /** each of the caller's friends' own friends (their friend-id lists); a friend missing here has none */
  friendListsOf: ReadonlyMap<string, readonly string[]>;
  /** never suggested (the gamers the caller blocks; the rest is checked per candidate, candidateChunks) */
  excluded: Iterable<string>;
  /** the first this many; all of them when absent */
  limit?: number;
}

/**
 * Friends of friends, most mutual friends first (issue #15: "friends of friends ranked by
 * number of mutual friends, never the caller, a friend, a pending request in either
 * direction, a block in either direction"). Ties go by gamerId, so the order is stable.
 * A candidate counts once per friend whose list names them, however often it does.
 */
export function rankSuggestions(input: SuggestionInput): RankedCandidate[] {
  const friends = new Set(input.friends);
  const never = new Set(input.excluded);
  never.add(input.caller);
  for (const friend of friends) never.add(friend);
  // a counter per candidate, not a set of the friends in common: ~10,000 candidates per call
  const mutual = new Map<string, number>();
  for (const friend of friends) {
    for (const candidate of new Set(input.friendListsOf.get(friend))) {
      if (!never.has(candidate)) mutual.set(candidate, (mutual.get(candidate) ?? 0) + 1);
    }
  }
  return [...mutual]
    .map(([gamerId, mutualFriends]) => ({ gamerId, mutualFriends }))
    .sort((x, y) => y.mutualFriends - x.mutualFriends || (x.gamerId < y.gamerId ? -1 : x.gamerId > y.gamerId ? 1 : 0))
    .slice(0, input.limit);
}

/** The largest chunk of candidates checked at once (one `$in` of this many ids per check). */
export const CANDIDATE_CHUNK_MAX = 1000;

/**
 * The most ranked candidates one call checks: past them it answers with the survivors it
 * has. Pending requests and the blockers of a gamer have no quota, so without a bound a gamer
 * whom thousands of friends-of-friends had sent requests made each call walk up to every
 * candidate (200 friends' lists of 1,000: ~200 rounds of three reads; until 2026-11-28).
 */
export const CANDIDATES_CHECKED_MAX = 5 * CANDIDATE_CHUNK_MAX;

/**
 * Ranked candidates in chunks for the checks that may still exclude some (pending requests,
 * blocks of the caller, erasure), read for the candidates only and not for everything that
 * could exclude one: the first chunk twice what is wanted, each next one twice as large, up
 * to CANDIDATE_CHUNK_MAX, and no more than CANDIDATES_CHECKED_MAX in all. Usually one chunk
 * holds enough survivors.
 */
export function* candidateChunks<T>(ranked: readonly T[], wanted: number): Generator<T[]> {
  const end = Math.min(ranked.length, CANDIDATES_CHECKED_MAX);
  let size = Math.min(Math.max(wanted * 2, 1), CANDIDATE_CHUNK_MAX);
  for (let start = 0; start < end; start += size, size = Math.min(size * 2, CANDIDATE_CHUNK_MAX)) {
    yield ranked.slice(start, Math.min(start + size, end));
  }
}

/**
 * The friends whose own lists a suggestions call reads: all of them, or the last `max` of
 * the caller's list (the friends added last since the list's last rebuild), so that one
 * call reads at most `max` lists whatever the caller's friend count.
 */
export function friendsToRead(friends: readonly string[], max: number): readonly string[] {
  return friends.length <= max ? friends : friends.slice(friends.length - max);
}

/** The friends two gamers have in common. */
export function commonFriends(mine: readonly string[], theirs: readonly string[]): string[] {
  const set = new Set(theirs);
  return [...new Set(mine)].filter((id) => set.has(id));
}
