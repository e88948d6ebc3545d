import { describe, expect, it } from 'vitest';
import { isUuid, uuidv7 } from '../../src/ids.ts';

describe('UUIDv7 ids', () => {
  it('are version 7, RFC 9562 variant, and lead with the time', () => {
    const id = uuidv7(0x0123456789ab);
    expect(isUuid(id)).toBe(true);
    expect(id.startsWith('01234567-89ab-7')).toBe(true);
    expect(['8', '9', 'a', 'b']).toContain(id[19]);
  });

  it('never repeat within one millisecond, across many refills of the random pool', () => {
    const ids = Array.from({ length: 5_000 }, () => uuidv7(1_700_000_000_000));
    expect(new Set(ids).size).toBe(ids.length);
    const randomParts = new Set(ids.map((id) => id.slice(15)));
    expect(randomParts.size).toBe(ids.length);
  });
});
