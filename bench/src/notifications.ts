/**
 * The notifications bench (issue #12 item 6): `bench/run.sh --notifications [options]`, which
 * starts and stops the stack, or `node bench/src/notifications.ts` against a running one.
 * Holds N WebSockets on the one notifications replica with the real `@gfts/client`
 * notifications client (reconnect, backoff with jitter, resume by last id), publishes domain
 * events on NATS as the tasks service does, and measures memory per idle socket, CPU at idle,
 * event→socket latency at offered rates, and a reconnect storm with resume. Writes
 * bench/results/<date>-notifications[-quick].{md,json}. See bench/README.md.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { natsNames, type TaskCompletedEvent, type TaskProgressEvent } from '@gfts/contracts';
import { NotificationsClient, type Notification, type WebSocketConstructor } from '@gfts/client';
import { connect } from '@nats-io/transport-node';
import WebSocket from 'ws';
import { bytesPerConnection, DeliveryAudit, dueCount, gamerOfEvent, kneeOf, sourceAddresses, stormTimes } from './notifications-model.ts';
import { renderNotifications, type NotificationsReport, type PhaseResult } from './render-notifications.ts';
import { loadAverage, MachineCpu, UsageSampler } from './procstat.ts';
import { Progress, formatDuration } from './progress.ts';
import { containerPid, Credentials, DEV_INTERNAL_SECRET, DEV_JWT_SECRET, readStackState, type Gamer } from './stack.ts';
import { checkAim, summarize } from './stats.ts';

export const NOTIFICATIONS_HELP = `bench/run.sh --notifications [options]   (or: node bench/src/notifications.ts [options] against a running stack)

N WebSockets on one notifications replica, opened with the @gfts/client notifications client
(some through the gateway, the rest straight to the service with a signed identity: see
bench/README.md for why), then: RSS per idle socket and CPU at idle with heartbeats running,
event→socket latency with task.completed events published on NATS as the tasks service
publishes them (open loop, per offered rate; the knee), a live-only task.progress phase, and
a reconnect storm (every socket cut at once; back with ?since=, audited for gaps and
duplicates). Writes bench/results/<date>-notifications[-quick].md and .json. ~6 minutes.

  --quick                  1,000 sockets (200 via the gateway), rates 1000, 5 s phases, 10 s idle
  --sockets N              sockets, one gamer each (default 10000)
  --via-gateway N          of those, opened through the gateway (default 2000)
  --rates LIST             offered notifications/s of the latency phases (default 1000,2000,4000)
  --phase-s S              seconds each rate is offered (default 10)
  --idle-s S               seconds of the idle measurement (default 65: two heartbeats at 30 s)
  --storm-rate R           notifications/s published through the reconnect storm (default 500)
  --storm-cap-s S          longest wait for every socket to be back (default 60)
  --connect-concurrency N  upgrades in flight while opening the sockets (default 200)
  --source-addresses N     local addresses 127.0.0.1..N the load client spreads over (default 4)
  --state FILE             stack state (default .stack/state.json)
  --out DIR                results directory (default bench/results)
  --label NAME             names the run: <date>-notifications-NAME.{json,generated.md} (e.g. before, after)
  --help                   this text

Service settings (e.g. NOTIFY_HEARTBEAT_MS) pass through the environment of bench/run.sh; the
notifications process's NOTIFY_* settings are recorded in the results.`;

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  console.log(NOTIFICATIONS_HELP);
  process.exit(0);
}
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const num = (name: string, fallback: number): number => {
  const v = arg(name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} needs a number >= 0, got ${v}`);
  return n;
};
const known = new Set(['--notifications', '--quick', '--sockets', '--via-gateway', '--rates', '--phase-s', '--idle-s', '--storm-rate', '--storm-cap-s', '--connect-concurrency', '--source-addresses', '--state', '--out', '--label']);
for (const a of argv) if (a.startsWith('--') && !known.has(a)) throw new Error(`unknown option ${a}; see --help`);
const quick = argv.includes('--quick');
const options = {
  sockets: num('--sockets', quick ? 1_000 : 10_000),
  viaGateway: num('--via-gateway', quick ? 200 : 2_000),
  rates: (arg('--rates') ?? (quick ? '1000' : '1000,2000,4000')).split(',').map(Number).filter((r) => r > 0),
  phaseS: num('--phase-s', quick ? 5 : 10),
  idleS: num('--idle-s', quick ? 10 : 65),
  stormRate: num('--storm-rate', 500),
  stormCapS: num('--storm-cap-s', 60),
  connectConcurrency: num('--connect-concurrency', 200),
  sourceAddresses: num('--source-addresses', 4),
};
if (options.viaGateway > options.sockets) throw new Error('--via-gateway cannot exceed --sockets');
const label = arg('--label');
// part of a file name: nothing that could climb out of the results directory
if (label !== undefined && !/^[A-Za-z0-9._-]+$/.test(label)) throw new Error(`--label takes letters, digits, '.', '_' and '-', got ${label}`);
if (process.env.BENCH_ARGS_ONLY === '1') process.exit(0);

const AIM_P99_MS = 50;
const AIM_BYTES_PER_IDLE_SOCKET = 20 * 1024;
/** after a phase, how long deliveries may still come before what is missing is counted missing */
const DRAIN_CAP_MS = 10_000;

