/** A candidate friend and how many of the caller's friends they are friends with. */
export interface RankedCandidate {
  gamerId: string;
  mutualFriends: number;
}

export interface SuggestionInput {
  caller: string;
  /** the caller's friends */
  friends: readonly string[];
  /** the friendships of the caller's friends, as [a, b] pairs (either order, duplicates allowed) */
  friendEdges: ReadonlyArray<readonly [string, string]>;
  /** never suggested: pending requests either way, blocks either way */
  excluded: Iterable<string>;
  limit: number;
}

/**
 * Friends of friends, most mutual friends first (issue #15: "friends of friends ranked by
 * number of mutual friends, never the caller, a friend, a pending request in either
 * direction, a block in either direction"). Ties go by gamerId, so the order is stable.
 * An edge between two of the caller's friends is counted once, however often it is given.
 */
export function rankSuggestions(input: SuggestionInput): RankedCandidate[] {
  const friends = new Set(input.friends);
  const never = new Set(input.excluded);
  never.add(input.caller);
  for (const friend of friends) never.add(friend);
  const mutual = new Map<string, Set<string>>();
  for (const [a, b] of input.friendEdges) {
    // an edge counts when exactly one end is a friend of the caller: the other end is the candidate
    const [friend, candidate] = friends.has(a) ? [a, b] : [b, a];
    if (!friends.has(friend) || never.has(candidate)) continue;
    let through = mutual.get(candidate);
    if (!through) mutual.set(candidate, (through = new Set()));
    through.add(friend);
  }
  return [...mutual]
    .map(([gamerId, through]) => ({ gamerId, mutualFriends: through.size }))
    .sort((x, y) => y.mutualFriends - x.mutualFriends || (x.gamerId < y.gamerId ? -1 : x.gamerId > y.gamerId ? 1 : 0))
    .slice(0, input.limit);
}

/** The friends two gamers have in common. */
export function commonFriends(mine: readonly string[], theirs: readonly string[]): string[] {
  const set = new Set(theirs);
  return [...new Set(mine)].filter((id) => set.has(id));
}
