import { cpuMsPerUnit, type AimCheck, type LatencySummary } from './stats.ts';
import type { ScenarioResult } from './load.ts';
import type { PlanReport } from './friendship-scenarios.ts';
import type { InsertStats } from './datagen/friendship-data.ts';
import type { ProfileSummary } from './cpuprofile.ts';

export interface GrowthRow {
  series: string;
  label: string;
  size: number;
  /** documents the store had to hold in that collection when measured */
  collectionDocs: number;
  latency: LatencySummary;
  rate: number;
  scenarioId: string;
}

export interface DatasetReport {
  name: string;
  app: string;
  gamers: number;
  relations: number;
  accepted: number;
  pending: number;
  reused: boolean;
  inserts: InsertStats[];
  collectionsAfter: { gamers: number; relations: number };
}

export interface ProfileReport {
  target: string;
  durationS: number;
  processes: { name: string; file: string; summary: ProfileSummary; requests: number; cpuMsPerRequest: number }[];
  scenario?: ScenarioResult;
}

export interface BenchReport {
  date: string;
  startedAt: string;
  finishedAt: string;
  mode: string;
  machine: { cpu: string; cores: number; memGb: number; node: string; kernel: string; loadStart: number[]; loadEnd: number[] };
  stack: { engine: string; mongoImage: string; natsImage: string; db: string; settings: string[] };
  datasets: DatasetReport[];
  scenarios: ScenarioResult[];
  checks: AimCheck[];
  growth: GrowthRow[];
  growthFactors: { series: string; factorP99: number; factorP50: number; exponentP50: number }[];
  plans: PlanReport[];
  profile?: ProfileReport;
  profileBaseline?: ProfileReport;
  tasks: Record<string, unknown>;
  findings: string[];
  notes: string[];
}

export const PROCESS_ORDER = ['gateway', 'friendship', 'tasks', 'friendship-db', 'tasks-db', 'nats', 'ceiling', 'loadgen'];

export function fmt(n: number | undefined, digits = 1): string {
  if (n === undefined || !Number.isFinite(n)) return '–';
  if (Math.abs(n) >= 10_000) return Math.round(n).toLocaleString('en-US');
  if (Math.abs(n) >= 100) return n.toFixed(0);
  return n.toFixed(digits);
}

export function pct(n: number): string {
  return Number.isFinite(n) ? `${(n * 100).toFixed(0)} %` : '–';
}

function usageCells(s: ScenarioResult, names: string[]): string {
  return names
    .map((p) => {
      const u = s.usage[p];
      return u ? `${fmt(u.cpuPercent, 0)} / ${fmt(u.rssMbPeak, 0)}` : '–';
    })
    .join(' | ');
}

export function scenarioTable(rows: ScenarioResult[], names: string[]): string {
  const head = `| scenario | mode | conns | rate | n | p50 ms | p99 ms | p99.9 ms | errors | ${names.join(' | ')} |`;
  const sep = `|${'---|'.repeat(9 + names.length)}`;
  const body = rows.map(
    (s) =>
      `| ${s.title} | ${s.mode} | ${s.connections} | ${fmt(s.rate, 2)} ${s.unit} | ${s.latency.n} | ${fmt(s.latency.p50)} | ${fmt(s.latency.p99)} | ${fmt(s.latency.p999)} | ${s.errors}${s.timeouts ? ` (${s.timeouts} t/o)` : ''} | ${usageCells(s, names)} |`,
  );
  return [head, sep, ...body].join('\n');
}

/** The unit of one scenario's rate ("req/s" -> "req", "pairs/s" -> "pair", "events/s in" -> "event"). */
function unitOf(s: ScenarioResult): string {
  const u = s.unit.split('/')[0]!.trim();
  return u.endsWith('s') ? u.slice(0, -1) : u;
}

/**
 * CPU milliseconds per unit of work (request, pair, event), per process: what a scenario
 * costs each process, comparable across scenarios and runs whatever the rate was.
 */
export function cpuPerUnitTable(rows: ScenarioResult[], names: string[]): string {
  const head = `| scenario | per | ${names.join(' | ')} |`;
  const sep = `|${'---|'.repeat(2 + names.length)}`;
  const body = rows.map((s) => {
    const units = s.rate * s.wallS;
    const cells = names.map((n) => (s.usage[n] ? fmt(cpuMsPerUnit(s.usage[n]!.cpuPercent, s.wallS, units), 2) : '–'));
    return `| ${s.title} | ${unitOf(s)} | ${cells.join(' | ')} |`;
  });
  return [head, sep, ...body].join('\n');
}

export function checksTable(checks: AimCheck[]): string {
  const rows = checks.map((c) => {
    const isRatio = c.name.includes('%') || c.name.includes('vs');
    const value = isRatio ? pct(c.value) : fmt(c.value, 2);
    const aim = `${c.kind === 'min' ? '≥' : '≤'} ${isRatio ? pct(c.aim) : fmt(c.aim, 2)}`;
    return `| ${c.name} | ${value} | ${aim} | **${c.verdict}** | ${c.detail} |`;
  });
  return ['| ratio / aim | measured | aim | verdict | from |', '|---|---|---|---|---|', ...rows].join('\n');
}

export function growthTable(rows: GrowthRow[]): string {
  const out = ['| series | point | docs in the scanned collection | n | p50 ms | p99 ms | rate req/s |', '|---|---|---|---|---|---|---|'];
  for (const r of rows) out.push(`| ${r.series} | ${r.label} | ${r.collectionDocs.toLocaleString('en-US')} | ${r.latency.n} | ${fmt(r.latency.p50)} | ${fmt(r.latency.p99)} | ${fmt(r.rate, 2)} |`);
  return out.join('\n');
}

export function profileTable(p: ProfileReport): string {
  const out: string[] = [];
  for (const proc of p.processes) {
    const s = proc.summary;
    out.push(`**${proc.name}** — busy ${fmt(s.busyMs, 0)} ms of ${fmt(s.totalMs, 0)} ms sampled (GC ${fmt(s.gcMs, 0)} ms), ${proc.requests} requests, **${fmt(proc.cpuMsPerRequest, 3)} ms CPU per request**`);
    out.push('');
    out.push('| self time | % busy | function | area |', '|---|---|---|---|');
    for (const t of s.top.slice(0, 12)) out.push(`| ${fmt(t.selfMs, 0)} ms | ${fmt(t.percent)} | \`${t.frame.replaceAll('|', '\\|')}\` | ${t.area} |`);
    out.push('');
    out.push(`By area: ${s.byArea.slice(0, 8).map((a) => `${a.area} ${fmt(a.percent)} %`).join(', ')}`);
    out.push('');
  }
  return out.join('\n');
}

/** How a report names the machine's speed at its start (bench/src/machine-speed.ts). */
export function referenceSentence(speed: { cpuMs: number; loopbackUs: number }): string {
  return `Machine speed at the start (bench/src/machine-speed.ts): CPU reference work ${speed.cpuMs.toFixed(0)} ms, a loopback TCP round trip ${speed.loopbackUs.toFixed(0)} µs; runs far apart in these do not compare.`;
}
