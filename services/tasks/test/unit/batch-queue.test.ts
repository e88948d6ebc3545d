import { describe, expect, it } from 'vitest';
import { BatchQueue } from '../../src/stats/batch-queue.ts';

const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

/** A queue whose applies are recorded and finish when the test says so. */
function recordingQueue(size: number, waitMs: number) {
  const applied: number[][] = [];
  const finishers: Array<() => void> = [];
  let running = 0;
  let overlapped = false;
  const queue = new BatchQueue<number>(size, waitMs, async (batch) => {
    running++;
    overlapped ||= running > 1;
    applied.push(batch);
    await new Promise<void>((resolve) => finishers.push(resolve));
    running--;
  });
  const finishAll = async () => {
    while (finishers.length > 0) {
      finishers.shift()!();
      await tick();
    }
  };
  return { queue, applied, finishAll, overlapped: () => overlapped };
}

describe('BatchQueue', () => {
  it('applies a full batch at once, and the push that filled it waits until the batch has left the queue', async () => {
    const { queue, applied, finishAll } = recordingQueue(3, 60_000);
    await queue.push(1);
    await queue.push(2);
    await queue.push(3);
    expect(applied).toEqual([[1, 2, 3]]);
    expect(queue.waiting).toEqual([]);
    await finishAll();
  });

  it('applies fewer than a batch once they waited waitMs', async () => {
    const { queue, applied, finishAll } = recordingQueue(10, 20);
    await queue.push(1);
    await queue.push(2);
    expect(applied).toEqual([]);
    await tick(60);
    expect(applied).toEqual([[1, 2]]);
    await finishAll();
  });

  it('keeps applying after a drain that found nothing to do (it once stalled the consumer for good)', async () => {
    const { queue, applied, finishAll } = recordingQueue(10, 20);
    await queue.drain();
    await queue.push(1);
    await tick(60);
    expect(applied).toEqual([[1]]);
    await finishAll();
  });

  it('keeps applying after the timer of an item a running drain already took fires on an empty queue', async () => {
    const { queue, applied, finishAll } = recordingQueue(2, 20);
    await queue.push(1);
    await queue.push(2); // full: the drain starts and clears the timer of 1
    await queue.push(3); // arrives while [1, 2] is applied: a new timer
    await finishAll(); // the running drain takes 3 as well
    expect(applied).toEqual([[1, 2], [3]]);
    await tick(60); // the timer of 3 fires on an empty queue
    await queue.push(4);
    await tick(60);
    expect(applied).toEqual([[1, 2], [3], [4]]);
    await finishAll();
  });

  it('applies an item that arrives as a drain ends, after its last batch, with a batch of one (it stayed queued)', async () => {
    for (let hops = 0; hops <= 4; hops++) {
      const applied: string[] = [];
      const queue: BatchQueue<string> = new BatchQueue<string>(1, 5, (batch) => {
        applied.push(...batch);
        const done = Promise.resolve();
        // B arrives a few microtask hops after A's apply ended: after the drain's last look at
        // the queue, before it has ended
        if (batch[0] === 'A') {
          let chained: Promise<void> = done;
          for (let i = 0; i < hops; i++) chained = chained.then(() => undefined);
          void chained.then(() => queue.push('B'));
        }
        return done;
      });
      void queue.push('A');
      await tick(20);
      expect({ hops, applied, waiting: [...queue.waiting] }).toEqual({ hops, applied: ['A', 'B'], waiting: [] });
    }
  });

  it('applies one batch at a time, in arrival order, what arrived while the previous one was applied', async () => {
    const { queue, applied, finishAll, overlapped } = recordingQueue(2, 10);
    await queue.push(1);
    await queue.push(2);
    const third = queue.push(3);
    const fourth = queue.push(4);
    await tick();
    expect(applied).toEqual([[1, 2]]);
    await finishAll();
    await Promise.all([third, fourth]);
    await tick(30);
    await finishAll();
    await tick(30);
    expect(applied).toEqual([[1, 2], [3, 4]]);
    expect(overlapped()).toBe(false);
  });

  it('drain resolves once nothing waits', async () => {
    const queue = new BatchQueue<number>(2, 60_000, async () => undefined);
    await queue.push(1);
    await queue.drain();
    expect(queue.waiting).toEqual([]);
  });
  it('resolves an awaited push that filled the queue after pushes that filled it were not awaited (lanes: only some are)', async () => {
    // applies that end a few microtask hops after they start, so a batch leaving the queue
    // and the next pushes interleave within one pass of microtasks
    for (let hops = 0; hops < 5; hops++) {
      for (let awaitEvery = 2; awaitEvery < 9; awaitEvery++) {
        const queue = new BatchQueue<number>(2, 60_000, async () => {
          for (let h = 0; h < hops; h++) await Promise.resolve();
        });
        for (let i = 0; i < 40; i++) {
          const room = queue.push(i);
          if (i % awaitEvery !== 0) {
            for (let h = 0; h < i % 3; h++) await Promise.resolve();
            continue;
          }
          const outcome = await Promise.race([room.then(() => 'room'), tick(200).then(() => 'stuck')]);
          expect(outcome, `hops ${hops}, awaiting every ${awaitEvery}th push, push ${i}`).toBe('room');
        }
        await queue.drain();
      }
    }
  });
  it('tells every waiter when the next batch leaves: the push that filled it and those asking for room', async () => {
    const { queue, applied, finishAll } = recordingQueue(2, 60_000);
    await queue.push(1);
    await queue.push(2);
    // a batch is being applied; the next one fills up behind it
    void queue.push(3);
    const filled = queue.push(4);
    const asked = queue.nextRoom();
    let told = 0;
    void filled.then(() => told++);
    void asked.then(() => told++);
    await tick();
    expect(told).toBe(0);
    await finishAll();
    expect(told).toBe(2);
    expect(applied).toEqual([[1, 2], [3, 4]]);
  });
});
