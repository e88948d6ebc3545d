import { describe, expect, it } from 'vitest';
import { CANDIDATE_CHUNK_MAX, CANDIDATES_CHECKED_MAX, candidateChunks, commonFriends, friendsToRead, rankSuggestions } from '../../src/domain/suggestions.ts';

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

describe('friendsToRead', () => {
  it('reads every friend up to the bound, then only the last ones of the list', () => {
    expect(friendsToRead(['a', 'b', 'c'], 3)).toEqual(['a', 'b', 'c']);
    expect(friendsToRead(['a', 'b', 'c', 'd', 'e'], 2)).toEqual(['d', 'e']);
    expect(friendsToRead([], 2)).toEqual([]);
  });

  it('still never suggests a friend whose list was not read', () => {
    const friends = ['f1', 'f2', 'f3'];
    const read = friendsToRead(friends, 1);
    // f3's list is the one read; f1, a friend named in it, stays out
    const ranked = rankSuggestions({ caller: 'me', friends, friendListsOf: new Map(read.map((f) => [f, ['f1', 'x']])), excluded: [], limit: 10 });
    expect(ranked).toEqual([{ gamerId: 'x', mutualFriends: 1 }]);
  });
});

describe('commonFriends', () => {
  it('keeps the ids both lists hold, once', () => {
    expect(commonFriends(['a', 'b', 'c', 'a'], ['c', 'a', 'z'])).toEqual(['a', 'c']);
    expect(commonFriends([], ['a'])).toEqual([]);
  });
});

describe('candidateChunks', () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => i);

  it('starts at twice what is wanted and doubles, covering every candidate once in order', () => {
    expect([...candidateChunks(ids(20), 1)].map((c) => c.length)).toEqual([2, 4, 8, 6]);
    expect([...candidateChunks(ids(20), 1)].flat()).toEqual(ids(20));
    expect([...candidateChunks(ids(3), 20)]).toEqual([[0, 1, 2]]);
    expect([...candidateChunks([], 20)]).toEqual([]);
  });

  it('never checks more than CANDIDATE_CHUNK_MAX at once', () => {
    const sizes = [...candidateChunks(ids(5000), 400)].map((c) => c.length);
    expect(sizes).toEqual([800, CANDIDATE_CHUNK_MAX, CANDIDATE_CHUNK_MAX, CANDIDATE_CHUNK_MAX, CANDIDATE_CHUNK_MAX, 200]);
  });

  it('checks no more than CANDIDATES_CHECKED_MAX candidates in all, the best-ranked', () => {
    const chunks = [...candidateChunks(ids(200_000), 20)];
    expect(chunks.flat()).toEqual(ids(CANDIDATES_CHECKED_MAX));
    expect(chunks.length).toBeLessThanOrEqual(12);
  });
});
