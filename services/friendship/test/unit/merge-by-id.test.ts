import { describe, expect, it } from 'vitest';
import { mergeById } from '../../src/repository/relations.ts';

const docs = (...ids: string[]) => ids.map((_id) => ({ _id }));

describe('mergeById (the friend list from its two index ranges)', () => {
  it('interleaves two _id-ordered lists in _id order', () => {
    expect(mergeById(docs('a', 'c', 'e'), docs('b', 'd'), 10).map((d) => d._id)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('keeps only the first `limit`, wherever they come from', () => {
    expect(mergeById(docs('b', 'c', 'd'), docs('a', 'e'), 3).map((d) => d._id)).toEqual(['a', 'b', 'c']);
    expect(mergeById(docs(), docs('x', 'y'), 1).map((d) => d._id)).toEqual(['x']);
  });
});
