import { describe, expect, it } from 'vitest';
import { commonFriends, rankSuggestions } from '../../src/domain/suggestions.ts';

describe('rankSuggestions', () => {
  const base = { caller: 'me', friends: ['f1', 'f2', 'f3'], excluded: [] as string[], limit: 20 };
  const lists = (entries: Record<string, string[]>) => new Map(Object.entries(entries));

  it('counts each candidate once per friend in common, most first, ties by id', () => {
    const friendListsOf = lists({ f1: ['x', 'b', 'me'], f2: ['x', 'a', 'me'], f3: ['x', 'me'] });
    expect(rankSuggestions({ ...base, friendListsOf })).toEqual([
      { gamerId: 'x', mutualFriends: 3 },
      { gamerId: 'a', mutualFriends: 1 },
      { gamerId: 'b', mutualFriends: 1 },
    ]);
  });

  it('never suggests the caller, a friend, or an excluded gamer', () => {
    const friendListsOf = lists({ f1: ['me', 'f2'], f2: ['f1', 'pending'], f3: ['blocked', 'ok'] });
    expect(rankSuggestions({ ...base, friendListsOf, excluded: ['pending', 'blocked'] })).toEqual([{ gamerId: 'ok', mutualFriends: 1 }]);
  });

  it('counts a candidate a list names twice once', () => {
    expect(rankSuggestions({ ...base, friendListsOf: lists({ f1: ['x', 'x'] }) })).toEqual([{ gamerId: 'x', mutualFriends: 1 }]);
  });

  it('reads only the friends\' lists, treats a missing list as empty, and keeps `limit` entries', () => {
    const friendListsOf = lists({ stranger: ['s2', 'a'], f1: ['a', 'b'], f2: ['b'] });
    expect(rankSuggestions({ ...base, friendListsOf, limit: 1 })).toEqual([{ gamerId: 'b', mutualFriends: 2 }]);
    expect(rankSuggestions({ ...base, friendListsOf })).toEqual([{ gamerId: 'b', mutualFriends: 2 }, { gamerId: 'a', mutualFriends: 1 }]);
    expect(rankSuggestions({ ...base, friends: [], friendListsOf })).toEqual([]);
  });
});

describe('commonFriends', () => {
  it('keeps the ids both lists hold, once', () => {
    expect(commonFriends(['a', 'b', 'c', 'a'], ['c', 'a', 'z'])).toEqual(['a', 'c']);
    expect(commonFriends([], ['a'])).toEqual([]);
  });
});
