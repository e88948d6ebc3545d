import { describe, expect, it } from 'vitest';
import { isGamerId } from '../../src/gamer-id.ts';

describe('isGamerId', () => {
  it('takes a UUID in either case, and nothing else (a dead letter may name a malformed gamer id)', () => {
    expect(isGamerId('0190a000-0000-7000-8000-000000000001')).toBe(true);
    expect(isGamerId('0190A000-0000-7000-8000-00000000000F')).toBe(true);
    for (const text of ['', 'not-a-uuid', '0190a000-0000-7000-8000-00000000000', ' 0190a000-0000-7000-8000-000000000001', '0190a000000070008000000000000001']) expect(isGamerId(text)).toBe(false);
  });
});
