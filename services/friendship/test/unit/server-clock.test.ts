import { describe, expect, it } from 'vitest';
import { serverClock } from '../../src/presence/server-clock.ts';

describe('serverClock (the NATS server\'s time, as the presence board compares its stamps)', () => {
  it('is the wall clock until an entry is heard', () => {
    const clock = serverClock(() => 5, () => 1_000);
    expect(clock.now()).toBe(1_000);
  });

  it('is the latest stamp heard plus the monotonic time since, whatever the wall clock says', () => {
    let mono = 100;
    let wall = 90_000_000;
    const clock = serverClock(() => mono, () => wall);
    clock.heard(50_000);
    mono += 2_000;
    // this replica's wall clock stepped an hour ahead: the server's time does not follow
    wall += 3_600_000;
    expect(clock.now()).toBe(52_000);
    // a later entry sets it again (the server's clock, not this one's, is the reference)
    clock.heard(51_500);
    expect(clock.now()).toBe(51_500);
  });
});
