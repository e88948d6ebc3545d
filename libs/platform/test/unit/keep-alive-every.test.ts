import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keepAliveEvery } from '../../src/jetstream-pull.ts';

describe('keepAliveEvery', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('beats at its pace, and takes a shorter one within a second, not after the beat already waiting at the old pace', () => {
    let pace = 10_000;
    const beats: number[] = [];
    const keepAlive = keepAliveEvery(() => pace, () => beats.push(performance.now()));
    vi.advanceTimersByTime(10_000);
    expect(beats).toEqual([10_000]);
    // ack_wait lowered (30 s -> 1 s): a third of it
    vi.advanceTimersByTime(2_000);
    pace = 333;
    vi.advanceTimersByTime(1_000);
    // before: the next beat only at 20,000, ten times past the new ack_wait
    expect(beats.length).toBe(2);
    expect(beats[1]).toBeLessThanOrEqual(13_000);
    vi.advanceTimersByTime(1_000);
    expect(beats.length).toBeGreaterThanOrEqual(4);
    keepAlive.stop();
    const count = beats.length;
    vi.advanceTimersByTime(10_000);
    expect(beats.length).toBe(count);
  });
});
