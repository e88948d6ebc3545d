/**
 * The page of the peer-shaped scenario (peer.ts): per phase the rate, latency and CPU ms per
 * request of every process; the issue #16 ratios against Nakama's figures; a before/after
 * table when an earlier run is given. Pure: JSON in, Markdown out.
 */

interface Usage {
  cpuPercent: number;
  rssMbPeak: number;
}

import { referenceSentence } from './report.ts';

export interface PeerPhase {
  id: string;
  title: string;
  count: number;
  unit: string;
  seconds: number;
  rate: number;
  latency: { n: number; p50: number; p99: number; max: number };
  errors: number;
  usage: Record<string, Usage>;
  cpuMsPer: Record<string, number>;
  machineCpuPercent: number;
  notes: string[];
}

export interface PeerReport {
  startedAt: string;
  label: string | null;
  benchCommit: string;
  stackCommit: string;
  stackRoot: string;
  app: string;
  loadBefore: number[];
  loadAfter: number[];
  /** bench/src/machine-speed.ts's references at the start; absent in runs before 2026-11-27 */
  machineSpeed?: { cpuMs: number; loopbackUs: number };
  setup: { gamers: number; friendships: number; seconds: number; registered: number };
  nakama: { friendListCpuMs: number; addFriendCpuMs: number; friendListRps: number; addFriendPairsPerS: number };
  aims: { friendListRps: number; addFriendPairsPerS: number; gatewayVsDirect: number };
  ratios: {
    friendListOursCpuMs: number;
    friendListAllCpuMs: number;
    addFriendOursCpuMs: number;
    addFriendAllCpuMs: number;
    friendListRps: number;
    addFriendPairsPerS: number;
    gatewayVsDirect: number;
    /** runs before the bare proxy phase existed have none */
    bareProxyVsDirect?: number;
  };
  phases: PeerPhase[];
}

const PROCESS_ORDER = ['gateway', 'friendship', 'friendship-db', 'tasks', 'tasks-db', 'notifications', 'notifications-db', 'nats', 'loadgen'];

