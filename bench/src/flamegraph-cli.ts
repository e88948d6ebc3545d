/**
 * A flame graph (.svg, flamegraph.ts) of each service's whole run from a directory of
 * .cpuprofile files, as `BENCH_CPU_PROF=1 bench/run.sh ...` leaves them in .stack/cpuprof:
 * for runs other than the peer-shaped one (whose phases peer-profile.ts cuts), such as the
 * stat pipeline's `--tasks-only`.
 *
 *   node bench/src/flamegraph-cli.ts .stack/cpuprof bench/results/<date>-tasks-L
 *
 * writes bench/results/<date>-tasks-L-<service>.svg for every profile of a service's process
 * (its entry script services/<name>/src/server.ts), from its sixth second on (start-up,
 * module loading above all, left out) until the stack stopped, if it was busy for two
 * seconds or more in that time (a service the run did not use is left out, as are the
 * bench's own processes and short-lived helpers). The profiles are those of the last
 * profiled run: .stack/cpuprof is emptied when the next one starts.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CpuProfile } from './cpuprofile.ts';
import { flameGraphSvg, flameTree } from './flamegraph.ts';

const [dir, prefix] = process.argv.slice(2);
if (!dir || !prefix || process.argv.includes('--help')) {
  console.log('usage: node bench/src/flamegraph-cli.ts <dir of .cpuprofile files> <output prefix, e.g. bench/results/2026-11-27-tasks-L>\n(see the header of this file and bench/README.md, "Profile")');
  process.exit(process.argv.includes('--help') ? 0 : 2);
}

const START_UP_MS = 5_000;
const MIN_BUSY_US = 2_000_000;
const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
const written = new Set<string>();
// CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile
const pidOf = (file: string) => file.split('.')[3];
for (const [i, file] of files.entries()) {
  process.stderr.write(`[${i + 1}/${files.length}] ${file}\n`);
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  // a service's process runs its entry script (the bench's own processes import services' modules too)
  const service = profile.nodes.map((n) => /\/services\/([^/]+)\/src\/server\.ts$/.exec(n.callFrame.url)?.[1]).find((name) => name !== undefined);
  if (!service) continue;
  const tree = flameTree(profile, START_UP_MS);
  if (tree.us < MIN_BUSY_US) {
    console.log(`${service}: busy ${(tree.us / 1000).toFixed(0)} ms, no graph`);
    continue;
  }
  // two processes of one service (replicas) keep a graph each
  const out = written.has(service) ? `${prefix}-${service}-${pidOf(file)}.svg` : `${prefix}-${service}.svg`;
  written.add(service);
  const seconds = (profile.endTime - profile.startTime) / 1e6 - START_UP_MS / 1000;
  writeFileSync(out, flameGraphSvg(tree, { title: `${service}: its profile after its first ${START_UP_MS / 1000} s (${seconds.toFixed(0)} s, ${file})` }));
  console.log(`wrote ${out}`);
}
if (written.size === 0) {
  console.error(`no profile in ${dir} of a service busy for ${MIN_BUSY_US / 1e6} s after start-up`);
  process.exit(1);
}
