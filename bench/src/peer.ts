/**
 * The peer-shaped scenario of issue #16: the figures of the Nakama comparison, same shape,
 * CPU per request of every process. Speaks HTTP like any client (through the gateway, and
 * straight to friendship for the near-free read's gateway-vs-direct ratio).
 *
 *   bench/run.sh --peer [--label before|after] [--before bench/results/<date>-peer-before.json]
 *   node bench/src/peer.ts [--state .stack/state.json] [--out bench/results] [--label L]
 *        [--before FILE.json] [--duration-s 20] [--pairs 500]
 *
 * Phases: 20 listers × 100 friends written straight into the friendship database (the
 * service's own models, as the main bench does); friend list `?limit=100` of the 20 listers over 8 keep-alive connections
 * for 20 s; 500 new add-friend pairs at concurrency 4 (request, then accept); GET /blocked
 * (empty) through the gateway, direct, and through a bare Node proxy (proxy-ceiling.ts: the
 * ceiling of any Node hop), 8 connections, 10 s each. CPU: utime+stime of
 * each process from /proc between the start and end of each phase, divided by the
 * requests (or pairs) it served. Writes `<date>-peer[-label].{json,md}`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { FriendshipWriter, planFriendDataset } from './datagen/friendship-data.ts';
import { seededUuid } from './datagen/ids.ts';
import { loadAverage, MachineCpu, processStartEpochMs, UsageSampler, type ProcessUsage } from './procstat.ts';
import { Progress } from './progress.ts';
import { call, containerPid, Credentials, DEV_INTERNAL_SECRET, DEV_JWT_SECRET, readStackState, startNode, stopNode, type Gamer } from './stack.ts';
import { cpuMsPerUnit, summarize, type LatencySummary } from './stats.ts';
import { machineSpeed } from './machine-speed.ts';

const HELP = `usage: node bench/src/peer.ts [options]   (bench/run.sh --peer starts a stack first)
  --state FILE      stack state file (default .stack/state.json)
  --out DIR         results directory (default bench/results)
  --label NAME      names the run: <date>-peer-NAME.{json,md} (e.g. before, after)
  --before FILE     a earlier run's JSON: adds a before/after table
  --duration-s N    friend-list run length (default 20)
  --pairs N         add-friend pairs (default 500)
  --cheap-s N       GET /blocked run length, each of gateway, direct and bare proxy (default 10)
  BENCH_PROXY_PORT  port of the bare proxy (default 18091)`;
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(HELP);
  process.exit(0);
}

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const known = new Set(['--state', '--out', '--label', '--before', '--duration-s', '--pairs', '--cheap-s', '--peer']);
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i]!;
  if (!a.startsWith('--')) continue;
  if (!known.has(a)) {
    console.error(`unknown option ${a}\n${HELP}`);
    process.exit(2);
  }
}
// bench/run.sh checks the options before it starts a stack
if (process.env.BENCH_ARGS_ONLY === '1') process.exit(0);
const stateFile = arg('--state') ?? join(root, '.stack/state.json');
const state = readStackState(stateFile);
const outDir = arg('--out') ?? join(root, 'bench/results');
const label = arg('--label');
const beforeFile = arg('--before');
const durationS = Number(arg('--duration-s') ?? 20);
const PAIRS = Number(arg('--pairs') ?? 500);
const cheapS = Number(arg('--cheap-s') ?? 10);
const LISTERS = 20;
const FRIENDS = 100;
/** gamers the listers' friends are drawn from (each lister's 100 are distinct) */
const FRIEND_POOL = 2_000;
const CONNECTIONS = 8;
const PAIR_CONCURRENCY = 4;
/** Nakama 3.40 on PostgreSQL 15, measured on this kind of machine (issue #16). */
const NAKAMA = { friendListCpuMs: 2.5, addFriendCpuMs: 4, friendListRps: 630, addFriendPairsPerS: 300 };
const AIMS = { friendListRps: 135, addFriendPairsPerS: 100, gatewayVsDirect: 0.7 };

// a fresh application per run: the pairs phase always finds new pairs
const app = seededUuid(`peer-app-${Date.now()}`, 0);
const creds = new Credentials(process.env.JWT_SECRET ?? DEV_JWT_SECRET, process.env.INTERNAL_TOKEN_SECRET ?? DEV_INTERNAL_SECRET);
const gateway = state.services.gateway.url;
const direct = state.services.friendship.url;
const base = `${gateway}/api/v1/friendship`;
const gamer = (seed: string, i: number): Gamer => ({ id: seededUuid(seed, i), name: `Peer${seed.slice(0, 3)}${i}`, avatar: '' });
const auth = (g: Gamer) => ({ authorization: creds.bearerFor(app, g) });

