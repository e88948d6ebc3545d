import { describe, expect, it } from 'vitest';
import { SpillRouter } from '../../src/stats/lanes.ts';

/** Routes events as the consumer does, counting what waits in each lane. */
function lanesOf(lanes: number, batch: number) {
  const router = new SpillRouter(lanes, batch);
  const waiting = Array.from({ length: lanes }, () => [] as string[]);
  return {
    router,
    waiting,
    push(gamer: string): number {
      const lane = router.route(gamer, (i) => waiting[i]!.length);
      waiting[lane]!.push(gamer);
      return lane;
    },
    /** the lane's waiting events leave as a batch and are written */
    write(lane: number): void {
      router.settled(waiting[lane]!.splice(0));
    },
  };
}

describe('SpillRouter', () => {
  it('keeps every gamer on the first lane while less than a batch waits there', () => {
    const l = lanesOf(2, 4);
    for (let round = 0; round < 10; round++) {
      expect([l.push(`a${round}`), l.push(`b${round}`), l.push(`c${round}`)]).toEqual([0, 0, 0]);
      l.write(0);
    }
    expect(l.router.gamersInFlight).toBe(0);
  });

  it('spills new gamers to the next lane with room once a full batch waits', () => {
    const l = lanesOf(3, 2);
    expect(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((g) => l.push(g))).toEqual([0, 0, 1, 1, 2, 2, 2]);
  });

  it('keeps a gamer on their lane while any of their events is not written, then lets them go', () => {
    const l = lanesOf(2, 2);
    expect(l.push('a')).toBe(0);
    expect(l.push('b')).toBe(0);
    // lane 0 is full: a new gamer spills, but a's and b's next events follow their first
    expect(l.push('c')).toBe(1);
    expect(l.push('a')).toBe(0);
    expect(l.push('c')).toBe(1);
    expect(l.push('b')).toBe(0);
    l.write(1);
    // c's events are written; lane 0 is still full, lane 1 empty: c may go to either, takes the one with room
    expect(l.push('c')).toBe(1);
    l.write(0);
    // a and b are written too: everyone starts again from the first lane
    expect(l.push('a')).toBe(0);
    expect(l.push('b')).toBe(0);
    expect(l.push('c')).toBe(1);
  });

  it('is one lane when there is one', () => {
    const l = lanesOf(1, 2);
    expect(['a', 'b', 'c', 'd'].map((g) => l.push(g))).toEqual([0, 0, 0, 0]);
  });
  it('makes the pull wait for any lane while a full batch waits in every lane, for one lane while two wait in it', () => {
    const l = lanesOf(2, 2);
    const waits = () => (lane: number) => l.router.mustWait(lane, (i) => l.waiting[i]!.length);
    expect(waits()(l.push('a'))).toBe(false);
    expect(waits()(l.push('b'))).toBe(false);
    expect(waits()(l.push('c'))).toBe(false);
    // both lanes hold a full batch: whichever frees first lets the pull go on
    expect(waits()(l.push('d'))).toBe('anyLane');
    l.write(1);
    // a backlog of two gamers, pinned to lane 0 while their events keep coming: lane 1 idles,
    // and the pull waits once lane 0 holds two batches instead of filling it without end
    expect(waits()(l.push('a'))).toBe(false);
    expect(waits()(l.push('b'))).toBe('thisLane');
  });

  it('with one lane, waits once a full batch waits', () => {
    const l = lanesOf(1, 3);
    expect([1, 2, 3].map(() => l.router.mustWait(l.push('a'), (i) => l.waiting[i]!.length))).toEqual([false, false, 'anyLane']);
  });
});
