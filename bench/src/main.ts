/**
 * The bench: generates data into the running stack, runs every scenario, writes
 * bench/results/<date>.md and .json. Started by bench/run.sh (which starts the stack
 * unless BENCH_USE_RUNNING=1); see bench/README.md.
 *
 *   node bench/src/main.ts [--quick] [--state .stack/state.json] [--out bench/results] [--skip-profile]
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { benchConfig, type Mode } from './config.ts';
import { FriendshipWriter, planFriendDataset, type FriendDataset } from './datagen/friendship-data.ts';
import { displayNameKey } from '../../services/friendship/src/domain/display-name.ts';
import { cheapCall, explainFriendship, friendList, requestAcceptPairs, search, warmRegistrations, type Ctx } from './friendship-scenarios.ts';
import type { ScenarioResult } from './load.ts';
import { loadAverage } from './procstat.ts';
import { Progress, formatDuration } from './progress.ts';
import { runProfile } from './profile.ts';
import { renderMarkdown } from './render.ts';
import type { BenchReport, DatasetReport, GrowthRow } from './report.ts';
import { containerPid, Credentials, DEV_INTERNAL_SECRET, DEV_JWT_SECRET, readStackState, startNode, stopNode } from './stack.ts';
import { checkAim, growthExponent, growthFactor, ratio } from './stats.ts';
import { runTasks } from './tasks-scenarios.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log('usage: node bench/src/main.ts [--quick] [--state .stack/state.json] [--out bench/results] [--skip-profile] [--skip-tasks]\n(started by bench/run.sh, which starts the stack first: bench/run.sh --help)');
  process.exit(0);
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
// a mistyped option fails before the stack starts (bench/run.sh runs this with BENCH_ARGS_ONLY=1
// first), not as a ~22-minute full run without it
const known = new Set(['--quick', '--state', '--out', '--skip-profile', '--skip-tasks', '--profile-only']);
for (const a of process.argv.slice(2)) {
  if (a.startsWith('-') && !known.has(a)) {
    console.error(`unknown option ${a}; see bench/run.sh --help`);
    process.exit(2);
  }
}
if (process.env.BENCH_ARGS_ONLY === '1') process.exit(0);
const mode: Mode = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1' ? 'quick' : 'full';
const skipProfile = process.argv.includes('--skip-profile') || process.env.BENCH_SKIP_PROFILE === '1';
const skipTasks = process.argv.includes('--skip-tasks') || process.env.BENCH_SKIP_TASKS === '1';
const stateFile = arg('--state') ?? join(root, '.stack/state.json');
const outDir = arg('--out') ?? join(root, 'bench/results');
const cfg = benchConfig(mode);
const startedAt = new Date();
const loadStart = loadAverage();

const progress = new Progress(
  mode === 'full'
    ? { setup: 10, 'data: small': 40, 'gateway cost': 60, profile: 80, 'growth: small': 180, 'data: main': 420, 'friend list': 420, search: 120, 'request + accept': 180, explain: 30, tasks: 240, 'data: large': 360, 'growth: large': 240 }
    : { setup: 5, 'data: small': 5, 'gateway cost': 25, profile: 30, 'growth: small': 20, 'data: main': 40, 'friend list': 120, search: 40, 'request + accept': 60, explain: 5, tasks: 90, 'data: large': 40, 'growth: large': 60 },
);

progress.begin('setup');
const state = readStackState(stateFile);
const creds = new Credentials(process.env.JWT_SECRET ?? DEV_JWT_SECRET, process.env.INTERNAL_TOKEN_SECRET ?? DEV_INTERNAL_SECRET);
const pids = new Map<string, number>([
  ['gateway', state.services.gateway.pid],
  ['friendship', state.services.friendship.pid],
  ['tasks', state.services.tasks.pid],
  ['loadgen', process.pid],
]);
// the notifications service takes every task.progress and task.completed the consumer publishes
if (state.services.notifications) pids.set('notifications', state.services.notifications.pid);
for (const [name, container] of [['friendship-db', state.containers.friendshipDb], ['tasks-db', state.containers.tasksDb], ['nats', state.containers.nats]] as const) {
  const pid = containerPid(state.engine, container);
  if (pid) pids.set(name, pid);
  else progress.log(`no pid for container ${container}: its CPU and memory are not reported`);
}
const logDir = join(root, '.stack/logs');
mkdirSync(logDir, { recursive: true });
const ceilingPort = Number(process.env.BENCH_CEILING_PORT ?? 18090);
const children: ChildProcess[] = [];
const ceiling = await startNode(join(root, 'bench/src/ceiling.ts'), { MONGO_URL: state.services.friendship.mongoUrl, PORT: String(ceilingPort) }, `http://127.0.0.1:${ceilingPort}/healthz`, [], join(logDir, 'bench-ceiling.log'));
children.push(ceiling);
pids.set('ceiling', ceiling.pid!);
const stopChildren = () => {
  for (const c of children) c.kill('SIGTERM');
  process.exit(130);
};
process.once('SIGINT', stopChildren);
process.once('SIGTERM', stopChildren);
const ctx: Ctx = { cfg, state, creds, pids, progress, ceilingUrl: `http://127.0.0.1:${ceilingPort}` };
const writer = await FriendshipWriter.open(state.services.friendship.mongoUrl);
progress.end();

const scenarios: ScenarioResult[] = [];
const datasets: DatasetReport[] = [];
const growth: GrowthRow[] = [];
const findings: string[] = [];
const notes: string[] = [];
const add = (s: ScenarioResult) => {
  scenarios.push(s);
  progress.log(`${s.id}: ${s.rate.toFixed(2)} ${s.unit}, p50 ${s.latency.p50.toFixed(1)} ms, p99 ${s.latency.p99.toFixed(1)} ms, n=${s.latency.n}, errors ${s.errors}`);
  return s;
};

async function generate(name: string, plan: FriendDataset): Promise<DatasetReport> {
  progress.begin(`data: ${name}`);
  const existing = await writer.countApp(plan.spec.app);
  const expected = plan.spec.gamers;
  let inserts: DatasetReport['inserts'] = [];
  const reused = existing.gamers === expected && existing.relations === plan.accepted + plan.pending;
  if (reused) progress.log(`data: ${name}: already there (${existing.gamers} gamers, ${existing.relations} relations), reused`);
  else {
    if (existing.gamers > 0 || existing.relations > 0) progress.log(`data: ${name}: partly there (${existing.gamers} gamers, ${existing.relations} relations); completing it (duplicates are skipped)`);
    inserts = await writer.write(plan, (f, note) => progress.report(f, note));
    for (const s of inserts) progress.log(`data: ${name}: ${s.docs} ${s.collection} in ${formatDuration(s.ms)} = ${Math.round(s.docsPerSecond)} docs/s`);
  }
  const report: DatasetReport = {
    name,
    app: plan.spec.app,
    gamers: plan.spec.gamers,
    relations: plan.accepted + plan.pending,
    accepted: plan.accepted,
    pending: plan.pending,
    reused,
    inserts,
    collectionsAfter: await writer.countAll(),
  };
  datasets.push(report);
  progress.end();
  return report;
}

const growthRow = (series: string, label: string, size: number, collectionDocs: number, s: ScenarioResult) =>
  growth.push({ series, label, size, collectionDocs, latency: s.latency, rate: s.rate, scenarioId: s.id });

const small = planFriendDataset(cfg.small);
const main = planFriendDataset(cfg.main);
const large = planFriendDataset(cfg.large);
const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n));

if (process.env.BENCH_ONLY_TASKS === '1') {
  // for working on the tasks scenarios: setup, tasks, nothing else, nothing written
  const tasks = await runTasks(ctx, { root, add });
  progress.log(JSON.stringify(tasks, null, 1).slice(0, 3000));
  // saved for merging into a full run's results (bench/src/merge-tasks.ts)
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, `${startedAt.toISOString().slice(0, 10)}${mode === 'quick' ? '-quick' : ''}-tasks.json`), JSON.stringify({ startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(), loadStart, loadEnd: loadAverage(), tasks, scenarios }, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2));
  await writer.close();
  for (const c of children) await stopNode(c);
  process.exit(0);
}

// ---- small dataset: the gateway's own cost, the profile, and the first growth point
const smallData = await generate('small', small);
progress.begin('gateway cost');
const cheapGamers = Array.from({ length: 100 }, (_, i) => small.gamer(i));
await warmRegistrations(ctx, small.spec.app, cheapGamers);
const cheapGw = add(await cheapCall(ctx, { id: 'cheap-gateway', title: 'GET /blocked (empty), through the gateway', target: 'gateway', app: small.spec.app, gamers: cheapGamers }));
const cheapDirect = add(await cheapCall(ctx, { id: 'cheap-direct', title: 'GET /blocked (empty), straight to friendship', target: 'direct', app: small.spec.app, gamers: cheapGamers }));
progress.end();

progress.begin('profile');
const profile = skipProfile
  ? undefined
  : await runProfile(ctx, { root, logDir, app: small.spec.app, gamers: cheapGamers, durationS: cfg.profileS }).catch((error: unknown) => {
      notes.push(`the profile phase failed: ${(error as Error).message}`);
      return undefined;
    });
if (profile?.scenario) scenarios.push(profile.scenario);
progress.end();
const profileOnly = arg('--profile-only');
if (profileOnly) {
  // before/after of a fix: only the gateway-cost runs and the profile, saved under a label
  const file = join(outDir, `profile-${profileOnly}.json`);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(file, JSON.stringify({ ...profile, label: profileOnly, at: new Date().toISOString(), loadAverage: loadAverage(), cheap: { gateway: cheapGw, direct: cheapDirect } }, null, 2));
  progress.log(`profile written to ${file}`);
  await writer.close();
  for (const c of children) await stopNode(c);
  process.exit(0);
}

progress.begin('growth: small');
const small100 = small.probeGamers.get(100)!;
growthRow('friend list, 100 friends, by gamers', `${label(small.spec.gamers)} gamers`, small.spec.gamers, smallData.collectionsAfter.relations,
  add(await friendList(ctx, { id: 'growth-friends100-small', title: `friend list (100 friends), direct, ${label(small.spec.gamers)} gamers`, target: 'direct', app: small.spec.app, gamers: small100, limit: 100, connections: 1 })));
growthRow('search, by gamers', `${label(small.spec.gamers)} gamers`, small.spec.gamers, smallData.collectionsAfter.gamers,
  add(await search(ctx, { id: 'growth-search-small', title: `search, direct, ${label(small.spec.gamers)} gamers`, target: 'direct', app: small.spec.app, gamers: small100, connections: 1 })));
const pairsSmall = add(await requestAcceptPairs(ctx, { id: 'pairs-small', title: `request + accept pairs, gateway, ${label(small.spec.gamers)} gamers / ${label(smallData.relations)} relations`, plan: small, firstPair: 0, budgetS: cfg.pairs.budgetS, estimateMs: 0 }));
progress.end();

// ---- main dataset: the headline figures
const mainData = await generate('main', main);
progress.begin('friend list');
const main100 = main.probeGamers.get(100)!;
const listGw = add(await friendList(ctx, { id: 'friends100-gateway', title: 'friend list, 100 friends, through the gateway', target: 'gateway', app: main.spec.app, gamers: main100, limit: 100 }));
const listDirect = add(await friendList(ctx, { id: 'friends100-direct', title: 'friend list, 100 friends, straight to friendship', target: 'direct', app: main.spec.app, gamers: main100, limit: 100, mode: listGw.mode === 'sampled' ? 'sampled' : 'autocannon' }));
const listCeiling = add(await friendList(ctx, { id: 'friends100-ceiling', title: 'friend list, 100 friends, ceiling (node:http + driver)', target: 'ceiling', app: main.spec.app, gamers: main100, limit: 100, mode: listGw.mode === 'sampled' ? 'sampled' : 'autocannon' }));
for (const degree of [10, 100, 1000]) {
  // a sampled run already went one request at a time: it is the growth point
  const s = degree === 100 && listDirect.mode === 'sampled' ? listDirect
    : add(await friendList(ctx, { id: `growth-friends${degree}-main`, title: `friend list (${degree} friends, first page of ≤100), direct, 1 conn`, target: 'direct', app: main.spec.app, gamers: main.probeGamers.get(degree)!, limit: 100, connections: 1 }));
  growthRow('friend list, by friends', `${degree} friends`, degree, mainData.collectionsAfter.relations, s);
  if (degree === 100) growthRow('friend list, 100 friends, by gamers', `${label(main.spec.gamers)} gamers`, main.spec.gamers, mainData.collectionsAfter.relations, s);
}
progress.end();

progress.begin('search');
const searchGw = add(await search(ctx, { id: 'search-gateway', title: `search by prefix, ${label(main.spec.gamers)} gamers, through the gateway`, target: 'gateway', app: main.spec.app, gamers: main100 }));
const searchDirect = add(await search(ctx, { id: 'search-direct', title: `search by prefix, ${label(main.spec.gamers)} gamers, straight to friendship`, target: 'direct', app: main.spec.app, gamers: main100, mode: searchGw.mode === 'sampled' ? 'sampled' : 'autocannon' }));
growthRow('search, by gamers', `${label(main.spec.gamers)} gamers`, main.spec.gamers, mainData.collectionsAfter.gamers,
  searchDirect.mode === 'sampled' ? searchDirect : add(await search(ctx, { id: 'growth-search-main', title: `search, direct, ${label(main.spec.gamers)} gamers, 1 conn`, target: 'direct', app: main.spec.app, gamers: main100, connections: 1 })));
progress.end();

progress.begin('request + accept');
// a pair is ~10 queries over the relations collection: scale the small point by the collection size
const scale = mainData.collectionsAfter.relations / Math.max(1, smallData.collectionsAfter.relations);
const estimate = Number.isFinite(pairsSmall.latency.p50) ? pairsSmall.latency.p50 * scale : 0;
add(await requestAcceptPairs(ctx, { id: 'pairs-main', title: `request + accept pairs, gateway, ${label(main.spec.gamers)} gamers / ${label(mainData.relations)} relations`, plan: main, firstPair: 0, budgetS: cfg.pairs.budgetS, estimateMs: estimate > 0 && estimate > cfg.pairs.budgetS * 1000 ? estimate : 0 }));
progress.end();

progress.begin('explain');
const plans = await explainFriendship(writer.connection.db as never, main.spec.app, main100[0]!, displayNameKey('Nov'));
progress.end();

// ---- tasks
progress.begin('tasks');
const tasks = skipTasks
  ? { skipped: 'BENCH_SKIP_TASKS' }
  : await runTasks(ctx, { root, add }).catch((error: unknown) => {
      progress.log(`tasks scenarios failed: ${String((error as Error).stack ?? error)}`);
      return { skipped: `the tasks scenarios failed: ${(error as Error).message}` };
    });
progress.end();

// ---- large dataset: the last growth point
const largeData = await generate('large', large);
progress.begin('growth: large');
const large100 = large.probeGamers.get(100)!;
growthRow('search, by gamers', `${label(large.spec.gamers)} gamers`, large.spec.gamers, largeData.collectionsAfter.gamers,
  add(await search(ctx, { id: 'growth-search-large', title: `search, direct, ${label(large.spec.gamers)} gamers, 1 conn`, target: 'direct', app: large.spec.app, gamers: large100, connections: 1 })));
growthRow('friend list, 100 friends, by gamers', `${label(large.spec.gamers)} gamers`, large.spec.gamers, largeData.collectionsAfter.relations,
  add(await friendList(ctx, { id: 'growth-friends100-large', title: `friend list (100 friends), direct, ${label(large.spec.gamers)} gamers, 1 conn`, target: 'direct', app: large.spec.app, gamers: large100, limit: 100, connections: 1 })));
progress.end();

// ---- ratios against the aims
const t = tasks as { checks?: ReturnType<typeof checkAim>[] };
const seriesFactor = (series: string) => {
  const pts = growth.filter((g) => g.series === series);
  return {
    series,
    factorP99: growthFactor(pts.map((p) => ({ size: p.size, value: p.latency.p99 }))),
    factorP50: growthFactor(pts.map((p) => ({ size: p.size, value: p.latency.p50 }))),
    exponentP50: growthExponent(pts.map((p) => ({ size: p.collectionDocs, value: p.latency.p50 }))),
  };
};
const growthFactors = ['friend list, by friends', 'friend list, 100 friends, by gamers', 'search, by gamers'].map(seriesFactor);
const checks = [
  checkAim('gateway vs direct (friend list rps)', ratio(listGw.rate, listDirect.rate), 0.7, 'min', `${listGw.id} / ${listDirect.id}`),
  checkAim('gateway vs direct (near-free call rps, informational)', ratio(cheapGw.rate, cheapDirect.rate), 0.7, 'min', `${cheapGw.id} / ${cheapDirect.id}`),
  checkAim('friendship vs ceiling (friend list rps)', ratio(listDirect.rate, listCeiling.rate), 0.6, 'min', `${listDirect.id} / ${listCeiling.id}`),
  ...(t.checks ?? []),
  checkAim(`search p99 growth ×, ${label(small.spec.gamers)} → ${label(large.spec.gamers)} gamers`, growthFactors[2]!.factorP99, 1.5, 'max', 'growth-search-small → growth-search-large'),
  checkAim(`friend-list p99 growth ×, ${label(small.spec.gamers)} → ${label(large.spec.gamers)} gamers`, growthFactors[1]!.factorP99, 1.5, 'max', 'growth-friends100-small → growth-friends100-large'),
];
void searchGw;

// ---- write the results
await writer.close();
for (const c of children) await stopNode(c);
const finishedAt = new Date();
const date = startedAt.toISOString().slice(0, 10);
const suffix = mode === 'quick' ? '-quick' : '';
const baselineFile = join(root, 'bench/results/profile-baseline.json');
const report: BenchReport = {
  date,
  startedAt: startedAt.toISOString(),
  finishedAt: finishedAt.toISOString(),
  mode,
  machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memGb: Math.round(totalmem() / 2 ** 30), node: process.version, kernel: release(), loadStart: loadStart, loadEnd: loadAverage() },
  stack: {
    engine: state.engine,
    mongoImage: state.mongoImage,
    natsImage: state.natsImage,
    db: /ferretdb/i.test(state.mongoImage) ? 'FerretDB 1.24 (MongoDB wire protocol) on SQLite' : state.mongoImage,
    settings: [`RATE_LIMIT_MAX=${process.env.RATE_LIMIT_MAX ?? 'service default (600/min per gamer)'}`, `LOG_LEVEL=${process.env.LOG_LEVEL ?? 'info (default)'}`, `UPSTREAM_TIMEOUT_MS=${process.env.UPSTREAM_TIMEOUT_MS ?? 'service default (10 s)'}`],
  },
  datasets,
  scenarios,
  checks,
  growth,
  growthFactors,
  plans,
  ...(profile ? { profile } : {}),
  ...(existsSync(baselineFile) ? { profileBaseline: JSON.parse(readFileSync(baselineFile, 'utf8')) as BenchReport['profile'] } : {}),
  tasks: tasks as Record<string, unknown>,
  findings,
  notes,
};
mkdirSync(outDir, { recursive: true });
const base = join(outDir, `${date}${suffix}`);
writeFileSync(`${base}.json`, JSON.stringify(report, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2));
writeFileSync(`${base}.md`, renderMarkdown(report));
progress.log(`results: ${base}.md and ${base}.json (${formatDuration(finishedAt.getTime() - startedAt.getTime())})`);
process.exit(0);
