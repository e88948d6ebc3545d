import { deriveFindings } from './findings.ts';
import { checksTable, cpuPerUnitTable, fmt, growthTable, PROCESS_ORDER, profileTable, scenarioTable, type BenchReport } from './report.ts';

const FRIENDSHIP_PROCS = ['gateway', 'friendship', 'friendship-db', 'ceiling', 'loadgen'];
const TASKS_PROCS = ['gateway', 'tasks', 'tasks-db', 'nats', 'loadgen'];

/** The human-readable results page. */
export function renderMarkdown(r: BenchReport): string {
  const out: string[] = [];
  const p = (s = '') => out.push(s);
  const minutes = (Date.parse(r.finishedAt) - Date.parse(r.startedAt)) / 60_000;
  p(`# Benchmark results ${r.date}${r.mode === 'quick' ? ' (quick mode: smaller data, shorter runs)' : ''}`);
  p();
  p(`Command: \`bench/run.sh${r.mode === 'quick' ? ' --quick' : ''}\` — started ${r.startedAt}, took ${minutes.toFixed(1)} min.`);
  p();
  p('## Machine and stack');
  p();
  p(`- CPU: ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memGb} GiB; kernel ${r.machine.kernel}; Node ${r.machine.node}`);
  p(`- Load average at start ${r.machine.loadStart.map((v) => v.toFixed(2)).join(' / ')}, at the end ${r.machine.loadEnd.map((v) => v.toFixed(2)).join(' / ')} (1/5/15 min; 2.00 = both cores busy)`);
  p(`- Database: ${r.stack.db} (\`${r.stack.mongoImage}\`), one container per service; NATS \`${r.stack.natsImage}\`; engine ${r.stack.engine}`);
  p(`- Everything (services, databases, NATS, load generator) shares the same 2 cores; CPU % below is of one core (200 % = the whole machine), RSS is the peak in MB.`);
  p(`- Settings: ${r.stack.settings.join(', ')}`);
  p();
  const findings = [...deriveFindings(r), ...(r.findings ?? [])];
  if (findings.length) {
    p('## Findings');
    p();
    for (const f of findings) p(`- ${f}`);
    p();
  }
  p('## Ratios against the aims');
  p();
  p(checksTable(r.checks));
  p();
  p('## Data');
  p();
  p('| dataset | application | gamers | relations (accepted / pending) | inserted | insert rate | collections after (gamers / relations) |');
  p('|---|---|---|---|---|---|---|');
  for (const d of r.datasets) {
    const rate = d.inserts.map((i) => `${i.collection} ${fmt(i.docsPerSecond, 0)} docs/s`).join(', ') || (d.reused ? 'reused' : '–');
    const inserted = d.inserts.map((i) => `${i.docs.toLocaleString('en-US')} in ${(i.ms / 1000).toFixed(0)} s`).join(' + ') || '–';
    p(`| ${d.name} | \`${d.app.slice(0, 8)}…\` | ${d.gamers.toLocaleString('en-US')} | ${d.relations.toLocaleString('en-US')} (${d.accepted.toLocaleString('en-US')} / ${d.pending.toLocaleString('en-US')}) | ${inserted} | ${rate} | ${d.collectionsAfter.gamers.toLocaleString('en-US')} / ${d.collectionsAfter.relations.toLocaleString('en-US')} |`);
  }
  p();
  const friendship = r.scenarios.filter((s) => !s.id.startsWith('tasks-') && !s.id.startsWith('profile-'));
  p('## Friendship scenarios');
  p();
  p('CPU % / peak RSS MB per process. Rate counts 2xx answers only. `sampled` mode: a single request took longer than 1 s, so requests went one or two at a time within a time budget; the p99 of a handful of samples is their maximum.');
  p();
  p(scenarioTable(friendship, FRIENDSHIP_PROCS.filter((n) => friendship.some((s) => s.usage[n]))));
  p();
  p('CPU ms per request (per pair for request + accept), per process: its CPU time over the scenario ÷ the successful requests.');
  p();
  p(cpuPerUnitTable(friendship, FRIENDSHIP_PROCS.filter((n) => friendship.some((s) => s.usage[n]))));
  p();
  for (const s of friendship) if (s.notes.length) p(`- \`${s.id}\`: ${s.notes.join('; ')}`);
  const pairs = r.scenarios.filter((s) => s.id.startsWith('pairs-') && s.extra);
  for (const s of pairs) {
    const steps = (s.extra as { steps: Record<string, { p50: number; p99: number }> }).steps;
    p(`- \`${s.id}\` per call: ${Object.entries(steps).map(([k, v]) => `${k} p50 ${fmt(v.p50)} ms / p99 ${fmt(v.p99)} ms`).join(', ')}`);
  }
  p();
  const tasks = r.scenarios.filter((s) => s.id.startsWith('tasks-'));
  p('## Tasks scenarios');
  p();
  if (tasks.length) {
    p(scenarioTable(tasks, TASKS_PROCS.filter((n) => tasks.some((s) => s.usage[n]))));
    p();
    p(cpuPerUnitTable(tasks, TASKS_PROCS.filter((n) => tasks.some((s) => s.usage[n]))));
    p();
    for (const s of tasks) if (s.notes.length) p(`- \`${s.id}\`: ${s.notes.join('; ')}`);
  }
  if (r.tasks.summary) p(String(r.tasks.summary));
  else if (r.tasks.skipped) p(`No figures: ${String(r.tasks.skipped)}`);
  p();
  p('## Growth');
  p();
  p(growthTable(r.growth));
  p();
  p('| series | p50 growth × | p99 growth × | fitted exponent (latency ∝ docs^b) |');
  p('|---|---|---|---|');
  for (const g of r.growthFactors) p(`| ${g.series} | ${fmt(g.factorP50, 2)} | ${fmt(g.factorP99, 2)} | ${fmt(g.exponentP50, 2)} |`);
  p();
  p('### Query plans (explain on the main dataset)');
  p();
  for (const plan of r.plans) p(`- ${plan.query}: \`${plan.text}\``);
  p();
  if (r.profile) {
    p('## Profile of the hottest path (item 6)');
    p();
    p(`Target: ${r.profile.target}, ${r.profile.durationS} s under load; start-up samples left out.`);
    if (r.profile.scenario) {
      const s = r.profile.scenario;
      p(`Under the profiler: ${fmt(s.rate, 0)} req/s, p50 ${fmt(s.latency.p50)} ms, p99 ${fmt(s.latency.p99)} ms.`);
    }
    p();
    if (r.profileBaseline) {
      p('### Before the fix (recorded baseline)');
      p();
      p(profileTable(r.profileBaseline));
      p('### After (this run)');
      p();
    }
    p(profileTable(r.profile));
  }
  if (r.notes.length) {
    p('## Notes');
    p();
    for (const n of r.notes) p(`- ${n}`);
    p();
  }
  void PROCESS_ORDER;
  return out.join('\n');
}
