/**
 * Where the CPU of a peer-shaped run (peer.ts) went, function by function: summarises the
 * .cpuprofile files the stack's gateway and friendship wrote when the run was started with
 * `BENCH_CPU_PROF=1 bench/run.sh --peer --label L` (node --cpu-prof for the stack's
 * processes; the profiler costs CPU of its own, so such a run's figures are not the
 * measured ones), cut to each measured phase's window.
 *
 *   node bench/src/peer-profile.ts bench/results/<date>-peer-L.json .stack/cpuprof
 *
 * Writes bench/results/<date>-peer-L-profile.md next to the JSON, and beside it a flame
 * graph per process and phase (<date>-peer-L-<process>-<phase>.svg, flamegraph.ts). The
 * .cpuprofile files themselves (tens of MB) stay in .stack/cpuprof: open one in Chrome
 * DevTools or speedscope to explore it further.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { summarizeProfile, type CpuProfile } from './cpuprofile.ts';
import { flameGraphSvg, flameTree } from './flamegraph.ts';
import { fmt } from './peer-report.ts';

const [jsonFile, dir] = process.argv.slice(2);
if (!jsonFile?.endsWith('.json') || !dir || process.argv.includes('--help')) {
  console.log('usage: node bench/src/peer-profile.ts <date>-peer-LABEL.json <dir of .cpuprofile files>\n(see the header of this file and bench/README.md)');
  process.exit(process.argv.includes('--help') ? 0 : 2);
}

interface Phase { id: string; title: string; count: number; unit: string; startEpochMs: number; endEpochMs: number }
const run = JSON.parse(readFileSync(jsonFile, 'utf8')) as { label: string | null; startedAt: string; stackCommit: string; processes: Record<string, { pid: number; startEpochMs: number | null }>; phases: Phase[] };
const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
const lines = [
  `# CPU profile of the peer-shaped run ${run.label ?? ''} (${run.startedAt}, stack ${run.stackCommit})`,
  '',
  'Self time per function of the gateway and friendship processes under `node --cpu-prof`, cut to each measured phase (from the phase\'s wall-clock window and the process\'s start time, ±50 ms), and of the notifications service in the add-friend phase (its friendship notifications). The profiler adds CPU of its own: compare shares, not absolute times, with the measured run.',
  '',
];
/** the phases cut for each process: notifications works only when friendships change */
const PHASES_OF: Record<string, string[]> = {
  gateway: ['friend-list', 'add-friend', 'cheap-gateway'],
  friendship: ['friend-list', 'add-friend', 'cheap-gateway'],
  notifications: ['add-friend'],
};
for (const [name, phaseIds] of Object.entries(PHASES_OF)) {
  const proc = run.processes[name];
  const file = proc ? files.find((f) => f.split('.')[3] === String(proc.pid)) : undefined;
  if (!proc || !file || proc.startEpochMs === null) {
    lines.push(`**${name}**: no profile (pid ${proc?.pid ?? '?'} not among ${files.length} files in ${dir})`, '');
    continue;
  }
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  for (const phase of run.phases.filter((p) => phaseIds.includes(p.id))) {
    const [fromMs, toMs] = [phase.startEpochMs - proc.startEpochMs, phase.endEpochMs - proc.startEpochMs];
    const s = summarizeProfile(profile, phase.id === 'cheap-gateway' ? 30 : 15, fromMs, toMs);
    const svg = jsonFile.replace(/\.json$/, `-${name}-${phase.id}.svg`);
    writeFileSync(svg, flameGraphSvg(flameTree(profile, fromMs, toMs), { title: `${name}, ${phase.title}`, per: { count: phase.count, unit: phase.unit } }));
    lines.push(
      `## ${name}, ${phase.id}`,
      '',
      `Busy ${fmt(s.busyMs, 0)} ms (GC ${fmt(s.gcMs, 0)} ms) over ${phase.count} ${phase.unit}s: ${fmt(s.busyMs / phase.count, 2)} ms per ${phase.unit} under the profiler. Profile \`${file}\`. Flame graph: [${basename(svg)}](${basename(svg)}).`,
      '',
      '| self ms | % busy | function | area |',
      '|---|---|---|---|',
      ...s.top.map((t) => `| ${fmt(t.selfMs, 0)} | ${fmt(t.percent, 1)} | \`${t.frame.replaceAll('|', '\\|')}\` | ${t.area} |`),
      '',
      `By area: ${s.byArea.slice(0, 10).map((a) => `${a.area} ${fmt(a.percent, 1)} %`).join(', ')}`,
      '',
    );
  }
}
const out = jsonFile.replace(/\.json$/, '-profile.md');
writeFileSync(out, lines.join('\n'));
console.log(`wrote ${out}`);
