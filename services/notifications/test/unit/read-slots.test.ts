import { describe, expect, it } from 'vitest';
import { ReadSlots } from '../../src/live/read-slots.ts';

describe('ReadSlots', () => {
  it('runs at most its size at once, the others in the order they came, and frees a slot on failure too', async () => {
    const slots = new ReadSlots(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const read = (i: number, fail = false) => slots.run(async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      order.push(i);
      running--;
      if (fail) throw new Error('read failed');
      return i;
    });
    const results = await Promise.allSettled([read(1), read(2, true), read(3), read(4), read(5)]);
    expect(most).toBe(2);
    expect(order).toEqual([1, 2, 3, 4, 5]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
  });
});