const state = readStackState(arg('--state') ?? join(root, '.stack/state.json')) as ReturnType<typeof readStackState> & {
  services: { notifications: { pid: number; url: string } };
  containers: { notificationsDb: string; friendshipDb: string };
};
const outDir = arg('--out') ?? join(root, 'bench/results');
const creds = new Credentials(process.env.JWT_SECRET ?? DEV_JWT_SECRET, process.env.INTERNAL_TOKEN_SECRET ?? DEV_INTERNAL_SECRET);
const names = natsNames(process.env.NATS_PREFIX ?? 'gfts');
const progress = new Progress({ 'notifications: connect': 60, 'notifications: idle': options.idleS + 10, 'notifications: fan-out': (options.rates.length + 1) * (options.phaseS + 3), 'notifications: storm': 40 });
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const uptime = () => {
  try {
    return execFileSync('uptime', { encoding: 'utf8' }).trim();
  } catch {
    return `load average: ${loadAverage().join(', ')}`;
  }
};
const git = (...args: string[]) => {
  try {
    return execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', timeout: 10_000 }).trim();
  } catch {
    return '';
  }
};

/** 10k sockets need 10k descriptors in this process: bench/run.sh raises the soft limit; check it. */
function openFilesLimit(): number {
  const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  return m ? Number(m[1]) : Number.NaN;
}
const fdLimit = openFilesLimit();
if (fdLimit < options.sockets + 500) throw new Error(`open-file limit ${fdLimit} is below ${options.sockets} sockets: run through bench/run.sh (it raises ulimit -n) or raise it yourself`);

