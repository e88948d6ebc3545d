import { describe, expect, it } from 'vitest';
import { LetterCount } from '../../src/stats/dead-letters.ts';

describe('LetterCount (gfts_stats_dead_letter_total counts each letter once)', () => {
  it('counts a stored letter, and not a repeat of one it saw stored', () => {
    const count = new LetterCount();
    expect(count.counts('dlq-1', 'stored')).toBe(true);
    expect(count.counts('dlq-1', 'repeat')).toBe(false);
  });

  it('counts a repeat whose first publish got no answer (it landed unseen), once', () => {
    const count = new LetterCount();
    count.noAnswer('dlq-2');
    expect(count.counts('dlq-2', 'repeat')).toBe(true);
    expect(count.counts('dlq-2', 'repeat')).toBe(false);
    // a publish without an answer that had not landed: the retry stores it, counted once
    count.noAnswer('dlq-3');
    expect(count.counts('dlq-3', 'stored')).toBe(true);
    expect(count.counts('dlq-3', 'repeat')).toBe(false);
  });

  it('remembers the last publishes without an answer only', () => {
    const count = new LetterCount(2);
    for (const id of ['a', 'b', 'c']) count.noAnswer(id);
    expect(['a', 'b', 'c'].map((id) => count.counts(id, 'repeat'))).toEqual([false, true, true]);
  });
});
