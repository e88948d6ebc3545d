import { describe, expect, it } from 'vitest';
import { seasonEndChange, seasonInput } from '../../src/pages/season-form.ts';

describe('the season form', () => {
  it('shows the season end to the second', () => {
    expect(seasonInput('2026-12-31T23:59:59.999Z')).toBe('2026-12-31T23:59:59');
  });

  it('sends nothing when the end shown is saved unchanged, milliseconds and all', () => {
    expect(seasonEndChange('2026-12-31T23:59:59.999Z', '2026-12-31T23:59:59')).toEqual({ kind: 'unchanged' });
    // the browser drops zero seconds from the input's value
    expect(seasonEndChange('2027-01-01T00:00:00.000Z', '2027-01-01T00:00')).toEqual({ kind: 'unchanged' });
  });

  it('sends a changed end with its seconds, as UTC', () => {
    expect(seasonEndChange('2026-12-31T23:59:59.999Z', '2026-12-31T23:59:58')).toEqual({ kind: 'set', endsAt: '2026-12-31T23:59:58.000Z' });
    expect(seasonEndChange(null, '2026-12-31T23:59:59')).toEqual({ kind: 'set', endsAt: '2026-12-31T23:59:59.000Z' });
  });

  it('sends a text that is no time as it is, for the API to refuse', () => {
    expect(seasonEndChange('2026-12-31T23:59:59.999Z', '')).toEqual({ kind: 'set', endsAt: '' });
  });
});
