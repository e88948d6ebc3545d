import { describe, expect, it } from 'vitest';
import { ByteBudget } from '../../src/stats/byte-budget.ts';

describe('ByteBudget (the bytes of stat events a replica holds)', () => {
  it('has room while the bytes held are within the bound, and waits past it until enough are given back', async () => {
    const budget = new ByteBudget(100);
    budget.take(60);
    budget.take(40);
    let roomy = false;
    await budget.room().then(() => (roomy = true));
    expect(roomy).toBe(true);
    budget.take(1);
    let woke = false;
    const waiting = budget.room().then(() => (woke = true));
    budget.give(0);
    await Promise.resolve();
    expect(woke).toBe(false);
    budget.give(1);
    await waiting;
    expect([woke, budget.held]).toEqual([true, 100]);
  });

  it('never counts below zero', () => {
    const budget = new ByteBudget(10);
    budget.give(5);
    expect(budget.held).toBe(0);
  });
});