export function fmt(n: number | undefined, digits = 2): string {
  if (n === undefined || !Number.isFinite(n)) return '–';
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

const verdict = (ok: boolean, value: number) => (Number.isFinite(value) ? (ok ? '**met**' : '**not met**') : 'no data');

/** The issue's goals as rows: figure, measured, goal, verdict. */
export function goalRows(r: PeerReport): string[][] {
  const x = r.ratios;
  return [
    ['gateway + friendship CPU per friend-list request', `${fmt(x.friendListOursCpuMs)} ms`, `≤ ${r.nakama.friendListCpuMs} ms (Nakama's total)`, verdict(x.friendListOursCpuMs <= r.nakama.friendListCpuMs, x.friendListOursCpuMs)],
    ['gateway + friendship CPU per add-friend pair', `${fmt(x.addFriendOursCpuMs)} ms`, `≤ ${r.nakama.addFriendCpuMs} ms (Nakama's total)`, verdict(x.addFriendOursCpuMs <= r.nakama.addFriendCpuMs, x.addFriendOursCpuMs)],
    ['friend list req/s (through the gateway)', fmt(x.friendListRps, 1), `≥ ${r.aims.friendListRps} (Nakama ${r.nakama.friendListRps})`, verdict(x.friendListRps >= r.aims.friendListRps, x.friendListRps)],
    ['add-friend pairs/s', fmt(x.addFriendPairsPerS, 1), `≥ ${r.aims.addFriendPairsPerS} (Nakama ${r.nakama.addFriendPairsPerS})`, verdict(x.addFriendPairsPerS >= r.aims.addFriendPairsPerS, x.addFriendPairsPerS)],
    ['gateway vs direct, GET /blocked (empty)', `${fmt(x.gatewayVsDirect * 100, 0)} %`, `≥ ${r.aims.gatewayVsDirect * 100} %`, verdict(x.gatewayVsDirect >= r.aims.gatewayVsDirect, x.gatewayVsDirect)],
    ...(x.bareProxyVsDirect !== undefined
      ? [['bare Node proxy vs direct, GET /blocked (the ceiling of any Node hop here; informational)', `${fmt(x.bareProxyVsDirect * 100, 0)} %`, 'gateway ≤ this', '']]
      : []),
    ['gateway + friendship + its store CPU per friend-list request (informational)', `${fmt(x.friendListAllCpuMs)} ms`, `Nakama ${r.nakama.friendListCpuMs} ms`, ''],
    ['gateway + friendship + its store CPU per add-friend pair (informational)', `${fmt(x.addFriendAllCpuMs)} ms`, `Nakama ${r.nakama.addFriendCpuMs} ms`, ''],
  ];
}

function table(header: string[], rows: string[][]): string[] {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
}

function processesOf(phases: PeerPhase[]): string[] {
  const seen = new Set(phases.flatMap((p) => Object.keys(p.cpuMsPer)));
  return [...PROCESS_ORDER.filter((n) => seen.has(n)), ...[...seen].filter((n) => !PROCESS_ORDER.includes(n))];
}

function describe(r: PeerReport): string {
  return `${r.label ?? 'run'} (stack commit ${r.stackCommit}${r.stackCommit !== r.benchCommit ? `, bench ${r.benchCommit}` : ''})`;
}

export function renderPeer(r: PeerReport, before?: PeerReport): string {
  const procs = processesOf(r.phases);
  const lines = [
    `# Peer-shaped scenario (issue #16): ${r.startedAt.slice(0, 10)}${r.label ? ` — ${r.label}` : ''}`,
    '',
    `Command: \`bench/run.sh --peer${r.label ? ` --label ${r.label}` : ''}\`, started ${r.startedAt}. Stack: \`${r.stackRoot}\` at ${r.stackCommit}; bench at ${r.benchCommit}. Application \`${r.app}\` (fresh per run).`,
    `Load average ${r.loadBefore.map((l) => l.toFixed(2)).join(' / ')} before, ${r.loadAfter.map((l) => l.toFixed(2)).join(' / ')} after (1/5/15 min; 2.00 = both cores busy).${r.machineSpeed === undefined ? '' : ` ${referenceSentence(r.machineSpeed)}`} Data: ${r.setup.gamers} gamers and ${r.setup.friendships} friendships written straight into the friendship database in ${fmt(r.setup.seconds, 1)} s (the service's own models); ${r.setup.registered} gamers then called once through the gateway (registration is not measured).`,
    'Everything (services, stores, NATS, load client) shares the same 2 cores. CPU ms per request: utime+stime of the process from /proc over the phase ÷ the requests (pairs) it served.',
    '',
    '## Goals (issue #16)',
    '',
    ...table(['figure', 'measured', 'goal', 'verdict'], goalRows(r)),
    '',
    '## Phases',
    '',
    ...table(['phase', 'n', 'rate', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'machine CPU %'],
      r.phases.map((p) => [p.title, String(p.count), `${fmt(p.rate, 1)} ${p.unit}/s`, fmt(p.latency.p50, 1), fmt(p.latency.p99, 1), fmt(p.latency.max, 1), String(p.errors), fmt(p.machineCpuPercent, 0)])),
    '',
    '### CPU ms per request (per pair for add-friend), per process',
    '',
    ...table(['phase', ...procs], r.phases.map((p) => [p.id, ...procs.map((n) => fmt(p.cpuMsPer[n]))])),
    '',
    '### CPU % of one core / peak RSS MB, per process',
    '',
    ...table(['phase', ...procs], r.phases.map((p) => [p.id, ...procs.map((n) => (p.usage[n] ? `${fmt(p.usage[n]!.cpuPercent, 0)} / ${fmt(p.usage[n]!.rssMbPeak, 0)}` : '–'))])),
    '',
    ...r.phases.flatMap((p) => p.notes.map((n) => `- \`${p.id}\`: ${n}`)),
    '',
  ];
  if (before) {
    const rows: string[][] = [];
    const pair = (name: string, a: number, b: number, digits = 2) => rows.push([name, fmt(a, digits), fmt(b, digits), Number.isFinite(a) && Number.isFinite(b) && a !== 0 ? `×${fmt(b / a, 2)}` : '–']);
    pair('friend list req/s', before.ratios.friendListRps, r.ratios.friendListRps, 1);
    pair('add-friend pairs/s', before.ratios.addFriendPairsPerS, r.ratios.addFriendPairsPerS, 1);
    pair('gateway vs direct (GET /blocked), %', before.ratios.gatewayVsDirect * 100, r.ratios.gatewayVsDirect * 100, 0);
    for (const id of r.phases.map((p) => p.id)) {
      const a = before.phases.find((p) => p.id === id);
      const b = r.phases.find((p) => p.id === id)!;
      if (!a) continue;
      pair(`${id}: p50 ms`, a.latency.p50, b.latency.p50, 1);
      for (const n of procs) if (a.cpuMsPer[n] !== undefined) pair(`${id}: CPU ms/${b.unit} ${n}`, a.cpuMsPer[n]!, b.cpuMsPer[n]!);
    }
    lines.push(
      `## Before / after: ${describe(before)} → ${describe(r)}`,
      '',
      `Before started ${before.startedAt}, load average ${before.loadBefore.map((l) => l.toFixed(2)).join(' / ')} → ${before.loadAfter.map((l) => l.toFixed(2)).join(' / ')}.`,
      '',
      ...table(['figure', 'before', 'after', 'after ÷ before'], rows),
      '',
    );
  }
  return lines.join('\n');
}
