import { describe, expect, it } from 'vitest';
import { TaskFamily } from '@gfts/contracts';
import { assignmentOrder, numberOfTasksProblem, shuffle } from '../../src/domain/pick.ts';

const tasks = Array.from({ length: 10 }, (_, i) => ({ id: `t${i}` }));

function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

describe('random pick', () => {
  it('keeps every candidate exactly once', () => {
    const order = shuffle(tasks, seeded(7));
    expect(order).toHaveLength(10);
    expect(new Set(order.map((t) => t.id)).size).toBe(10);
  });

  it('never offers a task the gamer holds active', () => {
    const held = new Set(['t1', 't3', 't5']);
    for (let seed = 1; seed < 50; seed++) {
      const order = assignmentOrder(tasks, held, seeded(seed));
      expect(order).toHaveLength(7);
      expect(order.some((t) => held.has(t.id))).toBe(false);
    }
  });

  it('is random: every task comes first sometimes', () => {
    const firsts = new Set<string>();
    for (let seed = 1; seed < 500; seed++) firsts.add(assignmentOrder(tasks, new Set(), seeded(seed))[0]!.id);
    expect(firsts.size).toBe(10);
  });

  it('offers nothing when the gamer holds everything', () => {
    expect(assignmentOrder(tasks, new Set(tasks.map((t) => t.id)))).toEqual([]);
  });
});

describe('numberOfTasksProblem', () => {
  it('takes 1 to the most for every family but seasonal, which takes any number (spec 4.2, rule 1)', () => {
    expect(numberOfTasksProblem(TaskFamily.DAILY, 1, 5)).toBeUndefined();
    expect(numberOfTasksProblem(TaskFamily.DAILY, 5, 5)).toBeUndefined();
    expect(numberOfTasksProblem(TaskFamily.DAILY, 0, 5)).toBe('numberOfTasks must be from 1 to 5');
    expect(numberOfTasksProblem(TaskFamily.WEEKLY, 6, 5)).toBe('numberOfTasks must be from 1 to 5');
    for (const n of [0, -3, 1, 500]) expect(numberOfTasksProblem(TaskFamily.SEASONAL, n, 5)).toBeUndefined();
  });
});
