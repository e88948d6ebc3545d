import { describe, expect, it } from 'vitest';
import { friendLimitHolder, limitReached, pageSize, Quota, searchSize, withinLimit } from '../../src/domain/limits.ts';

describe('page and result sizes', () => {
  it('default to 50 for lists and 20 for search', () => {
    expect(pageSize(undefined)).toBe(50);
    expect(searchSize(undefined)).toBe(20);
  });

  it('accept sizes within bounds', () => {
    expect(pageSize(1)).toBe(1);
    expect(pageSize(200)).toBe(200);
    expect(searchSize(50)).toBe(50);
  });

  it.each([0, -1, 201, 1.5, Number.NaN])('refuse list size %s with 400', (limit) => {
    expect(() => pageSize(limit)).toThrow(expect.objectContaining({ status: 400, code: 'VALIDATION_FAILED' }));
  });

  it('refuse a search size above 50', () => {
    expect(() => searchSize(51)).toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe('quota checks', () => {
  it('before a write: a gamer at the limit may not take another', () => {
    expect(withinLimit(0, 2, 'before')).toBe(true);
    expect(withinLimit(1, 2, 'before')).toBe(true);
    expect(withinLimit(2, 2, 'before')).toBe(false);
  });

  it('after a write that is counted: reaching the limit is fine, passing it is not', () => {
    expect(withinLimit(2, 2, 'after')).toBe(true);
    expect(withinLimit(3, 2, 'after')).toBe(false);
  });

  it('a friendship counts against both gamers: the caller is named first when both are full', () => {
    expect(friendLimitHolder({ caller: 1, other: 1 }, 2, 'before')).toBeUndefined();
    expect(friendLimitHolder({ caller: 2, other: 1 }, 2, 'before')).toBe('caller');
    expect(friendLimitHolder({ caller: 1, other: 2 }, 2, 'before')).toBe('other');
    expect(friendLimitHolder({ caller: 2, other: 2 }, 2, 'before')).toBe('caller');
    expect(friendLimitHolder({ caller: 2, other: 2 }, 2, 'after')).toBeUndefined();
    expect(friendLimitHolder({ caller: 2, other: 3 }, 2, 'after')).toBe('other');
  });

  it('name the quota\'s code and whose limit it is', () => {
    expect(limitReached(Quota.friends, 1000, 'other')).toMatchObject({ status: 409, code: 'FRIEND_LIMIT_REACHED', message: 'the other gamer has reached the limit of 1000 friends' });
    expect(limitReached(Quota.pendingOutgoing, 100)).toMatchObject({ status: 409, code: 'PENDING_LIMIT_REACHED', message: 'you have reached the limit of 100 pending outgoing friend requests' });
    expect(limitReached(Quota.blocks, 5)).toMatchObject({ status: 409, code: 'BLOCK_LIMIT_REACHED' });
  });
});
