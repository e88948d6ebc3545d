import { describe, expect, it } from 'vitest';
import { nextAfter } from '../../src/api/next-page.ts';

describe('nextAfter (the dead-letter list\'s next page)', () => {
  it('reads the after of the rel="next" link', () => {
    expect(nextAfter('</api/v1/admin/dead-letters?limit=200&after=1043>; rel="next"')).toBe(1043);
  });
  it('is undefined on the last page, and for a link that is not a next page or has no number', () => {
    expect(nextAfter(null)).toBeUndefined();
    expect(nextAfter('</a?after=5>; rel="prev"')).toBeUndefined();
    expect(nextAfter('</a?after=x>; rel="next"')).toBeUndefined();
  });
});
