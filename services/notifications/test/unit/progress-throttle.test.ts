import { describe, expect, it } from 'vitest';
import { progressDecision, ProgressThrottle, type Timers } from '../../src/domain/progress-throttle.ts';

/** A clock and timers a test moves by hand. */
function manualTime() {
  let now = 0;
  const pending = new Map<number, { at: number; fn: () => void }>();
  let next = 0;
  const timers: Timers = {
    setTimeout: (fn, ms) => {
      pending.set(++next, { at: now + ms, fn });
      return next;
    },
    clearTimeout: (handle) => void pending.delete(handle as number),
  };
  const advance = (ms: number) => {
    now += ms;
    for (const [id, timer] of [...pending].sort(([, a], [, b]) => a.at - b.at)) {
      if (timer.at > now) continue;
      pending.delete(id);
      timer.fn();
    }
  };
  return { timers, advance, now: () => now };
}

describe('progressDecision', () => {
  it('sends the first, and any after the interval; holds one sooner for the rest of it', () => {
    expect(progressDecision(undefined, 5, 1000)).toEqual({ kind: 'send' });
    expect(progressDecision(0, 1000, 1000)).toEqual({ kind: 'send' });
    expect(progressDecision(0, 300, 1000)).toEqual({ kind: 'hold', forMs: 700 });
  });
});

describe('ProgressThrottle', () => {
  it('sends at most one per task per interval, ending on the latest value', () => {
    const time = manualTime();
    const sent: string[] = [];
    const throttle = new ProgressThrottle<string>(1000, (m) => sent.push(m), time.timers, time.now);
    throttle.offer('t1', 'p1');
    throttle.offer('t1', 'p2');
    throttle.offer('t2', 'q1');
    time.advance(400);
    throttle.offer('t1', 'p3');
    expect(sent).toEqual(['p1', 'q1']);
    time.advance(600);
    expect(sent).toEqual(['p1', 'q1', 'p3']);
    time.advance(5000);
    expect(sent).toEqual(['p1', 'q1', 'p3']);
    throttle.offer('t1', 'p4');
    expect(sent.at(-1)).toBe('p4');
  });

  it('drops a held progress once its task completed', () => {
    const time = manualTime();
    const sent: string[] = [];
    const throttle = new ProgressThrottle<string>(1000, (m) => sent.push(m), time.timers, time.now);
    throttle.offer('t1', 'p1');
    throttle.offer('t1', 'p2');
    throttle.forget('t1');
    time.advance(2000);
    expect(sent).toEqual(['p1']);
  });

  it('drops a progress that arrives after its task completed, and keeps the other tasks\' going', () => {
    const time = manualTime();
    const sent: string[] = [];
    const throttle = new ProgressThrottle<string>(1000, (m) => sent.push(m), time.timers, time.now);
    throttle.forget('t1');
    throttle.offer('t1', 'late');
    throttle.offer('t2', 'p1');
    time.advance(2000);
    throttle.offer('t1', 'later');
    expect(sent).toEqual(['p1']);
  });

  it('does not keep a slot for every task it ever saw: those past their interval go', () => {
    const time = manualTime();
    const sent: string[] = [];
    const throttle = new ProgressThrottle<string>(1000, (m) => sent.push(m), time.timers, time.now);
    for (let day = 0; day < 50; day++) {
      for (let task = 0; task < 3; task++) throttle.offer(`day${day}-task${task}`, `p${day}.${task}`);
      time.advance(86_400_000);
    }
    expect(sent).toHaveLength(150);
    expect(throttle.slotCount).toBeLessThanOrEqual(64);
    // a held progress survives a sweep, and still ends on the latest value
    throttle.offer('busy', 'b1');
    throttle.offer('busy', 'b2');
    for (let task = 0; task < 100; task++) throttle.offer(`late-${task}`, 'x');
    // and one sent within its interval still holds the next (late-0 lived through the sweeps)
    throttle.offer('late-0', 'y');
    expect(sent.at(-1)).toBe('x');
    time.advance(1000);
    expect(sent.filter((m) => m.startsWith('b'))).toEqual(['b1', 'b2']);
    expect(sent.at(-1)).toBe('y');
  });
});
