import { DEAD_LETTER_ERRORS_MAX, STAT_DEAD_LETTER_MAX_BYTES, STAT_EVENT_MAX_BYTES, type StatDeadLetter } from '@gfts/contracts';
import { describe, expect, it } from 'vitest';
import { fitLetter } from '../../src/stats/dead-letters.ts';

const letter = (payload: string, errors?: string[]): StatDeadLetter => ({
  reason: 'payload does not match the StatEvent schema',
  ...(errors ? { errors } : {}),
  subject: 'gfts.stats.6f1c2a9e-0d4b-4c8e-9f3a-1b2c3d4e5f60',
  streamSequence: 7,
  deliveryCount: 1,
  deadLetteredAt: '2026-11-21T18:04:06.120Z',
  payload,
});
const bytes = (value: StatDeadLetter) => Buffer.byteLength(JSON.stringify(value), 'utf8');

describe('fitLetter', () => {
  it('keeps an ordinary letter as it is', () => {
    const ordinary = letter('{"eventId":"x"}', ['/eventId must match format "uuid"']);
    expect(fitLetter(ordinary)).toEqual(ordinary);
  });

  it('keeps whole the largest JSON payload the stats stream takes, escaped at worst', () => {
    const quotes = `[${'"\\\\",'.repeat(STAT_EVENT_MAX_BYTES / 5 - 1)}""]`;
    expect(Buffer.byteLength(quotes)).toBeLessThanOrEqual(STAT_EVENT_MAX_BYTES);
    expect(fitLetter(letter(quotes)).payload).toBe(quotes);
  });

  it('cuts a junk payload that escaping makes too large, and says so in the reason', () => {
    const junk = '\u0001'.repeat(STAT_EVENT_MAX_BYTES); // 6 bytes each in JSON
    const fitted = fitLetter(letter(junk));
    expect(bytes(fitted)).toBeLessThanOrEqual(STAT_DEAD_LETTER_MAX_BYTES - 1024);
    expect(bytes(fitted)).toBeGreaterThan((STAT_DEAD_LETTER_MAX_BYTES - 1024) * 0.9);
    expect(junk.startsWith(fitted.payload)).toBe(true);
    expect(fitted.reason).toBe(`payload does not match the StatEvent schema (payload cut to its first ${fitted.payload.length} of ${junk.length} characters to fit a letter)`);
  });

  it('keeps the first validation errors and counts the others', () => {
    const errors = Array.from({ length: 5_000 }, (_, i) => `/stats/${i} must NOT have additional properties`);
    const fitted = fitLetter(letter('{}', errors));
    expect(fitted.errors).toEqual([...errors.slice(0, DEAD_LETTER_ERRORS_MAX), `and ${5_000 - DEAD_LETTER_ERRORS_MAX} more`]);
  });

  it('ends with an empty payload when even that does not fit', () => {
    expect(fitLetter(letter('x'.repeat(100)), 10).payload).toBe('');
  });
});
