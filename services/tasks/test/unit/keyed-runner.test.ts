import { describe, expect, it } from 'vitest';
import { KeyedRunner } from '../../src/stats/keyed-runner.ts';

const tick = (ms = 1) => new Promise((resolve) => setTimeout(resolve, ms));

describe('keyed runner', () => {
  it('runs one key in order, one at a time, and keys in parallel within the limit', async () => {
    const runner = new KeyedRunner(3);
    const log: string[] = [];
    let running = 0;
    let peak = 0;
    const perKey = new Map<string, number>();
    const job = (key: string, n: number) => async () => {
      running++;
      peak = Math.max(peak, running);
      perKey.set(key, (perKey.get(key) ?? 0) + 1);
      expect(perKey.get(key)).toBe(1);
      await tick(2);
      log.push(`${key}${n}`);
      perKey.set(key, perKey.get(key)! - 1);
      running--;
    };
    for (let n = 0; n < 4; n++) {
      for (const key of ['a', 'b', 'c', 'd']) {
        await runner.capacity();
        runner.run(key, job(key, n));
      }
    }
    await runner.idle();
    expect(peak).toBeLessThanOrEqual(3);
    for (const key of ['a', 'b', 'c', 'd']) expect(log.filter((l) => l.startsWith(key))).toEqual([0, 1, 2, 3].map((n) => `${key}${n}`));
  });

  it('a failing task does not stop the next one of its key', async () => {
    const runner = new KeyedRunner(2);
    const done: number[] = [];
    runner.run('k', async () => {
      throw new Error('boom');
    });
    runner.run('k', async () => {
      done.push(2);
    });
    await runner.idle();
    expect(done).toEqual([2]);
    expect(runner.size).toBe(0);
  });
});
