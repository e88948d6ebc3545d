import { describe, expect, it } from 'vitest';
import { monotonicUuidv7 } from '../../src/domain/ids.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('monotonicUuidv7', () => {
  it('makes UUIDv7 ids that increase strictly, within a millisecond and when the clock steps back', () => {
    const times = [1000, 1000, 1000, 999, 1001, 1001];
    const next = monotonicUuidv7(() => times.shift() ?? 2000);
    const ids = Array.from({ length: 8 }, next);
    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(parseInt(ids[0]!.replaceAll('-', '').slice(0, 12), 16)).toBe(1000);
  });
});
