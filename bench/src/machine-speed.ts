/**
 * How fast this machine runs at the start of a bench: a fixed piece of CPU work (SHA-256
 * over 16 MB, then JSON round trips of a fixed document) timed in the bench process, the
 * median of 5. Same code and Node version each time, so a run where it takes 1.5x as long
 * ran on a machine 1.5x slower (another VM busy on the host, a lower clock), which the load
 * average does not show. Figures of runs whose reference times differ much do not compare;
 * ratios measured within one run still do.
 */
import { createHash } from 'node:crypto';

const CHUNK = Buffer.alloc(1 << 20, 7);
const DOCUMENT = {
  items: Array.from({ length: 200 }, (_, i) => ({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, name: `Gamer ${i}`, score: i * 37, tags: ['a', 'b', 'c'] })),
};

/** The reference work; its answer is a checksum, the same on every call. */
export function referenceWork(): string {
  const hash = createHash('sha256');
  for (let i = 0; i < 16; i++) hash.update(CHUNK);
  let text = JSON.stringify(DOCUMENT);
  for (let i = 0; i < 200; i++) text = JSON.stringify(JSON.parse(text));
  return `${hash.digest('hex').slice(0, 16)}:${text.length}`;
}

/** Milliseconds the reference work takes here now: the median of `runs`, after one warm-up. */
export function referenceWorkMs(runs = 5): number {
  referenceWork();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    referenceWork();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}
