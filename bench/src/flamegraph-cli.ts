/**
 * A flame graph (.svg, flamegraph.ts) of each service's whole run from a directory of
 * .cpuprofile files, as `BENCH_CPU_PROF=1 bench/run.sh ...` leaves them in .stack/cpuprof:
 * for runs other than the peer-shaped one (whose phases peer-profile.ts cuts), such as the
 * stat pipeline's `--tasks-only`.
 *
 *   node bench/src/flamegraph-cli.ts .stack/cpuprof bench/results/<date>-tasks-L
 *
 * writes bench/results/<date>-tasks-L-<service>.svg for every profile whose scripts are a
 * service's (services/<name>/src), from its sixth second on (start-up, module loading
 * above all, left out), if it was busy for two seconds or more after that (a service the run
 * did not use is left out, as are the bench's own processes and short-lived helpers).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CpuProfile } from './cpuprofile.ts';
import { flameGraphSvg, flameTree } from './flamegraph.ts';

const [dir, prefix] = process.argv.slice(2);
if (!dir || !prefix || process.argv.includes('--help')) {
  console.log('usage: node bench/src/flamegraph-cli.ts <dir of .cpuprofile files> <output prefix, e.g. bench/results/2026-11-27-tasks-L>\n(see the header of this file and bench/README.md, "Profile")');
  process.exit(dir && prefix ? 0 : 2);
}

const START_UP_MS = 5_000;
const MIN_BUSY_US = 2_000_000;
const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
let written = 0;
for (const [i, file] of files.entries()) {
  process.stderr.write(`[${i + 1}/${files.length}] ${file}\n`);
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  // the service whose own source files the profile has the most frames of
  const counts = new Map<string, number>();
  for (const node of profile.nodes) {
    const service = /\/services\/([^/]+)\/src\//.exec(node.callFrame.url)?.[1];
    if (service) counts.set(service, (counts.get(service) ?? 0) + 1);
  }
  const service = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (!service) continue;
  const tree = flameTree(profile, START_UP_MS);
  if (tree.us < MIN_BUSY_US) {
    console.log(`${service}: busy ${(tree.us / 1000).toFixed(0)} ms, no graph`);
    continue;
  }
  const out = `${prefix}-${service}.svg`;
  const seconds = (profile.endTime - profile.startTime) / 1e6;
  writeFileSync(out, flameGraphSvg(tree, { title: `${service}, the whole run after start-up (${(seconds - START_UP_MS / 1000).toFixed(0)} s)` }));
  console.log(`wrote ${out}`);
  written++;
}
if (written === 0) {
  console.error(`no profile of a service in ${dir}`);
  process.exit(1);
}
