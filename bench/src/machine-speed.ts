/**
 * How fast this machine runs at the start of a bench, before any load, timed in the bench
 * process: a fixed piece of CPU work (SHA-256 over 16 MB, then JSON round trips of a fixed
 * document; the median of 5), and one-byte round trips over a loopback TCP connection (µs each, median of 5 runs of 500)
 * (the kernel's share of every request the services serve). Same code and Node version each
 * time, so a run where either takes 1.5x as long ran on a machine 1.5x slower there (another
 * VM busy on the host, a lower clock), which the load average does not show. Figures of runs
 * whose reference times differ much do not compare; equal times do not prove the reverse
 * (contention that only shows under load is not measured). Ratios within one run compare.
 */
import { createHash } from 'node:crypto';
import { connect, createServer } from 'node:net';

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

/** Microseconds of one one-byte request/answer round trip over a loopback TCP connection: the median of 5 runs of `trips`. */
export async function loopbackRoundTripUs(trips = 500): Promise<number> {
  const server = createServer((socket) => socket.on('data', (chunk) => socket.write(chunk)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const client = connect(port, '127.0.0.1');
  client.setNoDelay(true);
  await new Promise<void>((resolve) => client.once('connect', resolve));
  const trip = () => new Promise<void>((resolve) => {
    client.once('data', () => resolve());
    client.write('x');
  });
  for (let i = 0; i < 100; i++) await trip();
  const runs: number[] = [];
  for (let r = 0; r < 5; r++) {
    const start = performance.now();
    for (let i = 0; i < trips; i++) await trip();
    runs.push(((performance.now() - start) * 1000) / trips);
  }
  client.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  runs.sort((a, b) => a - b);
  return runs[2]!;
}

/** Both references, as the pages report them. */
export async function machineSpeed(): Promise<{ cpuMs: number; loopbackUs: number }> {
  return { cpuMs: referenceWorkMs(), loopbackUs: await loopbackRoundTripUs() };
}
