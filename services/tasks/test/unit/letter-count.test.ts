import { describe, expect, it } from 'vitest';
import { LetterCount } from '../../src/stats/dead-letters.ts';

describe('LetterCount (gfts_stats_dead_letter_total never misses a letter)', () => {
  it('counts a stored letter, and not its repeat on the replica that counted it', () => {
    const count = new LetterCount();
    expect(count.counts('dlq-1', 'stored')).toBe(true);
    expect(count.counts('dlq-1', 'repeat')).toBe(false);
  });

  it('counts a repeat nobody here counted: its first publish was stored unseen (the answer lost), here or on another replica', () => {
    const count = new LetterCount();
    expect(count.counts('dlq-2', 'repeat')).toBe(true);
    expect(count.counts('dlq-2', 'repeat')).toBe(false);
  });

  it('remembers the last letters counted only', () => {
    const count = new LetterCount(2);
    for (const id of ['a', 'b', 'c']) count.counts(id, 'stored');
    expect(count.counts('c', 'repeat')).toBe(false);
    expect(count.counts('a', 'repeat')).toBe(true);
  });
});
