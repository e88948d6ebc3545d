/**
 * The notifications bench's page from its JSON (`bench/src/notifications.ts`). Pure: the
 * figures in, markdown out; `.generated.md` beside the JSON, the reading goes into the
 * hand-written `.md`.
 */
import type { AuditResult, kneeOf, stormTimes } from './notifications-model.ts';
import type { ProcessUsage } from './procstat.ts';
import type { AimCheck, LatencySummary } from './stats.ts';

export interface PhaseResult {
  id: string;
  kind: 'completed' | 'progress';
  rate: number;
  published: number;
  offeredPerS: number;
  seconds: number;
  drainMs: number;
  delivered: number;
  missing: number;
  latency: LatencySummary;
  latencyDirect: LatencySummary;
  latencyGateway: LatencySummary;
  usage: Record<string, ProcessUsage>;
  machineCpu: number;
  loadgenLoopDelayP99Ms: number;
}

export interface NotificationsReport {
  kind: 'notifications';
  date: string;
  startedAt: string;
  finishedAt: string;
  command: string;
  git: { commit: string; branch: string; dirty: boolean };
  machine: { cpu: string; cores: number; memGb: number; node: string; kernel: string; openFilesLimit: number };
  load: { start: number[]; end: number[]; uptimeStart: string; uptimeEnd: string };
  stack: { engine: string; mongoImage: string; natsImage: string; settings: string[] };
  options: Record<string, unknown>;
  idle: {
    seconds: number;
    socketsOpen: number;
    socketsStillOpen: number;
    gaugeAfterConnect: number;
    directCount: number;
    rssBase: Record<string, number>;
    rssIdle: Record<string, number>;
    bytesPerSocket: { notifications: number; gatewayPerPiped: number; loadgen: number };
    usage: Record<string, ProcessUsage>;
    machineCpu: number;
    loadgenLoopDelayP99Ms: number;
    connect: { ms: number; perS: number; usage: Record<string, ProcessUsage> };
  };
  phases: PhaseResult[];
  knee: ReturnType<typeof kneeOf>;
  storm: {
    cut: number;
    withoutLastId: number;
    times: ReturnType<typeof stormTimes>;
    reconnectAttempts: number;
    disconnectCodes: Record<string, number>;
    published: number;
    publishRate: number;
    drainMs: number;
    audit: AuditResult;
    delivery: LatencySummary;
    usage: Record<string, ProcessUsage>;
    machineCpu: number;
    stopped: number;
  };
  audit: AuditResult;
  checks: AimCheck[];
}

const f = (v: number | null | undefined, digits = 1) => (v === null || v === undefined || !Number.isFinite(v) ? 'n/a' : v.toFixed(digits));
const mib = (bytes: number) => f(bytes / 2 ** 20, 0);
const PROCS = ['notifications', 'gateway', 'nats', 'notifications-db', 'friendship', 'friendship-db', 'loadgen'];
const cpuCells = (u: Record<string, ProcessUsage>) => PROCS.map((p) => f(u[p]?.cpuPercent, 0)).join(' | ');

