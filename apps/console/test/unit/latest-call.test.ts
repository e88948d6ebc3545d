import { describe, expect, it } from 'vitest';
import { latestCalls } from '../../src/latest-call.ts';

describe('latestCalls', () => {
  it('keeps only the latest call current, whatever order their answers come in', () => {
    const calls = latestCalls();
    const first = calls.begin();
    expect(first()).toBe(true);
    const second = calls.begin();
    // the first call's answer comes after the second began: it is not shown
    expect(first()).toBe(false);
    expect(second()).toBe(true);
    const third = calls.begin();
    expect([first(), second(), third()]).toEqual([false, false, true]);
  });
});
