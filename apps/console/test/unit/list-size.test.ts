import { describe, expect, it } from 'vitest';
import { listSize } from '../../src/pages/list-size.ts';

describe('a list\'s size on the Gamer page', () => {
  it('is the count when the API answered fewer than it was asked for', () => {
    expect(listSize(0, 50)).toBe('0');
    expect(listSize(49, 50)).toBe('49');
  });

  it('is "first N" when the list is as long as the limit: there may be more', () => {
    expect(listSize(50, 50)).toBe('first 50');
  });
});
