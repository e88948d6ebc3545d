import { describe, expect, it } from 'vitest';
import { commonFriends, rankSuggestions } from '../../src/domain/suggestions.ts';

describe('rankSuggestions', () => {
  const base = { caller: 'me', friends: ['f1', 'f2', 'f3'], excluded: [] as string[], limit: 20 };

  it('counts each candidate once per friend in common, most first, ties by id', () => {
    const friendEdges: Array<[string, string]> = [['f1', 'x'], ['x', 'f2'], ['f3', 'x'], ['f1', 'b'], ['a', 'f2']];
    expect(rankSuggestions({ ...base, friendEdges })).toEqual([
      { gamerId: 'x', mutualFriends: 3 },
      { gamerId: 'a', mutualFriends: 1 },
      { gamerId: 'b', mutualFriends: 1 },
    ]);
  });

  it('never suggests the caller, a friend, or an excluded gamer', () => {
    const friendEdges: Array<[string, string]> = [['f1', 'me'], ['f1', 'f2'], ['f2', 'pending'], ['f3', 'blocked'], ['f3', 'ok']];
    expect(rankSuggestions({ ...base, friendEdges, excluded: ['pending', 'blocked'] })).toEqual([{ gamerId: 'ok', mutualFriends: 1 }]);
  });

  it('counts an edge given twice (seen from both ends) once', () => {
    const friendEdges: Array<[string, string]> = [['f1', 'x'], ['f1', 'x'], ['x', 'f1']];
    expect(rankSuggestions({ ...base, friendEdges })).toEqual([{ gamerId: 'x', mutualFriends: 1 }]);
  });

  it('ignores edges touching none of the friends, and keeps `limit` entries', () => {
    const friendEdges: Array<[string, string]> = [['s1', 's2'], ['f1', 'a'], ['f1', 'b'], ['f2', 'b']];
    expect(rankSuggestions({ ...base, friendEdges, limit: 1 })).toEqual([{ gamerId: 'b', mutualFriends: 2 }]);
    expect(rankSuggestions({ ...base, friends: [], friendEdges })).toEqual([]);
  });
});

describe('commonFriends', () => {
  it('keeps the ids both lists hold, once', () => {
    expect(commonFriends(['a', 'b', 'c', 'a'], ['c', 'a', 'z'])).toEqual(['a', 'c']);
    expect(commonFriends([], ['a'])).toEqual([]);
  });
});
