import { describe, expect, it } from 'vitest';
import { lookAt } from '../../src/upstream-silence.ts';

describe('an upstream socket looked at by the silence sweep', () => {
  const idleMs = 75_000;
  const last = { bytes: 120, at: 1_000 };

  it('is heard now when bytes arrived since the last look, however long ago that was', () => {
    expect(lookAt(last, 126, 500_000, idleMs)).toEqual({ bytes: 126, at: 500_000 });
  });

  it('keeps its last hearing while no byte came and the idle time has not passed', () => {
    expect(lookAt(last, 120, 1_000 + idleMs - 1, idleMs)).toBe(last);
  });

  it('is silent once no byte came for the idle time', () => {
    expect(lookAt(last, 120, 1_000 + idleMs, idleMs)).toBe('silent');
  });
});