const progress = new Progress({ data: 5, register: 20, 'friend-list': durationS + 2, 'add-friend': 15, 'cheap-gateway': cheapS + 1, 'cheap-direct': cheapS + 1, 'cheap-bare-proxy': cheapS + 3 });

/** The checkout's commit, marked when it holds uncommitted changes (a variant built in a scratch worktree is then told apart from its commit). */
function commitOf(dir: string): string {
  try {
    const commit = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', dir, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim().length > 0;
    return dirty ? `${commit} with uncommitted changes` : commit;
  } catch {
    return 'unknown';
  }
}

/** Runs `work` over `items` with at most `limit` in flight, reporting progress. */
async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
      done++;
      progress.report(done / items.length, `${done}/${items.length}`);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

/** Request (answers id and status), then accept by the addressee; the two calls' latency. */
async function befriend(a: Gamer, b: Gamer): Promise<number> {
  const requested = await call('POST', base, auth(a), { target: b.id });
  if (requested.status !== 200) throw new Error(`request ${a.id} -> ${b.id}: ${requested.status} ${JSON.stringify(requested.body)}`);
  const { id, status } = requested.body as { id?: string; status?: string };
  if (typeof id !== 'string') throw new Error(`POST /friendship answered no id: ${JSON.stringify(requested.body)}`);
  if (status === 'accepted') return requested.ms;
  const accepted = await call('POST', `${base}/${id}/accept`, auth(b));
  if (accepted.status !== 200) throw new Error(`accept ${id}: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  return requested.ms + accepted.ms;
}

const pids = new Map<string, number>([
  ['gateway', state.services.gateway.pid],
  ['friendship', state.services.friendship.pid],
  ['tasks', state.services.tasks.pid],
]);
const notifications = (state.services as { notifications?: { pid: number } }).notifications;
if (notifications?.pid) pids.set('notifications', notifications.pid);
// every store the add-friend path reaches: friend events become inbox rows in the notifications store
for (const [name, container] of [['friendship-db', state.containers.friendshipDb], ['tasks-db', state.containers.tasksDb], ['notifications-db', state.containers.notificationsDb], ['nats', state.containers.nats]] as const) {
  if (!container) continue;
  const pid = containerPid(state.engine, container);
  if (pid) pids.set(name, pid);
}
pids.set('loadgen', process.pid);

interface PhaseResult {
  id: string;
  title: string;
  /** requests, or pairs for add-friend */
  count: number;
  unit: string;
  seconds: number;
  rate: number;
  latency: LatencySummary;
  errors: number;
  usage: Record<string, ProcessUsage>;
  /** CPU milliseconds per request (per pair), per process */
  cpuMsPer: Record<string, number>;
  machineCpuPercent: number;
  notes: string[];
  /** the phase's wall-clock window (ms since the epoch), to cut a CPU profile to it */
  startEpochMs: number;
  endEpochMs: number;
}

function phaseResult(id: string, title: string, count: number, unit: string, seconds: number, latency: LatencySummary, errors: number, usage: Record<string, ProcessUsage>, machine: number, notes: string[] = []): PhaseResult {
  const cpuMsPer = Object.fromEntries(Object.entries(usage).map(([name, u]) => [name, cpuMsPerUnit(u.cpuPercent, seconds, count)]));
  const endEpochMs = Date.now();
  const result = { id, title, count, unit, seconds, rate: count / seconds, latency, errors, usage, cpuMsPer, machineCpuPercent: machine, notes, startEpochMs: endEpochMs - seconds * 1000, endEpochMs };
  progress.log(`${id}: ${result.rate.toFixed(1)} ${unit}/s, p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms, errors ${errors}; CPU ms/${unit}: ${Object.entries(cpuMsPer).map(([n, v]) => `${n} ${v.toFixed(2)}`).join(', ')}`);
  return result;
}

/** autocannon over keep-alive connections; `next` picks the request's headers. */
async function timed(id: string, title: string, url: string, path: string, seconds: number, headers: () => Record<string, string>, check?: (body: string) => boolean): Promise<PhaseResult> {
  progress.begin(id);
  const sampler = new UsageSampler(pids);
  const machine = new MachineCpu();
  sampler.start();
  const t0 = performance.now();
  const ticker = setInterval(() => progress.report((performance.now() - t0) / 1000 / seconds, 'running'), 1000);
  let badBodies = 0;
  let result: autocannon.Result;
  try {
    result = await autocannon({
      url, connections: CONNECTIONS, duration: seconds, timeout: 30,
      requests: [{
        setupRequest: (req) => ({ ...req, method: 'GET', path, headers: headers() }),
        ...(check ? { onResponse: (status: number, body: string) => { if (status === 200 && !check(body)) badBodies++; } } : {}),
      }],
    });
  } finally {
    clearInterval(ticker);
  }
  const usage = sampler.stop();
  const machineCpu = machine.stop();
  const l = result.latency;
  const ok = result['2xx'];
  const latency = { n: l.totalCount ?? ok, mean: l.mean, p50: l.p50, p99: l.p99, p999: l.p99_9, max: l.max };
  progress.end();
  return phaseResult(id, title, ok, 'req', result.duration, latency, result.errors + result.non2xx + badBodies, usage, machineCpu, badBodies ? [`${badBodies} answers of the wrong size`] : []);
}

const loadBefore = loadAverage();
const machineSpeedAtStart = await machineSpeed();
const startedAt = new Date();
progress.log(`application ${app}; load average ${loadBefore.join(' ')}; reference work ${machineSpeedAtStart.cpuMs.toFixed(0)} ms, loopback round trip ${machineSpeedAtStart.loopbackUs.toFixed(0)} µs; processes ${[...pids.keys()].join(', ')}`);

// --- data: 20 listers with 100 friends each, written straight into the friendship database with
// the service's own models (datagen/friendship-data.ts; 2,000 request+accept calls would take
// minutes on this machine); then every gamer the phases use calls once, so that the first-call
// directory upsert is not part of what is measured
progress.begin('data');
const plan = planFriendDataset({ app, seed: 'peer', gamers: FRIEND_POOL + LISTERS, relations: LISTERS * FRIENDS, probes: [{ degree: FRIENDS, count: LISTERS }] });
const listers = plan.probeGamers.get(FRIENDS)!;
const writer = await FriendshipWriter.open(state.services.friendship.mongoUrl);
const setupStarted = performance.now();
try {
  await writer.write(plan, (f, note) => progress.report(f, note));
  const counted = await writer.countApp(app);
  if (counted.relations !== LISTERS * FRIENDS) throw new Error(`expected ${LISTERS * FRIENDS} relations, found ${counted.relations}`);
} finally {
  await writer.close();
}
const setupS = (performance.now() - setupStarted) / 1000;
progress.end(`${plan.spec.gamers} gamers, ${LISTERS * FRIENDS} friendships in ${setupS.toFixed(1)} s`);
const adders = Array.from({ length: PAIRS }, (_, i) => [gamer('adder', i), gamer('addee', i)] as const);
progress.begin('register');
const callers = [...listers, ...adders.flat()];
await inParallel(callers, CONNECTIONS, async (g) => {
  const r = await call('GET', `${base}/blocked`, auth(g));
  if (r.status !== 200) throw new Error(`register ${g.id}: ${r.status} ${JSON.stringify(r.body)}`);
});
progress.end(`${callers.length} gamers`);

// --- friend list, one page of 100, the 20 listers in turn over 8 connections
let turn = 0;
const listerTokens = listers.map((l) => auth(l));
const friendList = await timed('friend-list', `friend list ?limit=100, ${LISTERS} gamers × ${FRIENDS} friends, ${CONNECTIONS} connections, through the gateway`, gateway, '/api/v1/friendship?limit=100', durationS,
  () => listerTokens[turn++ % LISTERS]!, (body) => (JSON.parse(body) as unknown[]).length === FRIENDS);

// --- add friend: new pairs, request then accept with the id POST answers, 4 at a time
progress.begin('add-friend');
async function addFriends(): Promise<PhaseResult> {
  const latencies: number[] = [];
  let errors = 0;
  const sampler = new UsageSampler(pids);
  const machine = new MachineCpu();
  sampler.start();
  const t0 = performance.now();
  await inParallel(adders, PAIR_CONCURRENCY, async ([a, b]) => {
    try {
      latencies.push(await befriend(a, b));
    } catch (error) {
      errors++;
      progress.log(`pair failed: ${(error as Error).message}`);
    }
  });
  const seconds = (performance.now() - t0) / 1000;
  return phaseResult('add-friend', `add friend: ${PAIRS} new pairs, concurrency ${PAIR_CONCURRENCY}, request then accept (2 calls), through the gateway`,
    latencies.length, 'pair', seconds, summarize(latencies), errors, sampler.stop(), machine.stop(), ['latency = request + accept']);
}
const addFriend = await addFriends();
progress.end();

// --- the near-free read: the gateway's own cost
const somebody = listers[0]!;
const cheapGateway = await timed('cheap-gateway', `GET /blocked (empty), ${CONNECTIONS} connections, through the gateway`, gateway, '/api/v1/friendship/blocked', cheapS, () => auth(somebody));
let identity = creds.identityFor(app, somebody);
const resign = setInterval(() => { identity = creds.identityFor(app, somebody); }, 20_000);
const cheapDirect = await timed('cheap-direct', `GET /blocked (empty), ${CONNECTIONS} connections, straight to friendship`, direct, '/api/v1/friendship/blocked', cheapS, () => ({ 'x-gfts-identity': identity }));
// the same read through a bare node:http + undici forwarder: what any Node hop costs at least
const proxyPort = Number(process.env.BENCH_PROXY_PORT ?? 18091);
const proxy = await startNode(join(root, 'bench/src/proxy-ceiling.ts'), { UPSTREAM: direct, PORT: String(proxyPort) }, `http://127.0.0.1:${proxyPort}/healthz`, [], join(root, '.stack/bench-proxy-ceiling.log'));
pids.set('bare-proxy', proxy.pid!);
const cheapBareProxy = await timed('cheap-bare-proxy', `GET /blocked (empty), ${CONNECTIONS} connections, through a bare Node proxy (bench/src/proxy-ceiling.ts)`, `http://127.0.0.1:${proxyPort}`, '/api/v1/friendship/blocked', cheapS, () => ({ 'x-gfts-identity': identity }));
clearInterval(resign);
await stopNode(proxy);
pids.delete('bare-proxy');

const loadAfter = loadAverage();
const phases = [friendList, addFriend, cheapGateway, cheapDirect, cheapBareProxy];
const ours = (r: PhaseResult) => (r.cpuMsPer.gateway ?? Number.NaN) + (r.cpuMsPer.friendship ?? Number.NaN);
const ratios = {
  friendListOursCpuMs: ours(friendList),
  friendListAllCpuMs: ['gateway', 'friendship', 'friendship-db'].reduce((s, n) => s + (friendList.cpuMsPer[n] ?? Number.NaN), 0),
  addFriendOursCpuMs: ours(addFriend),
  addFriendAllCpuMs: ['gateway', 'friendship', 'friendship-db'].reduce((s, n) => s + (addFriend.cpuMsPer[n] ?? Number.NaN), 0),
  friendListRps: friendList.rate,
  addFriendPairsPerS: addFriend.rate,
  gatewayVsDirect: cheapGateway.rate / cheapDirect.rate,
  bareProxyVsDirect: cheapBareProxy.rate / cheapDirect.rate,
};
const stackRoot = process.env.BENCH_STACK_ROOT ?? root;
const report = {
  kind: 'peer', date: startedAt.toISOString().slice(0, 10), startedAt: startedAt.toISOString(), label: label ?? null,
  benchCommit: commitOf(root), stackCommit: commitOf(stackRoot), stackRoot,
  app, loadBefore, loadAfter, machineSpeed: machineSpeedAtStart,
  processes: Object.fromEntries([...pids].map(([name, pid]) => [name, { pid, startEpochMs: processStartEpochMs(pid) ?? null }])), setup: { gamers: plan.spec.gamers, friendships: LISTERS * FRIENDS, seconds: setupS, registered: callers.length }, nakama: NAKAMA, aims: AIMS, ratios, phases,
};
const name = `${report.date}-peer${label ? `-${label}` : ''}`;
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
const before = beforeFile ? (JSON.parse(readFileSync(beforeFile, 'utf8')) as typeof report) : undefined;
const { renderPeer } = await import('./peer-report.ts');
const md = renderPeer(report, before);
writeFileSync(join(outDir, `${name}.md`), md);
console.log(md);
