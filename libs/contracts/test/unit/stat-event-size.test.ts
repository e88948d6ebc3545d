import { describe, expect, it } from 'vitest';
import { STAT_DEAD_LETTER_MAX_BYTES, STAT_EVENT_MAX_BYTES, StatEvent, TaskLimits } from '../../src/tasks.ts';
import { check } from '../../src/validate.ts';
import { asciiJson, bytes, CHARACTERS, encodings } from '../support/encodings.ts';

const ID = '0193a5b2-7c1e-7d3f-9a21-5b8c2e4f6a10';
// 64 characters of RFC 3339: the date-time format takes any number of fraction digits
const OCCURRED_AT = `2026-11-21T18:04:05.${'1'.repeat(TaskLimits.OCCURRED_AT_MAX - 21)}Z`;

/** The schema's largest event, every string at its bound in `character`. */
function largestEvent(character: string): StatEvent {
  return {
    eventId: ID,
    applicationId: ID,
    gamerId: ID,
    gameId: character.repeat(TaskLimits.GAME_ID_MAX),
    occurredAt: OCCURRED_AT,
    stats: Array.from({ length: TaskLimits.STATS_PER_EVENT_MAX }, () => ({ applicationStatsId: character.repeat(TaskLimits.STAT_ID_MAX), value: TaskLimits.STAT_VALUE_MAX })),
  };
}

// Headers a stats message may carry (JetStream counts them in max_msg_size): NATS/1.0 line,
// Nats-Msg-Id, traceparent and tracestate, x-request-id, with room to spare.
const HEADER_ALLOWANCE = 4 * 1024;

describe('STAT_EVENT_MAX_BYTES', () => {
  it('is over every schema-valid largest event, however an encoder writes it, with its headers', () => {
    let largest = 0;
    for (const character of CHARACTERS) {
      const event = largestEvent(character);
      expect(check(StatEvent, event).ok, JSON.stringify(character)).toBe(true);
      for (const text of encodings(event)) {
        largest = Math.max(largest, bytes(text));
        expect(bytes(text) + HEADER_ALLOWANCE, JSON.stringify(character)).toBeLessThanOrEqual(STAT_EVENT_MAX_BYTES);
      }
    }
    // the figure its comment gives (compact), and the ASCII event of the security review
    expect(bytes(asciiJson(largestEvent('😀')))).toBe(159_892);
    expect(bytes(JSON.stringify(largestEvent('a')))).toBeGreaterThan(17_600);
    // headroom, not a blank cheque: at most a quarter above the largest event
    expect(STAT_EVENT_MAX_BYTES).toBeLessThan(largest * 1.25);
  });

  it('takes the schema\'s bound on occurredAt, without which no size would hold every valid event', () => {
    const event = largestEvent('a');
    expect(check(StatEvent, { ...event, occurredAt: `2026-11-21T18:04:05.${'1'.repeat(100)}Z` }).ok).toBe(false);
  });

  it('leaves the dead-letter stream room for a letter of any JSON payload the stats stream takes', () => {
    // escaping at most doubles a JSON payload: every byte a quote or a backslash
    const worst = `"${'\\\\'.repeat((STAT_EVENT_MAX_BYTES - HEADER_ALLOWANCE) / 2 - 1)}"`;
    const letter = { reason: 'payload does not match the StatEvent schema', errors: Array.from({ length: 20 }, () => '/stats/0/applicationStatsId must NOT have more than 128 characters'), subject: `gfts.stats.${ID}`, streamSequence: 1, deliveryCount: 1, deadLetteredAt: new Date().toISOString(), payload: worst };
    expect(bytes(JSON.stringify(letter)) + HEADER_ALLOWANCE).toBeLessThanOrEqual(STAT_DEAD_LETTER_MAX_BYTES);
  });
});
