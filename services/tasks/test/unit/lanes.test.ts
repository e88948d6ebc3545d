import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { laneOf } from '../../src/stats/lanes.ts';

describe('laneOf', () => {
  it('gives a gamer the same lane every time', () => {
    const app = randomUUID();
    for (let i = 0; i < 100; i++) {
      const gamer = randomUUID();
      expect(laneOf(app, gamer, 4)).toBe(laneOf(app, gamer, 4));
    }
  });

  it('is one lane when there is one', () => {
    expect(laneOf(randomUUID(), randomUUID(), 1)).toBe(0);
  });

  it('spreads gamers evenly', () => {
    const app = randomUUID();
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 20_000; i++) counts[laneOf(app, randomUUID(), 4)]! += 1;
    for (const n of counts) expect(Math.abs(n - 5_000)).toBeLessThan(500);
  });

  it('tells gamers apart by application too', () => {
    const gamer = randomUUID();
    const lanes = new Set(Array.from({ length: 50 }, () => laneOf(randomUUID(), gamer, 4)));
    expect(lanes.size).toBeGreaterThan(1);
  });
});