export function renderNotifications(r: NotificationsReport): string {
  const lines: string[] = [];
  const push = (...l: string[]) => lines.push(...l);
  push(
    `# Notifications bench, ${r.date}`,
    '',
    `\`${r.command}\` — commit ${r.git.commit.slice(0, 10)} (${r.git.branch}${r.git.dirty ? ', uncommitted changes' : ''}), ${r.startedAt} → ${r.finishedAt}.`,
    `Machine: ${r.machine.cores} × ${r.machine.cpu}, ${r.machine.memGb} GiB, Node ${r.machine.node}, open-file limit ${r.machine.openFilesLimit}. Store ${r.stack.mongoImage}, NATS ${r.stack.natsImage}.`,
    `Load average at start ${r.load.start.map((x) => f(x, 2)).join(' ')}, at end ${r.load.end.map((x) => f(x, 2)).join(' ')}.`,
    `Service settings: ${r.stack.settings.length ? r.stack.settings.join(', ') : 'defaults (NOTIFY_HEARTBEAT_MS 30000)'}.`,
    '',
    '## Aims',
    '',
    '| aim | measured | goal | verdict | detail |',
    '|---|---|---|---|---|',
    ...r.checks.map((c) => `| ${c.name} | ${f(c.value)} | ${c.kind === 'max' ? '≤' : '≥'} ${c.aim} | ${c.verdict} | ${c.detail} |`),
    '',
    '## Idle sockets',
    '',
    `${r.idle.socketsOpen} sockets opened in ${f(r.idle.connect.ms / 1000)} s (${f(r.idle.connect.perS, 0)}/s), ${r.idle.socketsOpen - r.idle.directCount} through the gateway and ${r.idle.directCount} straight to the service; the service's gauge said ${r.idle.gaugeAfterConnect}; ${r.idle.socketsStillOpen} still open after ${r.idle.seconds} s idle.`,
    '',
    '| process | RSS before (MiB) | RSS idle (MiB) | per socket (KiB) | CPU idle (% of a core) |',
    '|---|---|---|---|---|',
    `| notifications | ${mib(r.idle.rssBase.notifications!)} | ${mib(r.idle.rssIdle.notifications!)} | ${f(r.idle.bytesPerSocket.notifications / 1024)} (all sockets) | ${f(r.idle.usage.notifications?.cpuPercent)} |`,
    `| gateway | ${mib(r.idle.rssBase.gateway!)} | ${mib(r.idle.rssIdle.gateway!)} | ${f(r.idle.bytesPerSocket.gatewayPerPiped / 1024)} (per piped socket) | ${f(r.idle.usage.gateway?.cpuPercent)} |`,
    `| load client | ${mib(r.idle.rssBase.loadgen!)} | ${mib(r.idle.rssIdle.loadgen!)} | ${f(r.idle.bytesPerSocket.loadgen / 1024)} | ${f(r.idle.usage.loadgen?.cpuPercent)} |`,
    `| friendship (presence watch) | ${r.idle.rssBase.friendship === undefined ? 'n/a' : mib(r.idle.rssBase.friendship)} | ${r.idle.rssIdle.friendship === undefined ? 'n/a' : mib(r.idle.rssIdle.friendship)} | | ${f(r.idle.usage.friendship?.cpuPercent)} (its store ${f(r.idle.usage['friendship-db']?.cpuPercent)}) |`,
    `| nats / notifications-db | | | | ${f(r.idle.usage.nats?.cpuPercent)} / ${f(r.idle.usage['notifications-db']?.cpuPercent)} |`,
    '',
    `Whole machine over the idle window: ${f(r.idle.machineCpu, 0)} % of one core (200 % = both cores; other engineers' work included).`,
    '',
    '## Event → socket',
    '',
    '| phase | offered/s | published | delivered | missing | p50 ms | p99 ms | p99.9 | max | p99 direct | p99 via gateway | drain ms | CPU % notif. | gateway | nats | db | friendship | friendship-db | load client | machine | client loop p99 ms |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...r.phases.map((p) => `| ${p.id} | ${f(p.offeredPerS, 0)} | ${p.published} | ${p.delivered} | ${p.missing} | ${f(p.latency.p50)} | ${f(p.latency.p99)} | ${f(p.latency.p999)} | ${f(p.latency.max)} | ${f(p.latencyDirect.p99)} | ${f(p.latencyGateway.p99)} | ${f(p.drainMs, 0)} | ${cpuCells(p.usage)} | ${f(p.machineCpu, 0)} | ${f(p.loadgenLoopDelayP99Ms)} |`),
    '',
    `Knee (p99 ≤ 50 ms, nothing missing, ≥ 95 % of the rate offered): highest rate met ${r.knee.highestMet ?? 'none'}, lowest missed ${r.knee.lowestMissed ?? 'none'}.`,
    '',
    '## Reconnect storm',
    '',
    `${r.storm.cut} sockets cut at once (${r.storm.withoutLastId} clients had no last id yet) while ${r.storm.publishRate} notifications/s were published; ${r.storm.times.back} back, first after ${f(r.storm.times.first, 0)} ms, p50 ${f(r.storm.times.p50, 0)} ms, p99 ${f(r.storm.times.p99, 0)} ms, last ${f(r.storm.times.last, 0)} ms; ${r.storm.reconnectAttempts} successful opens; ${r.storm.stopped} clients stopped; disconnects seen by the clients by close code (the cut included) ${JSON.stringify(r.storm.disconnectCodes)}.`,
    '',
    `Events of the storm: ${r.storm.published} published, ${r.storm.audit.received} received, missing ${r.storm.audit.missing}, duplicates ${r.storm.audit.duplicates}, misrouted ${r.storm.audit.misrouted}; delivery p50 ${f(r.storm.delivery.p50)} ms, p99 ${f(r.storm.delivery.p99)} ms, max ${f(r.storm.delivery.max)} ms (live or replayed).`,
    '',
    `CPU over the storm (% of a core): notifications ${f(r.storm.usage.notifications?.cpuPercent, 0)}, gateway ${f(r.storm.usage.gateway?.cpuPercent, 0)}, nats ${f(r.storm.usage.nats?.cpuPercent, 0)}, notifications-db ${f(r.storm.usage['notifications-db']?.cpuPercent, 0)}, friendship ${f(r.storm.usage.friendship?.cpuPercent, 0)}, friendship-db ${f(r.storm.usage['friendship-db']?.cpuPercent, 0)}, load client ${f(r.storm.usage.loadgen?.cpuPercent, 0)}; machine ${f(r.storm.machineCpu, 0)}.`,
    '',
    `Whole run: ${r.audit.expected} events, ${r.audit.received} received by their gamer, missing ${r.audit.missing}, duplicates ${r.audit.duplicates}, misrouted ${r.audit.misrouted}.`,
    '',
  );
  return lines.join('\n');
}
