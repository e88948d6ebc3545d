import { describe, expect, it } from 'vitest';
import { referenceWork } from '../../src/machine-speed.ts';

describe('reference work', () => {
  it('does the same work on every call, so that its times compare across runs', () => {
    const first = referenceWork();
    expect(first).toMatch(/^[0-9a-f]{16}:\d+$/);
    expect(referenceWork()).toBe(first);
  });
});