function rssOf(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
/** the median of three samples 500 ms apart: RSS moves with GC */
async function settledRss(pid: number): Promise<number> {
  const s: number[] = [];
  for (let i = 0; i < 3; i++) {
    s.push(rssOf(pid));
    if (i < 2) await sleep(500);
  }
  return s.sort((a, b) => a - b)[1]!;
}
function notifySettings(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter((kv) => /^(NOTIFY_|NATS_PREFIX=|LOG_LEVEL=)/.test(kv)).sort();
  } catch {
    return [];
  }
}
async function socketsGauge(): Promise<number> {
  try {
    const text = await (await fetch(`${state.services.notifications.url}/metrics`)).text();
    const m = /^gfts_notifications_sockets(?:\{[^}]*\})?\s+(\d+)/m.exec(text);
    return m ? Number(m[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

const startedAt = new Date();
const loadStart = loadAverage();
const uptimeStart = uptime();
const app = randomUUID();
const pids = new Map<string, number>([
  ['notifications', state.services.notifications.pid],
  ['gateway', state.services.gateway.pid],
  // presence: the friendship service watches what the notifications replica writes
  ['friendship', state.services.friendship.pid],
  ['loadgen', process.pid],
]);
for (const [name, container] of [['notifications-db', state.containers.notificationsDb], ['nats', state.containers.nats], ['friendship-db', state.containers.friendshipDb]] as const) {
  const pid = containerPid(state.engine, container);
  if (pid) pids.set(name, pid);
  else progress.log(`no pid for container ${container}: its CPU is not reported`);
}
progress.log(`notifications: ${JSON.stringify(options)}; application ${app}; open-file limit ${fdLimit}; ${uptimeStart}`);
const nc = await connect({ servers: state.natsUrl, name: 'bench-notifications', noAsyncTraces: true });
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();

// --- the clients ---------------------------------------------------------------------
interface Client {
  index: number;
  gamer: Gamer;
  viaGateway: boolean;
  client: NotificationsClient;
  socket: WebSocket | undefined;
  opens: number;
  backAt: number | undefined;
  stopped: string | undefined;
}
const gamers: Gamer[] = Array.from({ length: options.sockets }, (_, i) => ({ id: randomUUID(), name: `Notif${i}`, avatar: '' }));
const clients: Client[] = [];
/** when the storm cut the sockets; a client's first open after it is "back" */
const storming: { cutAt: number | undefined; disconnects: Map<number, number> } = { cutAt: undefined, disconnects: new Map() };
const byToken = new Map<string, Client>();
const addresses = sourceAddresses(options.sourceAddresses);
const gatewayBase = state.services.gateway.url;
const serviceBase = state.services.notifications.url;

/**
 * The WebSocket the clients use: `ws`, spread over local source addresses, remembering each
 * client's socket so the storm can cut it. A direct socket carries the identity assertion the
 * gateway would forward (signed per connect: it lives 60 s) instead of the bearer token.
 */
class BenchSocket extends WebSocket {
  constructor(url: string, init?: { headers: Record<string, string> }) {
    const token = (init?.headers.authorization ?? '').replace(/^Bearer /, '');
    const owner = byToken.get(token);
    if (!owner) throw new Error('a socket of no bench client');
    const headers = owner.viaGateway ? { authorization: `Bearer ${token}` } : { 'x-gfts-identity': creds.identityFor(app, owner.gamer) };
    super(url, { headers, localAddress: addresses[owner.index % addresses.length], perMessageDeflate: false });
    owner.socket = this;
  }
}
/** direct clients' REST calls (the client's 401 probe after a refused upgrade) carry the identity too */
const directFetch = (owner: () => Client) => async (input: Request | string | URL, init?: RequestInit) => {
  const request = new Request(input, init);
  const headers = new Headers(request.headers);
  headers.delete('authorization');
  headers.set('x-gfts-identity', creds.identityFor(app, owner().gamer));
  return fetch(new Request(request, { headers }));
};

interface Sent {
  at: number;
  gamer: number;
  phase: string;
}
const sent = new Map<string, Sent>();
const audit = new DeliveryAudit();
const phaseLatencies = new Map<string, { direct: number[]; gateway: number[]; lastAt: number }>();
let received = 0;

function onNotification(c: Client, n: Notification): void {
  const key = (n.data as { gamerTaskId?: string }).gamerTaskId;
  const now = performance.now();
  if (!key) return;
  const s = sent.get(key);
  if (!audit.receive(key, n.id, c.index) || !s) return;
  received++;
  const l = phaseLatencies.get(s.phase);
  if (l) {
    (c.viaGateway ? l.gateway : l.direct).push(now - s.at);
    l.lastAt = now;
  }
}

for (let i = 0; i < options.sockets; i++) {
  const viaGateway = i < options.viaGateway;
  const token = viaGateway ? creds.bearerFor(app, gamers[i]!).replace(/^Bearer /, '') : `direct-${i}`;
  const c: Client = { index: i, gamer: gamers[i]!, viaGateway, client: undefined as unknown as NotificationsClient, socket: undefined, opens: 0, backAt: undefined, stopped: undefined };
  c.client = new NotificationsClient({
    baseUrl: viaGateway ? gatewayBase : serviceBase,
    token,
    auth: 'header',
    WebSocket: BenchSocket as unknown as WebSocketConstructor,
    ...(viaGateway ? {} : { fetch: directFetch(() => c) as typeof fetch }),
  });
  c.client.on('open', () => {
    c.opens++;
    if (storming.cutAt !== undefined && c.backAt === undefined) c.backAt = performance.now();
  });
  c.client.on('notification', (n) => onNotification(c, n));
  c.client.on('disconnect', ({ code }) => {
    if (storming.cutAt === undefined) return;
    storming.disconnects.set(code, (storming.disconnects.get(code) ?? 0) + 1);
  });
  c.client.on('stop', ({ reason, code }) => {
    c.stopped = `${reason}${code ? ` ${code}` : ''}`;
  });
  clients.push(c);
  byToken.set(token, c);
}

// --- 1. open the sockets, then idle ------------------------------------------------------
const notificationsPid = state.services.notifications.pid;
const gatewayPid = state.services.gateway.pid;
await sleep(2_000);
const rssBase = { notifications: await settledRss(notificationsPid), gateway: await settledRss(gatewayPid), friendship: rssOf(state.services.friendship.pid), loadgen: rssOf(process.pid) };
progress.begin('notifications: connect');
const connectStarted = performance.now();
const connectSampler = new UsageSampler(pids);
connectSampler.start();
{
  let next = 0;
  const openOne = async () => {
    while (next < clients.length) {
      const c = clients[next++]!;
      await new Promise<void>((resolve) => {
        const off = c.client.on('open', () => {
          off();
          resolve();
        });
        const offStop = c.client.on('stop', () => {
          offStop();
          resolve();
        });
        c.client.start();
      });
      if (next % 500 === 0) progress.report(next / clients.length, `${next}/${clients.length} sockets`);
    }
  };
  await Promise.all(Array.from({ length: options.connectConcurrency }, openOne));
}
const connectMs = performance.now() - connectStarted;
const connectUsage = connectSampler.stop();
const openCount = clients.filter((c) => c.client.state === 'open').length;
progress.end(`${openCount}/${clients.length} open in ${formatDuration(connectMs)}`);
if (openCount < clients.length) progress.log(`${clients.length - openCount} sockets did not open: ${[...new Set(clients.filter((c) => c.stopped).map((c) => c.stopped))].join(', ')}`);

progress.begin('notifications: idle');
await sleep(5_000);
const gaugeAfterConnect = await socketsGauge();
const idleSampler = new UsageSampler(pids);
const idleMachine = new MachineCpu();
loopDelay.reset();
idleSampler.start(1_000);
const idleStarted = performance.now();
while (performance.now() - idleStarted < options.idleS * 1000) {
  await sleep(1_000);
  progress.report((performance.now() - idleStarted) / (options.idleS * 1000), `${openCount} idle sockets`);
}
const idleUsage = idleSampler.stop();
const idleMachineCpu = idleMachine.stop();
const rssIdle = { notifications: await settledRss(notificationsPid), gateway: await settledRss(gatewayPid), friendship: rssOf(state.services.friendship.pid), loadgen: rssOf(process.pid) };
const stillOpen = clients.filter((c) => c.client.state === 'open').length;
progress.end(`notifications RSS ${((rssIdle.notifications - rssBase.notifications) / 2 ** 20).toFixed(0)} MiB over ${openCount} sockets; ${stillOpen} still open`);
const directCount = openCount - Math.min(options.viaGateway, openCount);
const idle = {
  seconds: options.idleS,
  socketsOpen: openCount,
  socketsStillOpen: stillOpen,
  gaugeAfterConnect,
  rssBase,
  rssIdle,
  bytesPerSocket: {
    notifications: bytesPerConnection(rssBase.notifications, rssIdle.notifications, openCount),
    gatewayPerPiped: bytesPerConnection(rssBase.gateway, rssIdle.gateway, Math.min(options.viaGateway, openCount)),
    loadgen: bytesPerConnection(rssBase.loadgen, rssIdle.loadgen, openCount),
  },
  usage: idleUsage,
  machineCpu: idleMachineCpu,
  loadgenLoopDelayP99Ms: loopDelay.percentile(99) / 1e6,
  connect: { ms: connectMs, perS: (openCount / connectMs) * 1000, usage: connectUsage },
  directCount,
};

// --- 2. event -> socket at offered rates ------------------------------------------------------
let seq = 0;
function publishEvent(phase: string, kind: 'completed' | 'progress'): void {
  const gamer = gamerOfEvent(seq++, options.sockets);
  const key = randomUUID();
  const now = new Date().toISOString();
  const base = { applicationId: app, gamerId: gamers[gamer]!.id, gamerTaskId: key, taskId: key, isAchievement: false };
  sent.set(key, { at: performance.now(), gamer, phase });
  audit.expect(key, gamer);
  if (kind === 'completed') {
    const event: TaskCompletedEvent = { ...base, parentGamerTaskId: null, completedAt: now, eventId: `bench-${key}` };
    nc.publish(names.taskCompleted, JSON.stringify(event));
  } else {
    const event: TaskProgressEvent = { ...base, progress: 1, targetValue: 10, occurredAt: now };
    nc.publish(names.taskProgress, JSON.stringify(event));
  }
}

/** Publishes `rate`/s for `seconds`, open loop, checking the schedule every millisecond. */
async function offer(phase: string, kind: 'completed' | 'progress', rate: number, seconds: number, keepGoing?: () => boolean): Promise<{ published: number; seconds: number }> {
  const total = keepGoing ? Number.MAX_SAFE_INTEGER : Math.round(rate * seconds);
  const t0 = performance.now();
  let published = 0;
  let lastReport = 0;
  while (published < total) {
    const elapsed = performance.now() - t0;
    if (keepGoing ? !keepGoing() : false) break;
    const due = dueCount(elapsed, rate, total);
    while (published < due) {
      publishEvent(phase, kind);
      published++;
    }
    if (!keepGoing && elapsed - lastReport > 2_000) {
      lastReport = elapsed;
      progress.report(published / total, `${phase}: ${published} published, ${received} delivered in all`);
    }
    await sleep(1);
  }
  return { published, seconds: (performance.now() - t0) / 1000 };
}

/** Waits until every event of `phase` was delivered, or DRAIN_CAP_MS after the last delivery. */
async function drain(phase: string, capMs = DRAIN_CAP_MS): Promise<number> {
  const t0 = performance.now();
  const keys = [...sent].filter(([, s]) => s.phase === phase).map(([k]) => k);
  for (;;) {
    const missing = keys.filter((k) => !audit.has(k)).length;
    if (missing === 0) return performance.now() - t0;
    const l = phaseLatencies.get(phase);
    const quietSince = Math.max(t0, l?.lastAt ?? 0);
    if (performance.now() - quietSince > capMs) return performance.now() - t0;
    await sleep(100);
  }
}

async function ratePhase(id: string, kind: 'completed' | 'progress', rate: number): Promise<PhaseResult> {
  phaseLatencies.set(id, { direct: [], gateway: [], lastAt: 0 });
  const sampler = new UsageSampler(pids);
  const machine = new MachineCpu();
  loopDelay.reset();
  sampler.start();
  const { published, seconds } = await offer(id, kind, rate, options.phaseS);
  const usage = sampler.stop();
  const machineCpu = machine.stop();
  const loadgenLoopDelayP99Ms = loopDelay.percentile(99) / 1e6;
  const drainMs = await drain(id);
  const keys = [...sent].filter(([, s]) => s.phase === id).map(([k]) => k);
  const a = audit.result(keys);
  const l = phaseLatencies.get(id)!;
  const all = summarize([...l.direct, ...l.gateway]);
  const result: PhaseResult = {
    id, kind, rate, published, offeredPerS: published / seconds, seconds, drainMs,
    delivered: a.received, missing: a.missing,
    latency: all, latencyDirect: summarize(l.direct), latencyGateway: summarize(l.gateway),
    usage, machineCpu, loadgenLoopDelayP99Ms,
  };
  progress.log(`${id}: ${published} at ${result.offeredPerS.toFixed(0)}/s, p50 ${all.p50.toFixed(1)} ms, p99 ${all.p99.toFixed(1)} ms (gateway p99 ${result.latencyGateway.p99.toFixed(1)}), missing ${a.missing}, notifications CPU ${usage.notifications?.cpuPercent.toFixed(0)} %`);
  await sleep(2_000);
  return result;
}

progress.begin('notifications: fan-out');
const phases: PhaseResult[] = [];
for (const rate of options.rates) phases.push(await ratePhase(`completed-${rate}`, 'completed', rate));
// the same at the first rate without the inbox write: task.progress is live only
phases.push(await ratePhase(`progress-${options.rates[0] ?? 1000}`, 'progress', options.rates[0] ?? 1000));
progress.end();

// --- 3. reconnect storm -------------------------------------------------------------
progress.begin('notifications: storm');
const withoutLastId = clients.filter((c) => c.client.lastId === undefined).length;
const stormPhase = 'storm';
phaseLatencies.set(stormPhase, { direct: [], gateway: [], lastAt: 0 });
const stormSampler = new UsageSampler(pids);
const stormMachine = new MachineCpu();
stormSampler.start();
let publishing = true;
const stormPublisher = offer(stormPhase, 'completed', options.stormRate, 0, () => publishing);
await sleep(2_000);
const opensBefore = clients.reduce((s, c) => s + c.opens, 0);
const stormCutAt = performance.now();
storming.cutAt = stormCutAt;
const cutSockets = clients.filter((c) => c.client.state === 'open');
for (const c of cutSockets) c.socket?.terminate();
progress.log(`storm: cut ${cutSockets.length} sockets (the connections dropped: clients see 1006 and reconnect with backoff and ?since=)`);
while (performance.now() - stormCutAt < options.stormCapS * 1000) {
  const back = cutSockets.filter((c) => c.backAt !== undefined).length;
  progress.report(Math.min(1, back / cutSockets.length), `${back}/${cutSockets.length} back`);
  if (back === cutSockets.length) break;
  await sleep(250);
}
const times = stormTimes(stormCutAt, cutSockets.flatMap((c) => (c.backAt !== undefined ? [c.backAt] : [])), cutSockets.length);
await sleep(2_000);
publishing = false;
const stormPublished = await stormPublisher;
const stormDrainMs = await drain(stormPhase, 15_000);
const stormUsage = stormSampler.stop();
const stormMachineCpu = stormMachine.stop();
const stormKeys = [...sent].filter(([, s]) => s.phase === stormPhase).map(([k]) => k);
const stormAudit = audit.result(stormKeys);
const sl = phaseLatencies.get(stormPhase)!;
const storm = {
  cut: cutSockets.length,
  withoutLastId,
  times,
  reconnectAttempts: clients.reduce((s, c) => s + c.opens, 0) - opensBefore,
  /** close codes the clients saw after the cut, the cut itself included: 1006 beyond `cut` are failed attempts */
  disconnectCodes: Object.fromEntries(storming.disconnects),
  published: stormPublished.published,
  publishRate: options.stormRate,
  drainMs: stormDrainMs,
  audit: stormAudit,
  delivery: summarize([...sl.direct, ...sl.gateway]),
  usage: stormUsage,
  machineCpu: stormMachineCpu,
  stopped: clients.filter((c) => c.stopped).length,
};
progress.end(`all back: ${times.allBack} (last ${(times.last / 1000).toFixed(1)} s), missing ${stormAudit.missing}, duplicates ${stormAudit.duplicates}`);

// --- results -------------------------------------------------------------------------
for (const c of clients) c.client.close();
await nc.drain();
loopDelay.disable();
const whole = audit.result();
const completed = phases.filter((p) => p.kind === 'completed');
const at1000 = completed.find((p) => p.rate === 1000) ?? completed[0];
const report: NotificationsReport = {
  kind: 'notifications',
  date: startedAt.toISOString().slice(0, 10),
  startedAt: startedAt.toISOString(),
  finishedAt: new Date().toISOString(),
  command: `bench/run.sh ${argv.join(' ')}`.trim(),
  git: { commit: git('rev-parse', 'HEAD'), branch: git('rev-parse', '--abbrev-ref', 'HEAD'), dirty: git('status', '--porcelain').length > 0 },
  machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memGb: Math.round(totalmem() / 2 ** 30), node: process.version, kernel: release(), openFilesLimit: fdLimit },
  load: { start: loadStart, end: loadAverage(), uptimeStart, uptimeEnd: uptime() },
  stack: { engine: state.engine, mongoImage: state.mongoImage, natsImage: state.natsImage, settings: notifySettings(notificationsPid) },
  options,
  idle,
  phases,
  knee: kneeOf(completed.map((p) => ({ rate: p.rate, p99: p.latency.p99, missing: p.missing, offeredPerS: p.offeredPerS })), AIM_P99_MS),
  storm,
  audit: whole,
  checks: [
    checkAim('p99 event→socket at 1,000 notifications/s (ms)', at1000?.latency.p99 ?? Number.NaN, AIM_P99_MS, 'max', `${at1000?.id ?? 'no phase'}: all sockets; missing ${at1000?.missing ?? 'n/a'}`),
    checkAim('RSS per idle socket, notifications (KiB)', idle.bytesPerSocket.notifications / 1024, AIM_BYTES_PER_IDLE_SOCKET / 1024, 'max', `${openCount} sockets`),
    checkAim('reconnect storm: all back (s)', times.allBack ? times.last / 1000 : Number.NaN, 10, 'max', `${times.back}/${cutSockets.length} back`),
    checkAim('gaps + duplicates over the whole run', whole.missing + whole.duplicates + whole.misrouted, 0, 'max', `${whole.expected} events`),
  ],
};
mkdirSync(outDir, { recursive: true });
const base = join(outDir, `${report.date}-notifications${quick ? '-quick' : ''}${label ? `-${label}` : ''}`);
writeFileSync(`${base}.json`, JSON.stringify(report, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2));
writeFileSync(`${base}.generated.md`, renderNotifications(report));
progress.log(`results: ${relative(root, base)}.json and .generated.md (${formatDuration(Date.now() - startedAt.getTime())})`);
for (const c of report.checks) progress.log(`aim: ${c.name}: ${Number.isFinite(c.value) ? c.value.toFixed(1) : 'no data'} (${c.verdict}) — ${c.detail}`);
process.exit(0);

