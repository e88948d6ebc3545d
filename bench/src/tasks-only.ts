/**
 * The tasks-pipeline bench on its own (issue #10 item 6): started by
 * `bench/run.sh --tasks-only [options]`, which starts and stops the stack; see --help and
 * bench/README.md. Writes bench/results/<date>-tasks[-quick][-<label>].{md,json}.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeKnee, type PipelineOptions, type PipelineReport } from './pipeline-report.ts';
import { loadAverage } from './procstat.ts';
import { Progress, formatDuration } from './progress.ts';
import { pipelineChecks, renderPipeline } from './render-pipeline.ts';
import { containerPid, Credentials, DEV_INTERNAL_SECRET, DEV_JWT_SECRET, readStackState } from './stack.ts';
import { gitInfo, pipelineOptions, runPipeline } from './tasks-pipeline.ts';
import { machineSpeed } from './machine-speed.ts';

export const TASKS_ONLY_HELP = `bench/run.sh --tasks-only [options]   (or: node bench/src/tasks-only.ts [options] against a running stack)

The tasks pipeline under load, on its own: 10k gamers (3 daily tasks, 1 weekly composite,
2 tracked achievements each), the store's bulk-update ceiling, a few
single events, a sustained run (events published at once, timed until all are acknowledged)
and open-loop rates published straight to JetStream, with event→completion latency.
Writes bench/results/<date>-tasks[-quick][-<label>].md and .json. About 6–8 minutes in full
mode on this 2-core machine (less when the consumer is slow: every wait is capped).

  --quick                2k gamers, 8 s rates, 15k sustained events (a few minutes)
  --label NAME           name the results (…-tasks-NAME.md), e.g. before / after
  --before FILE.json     add a before/after table against an earlier run's JSON
  --rates LIST           offered rates, events/s (default 1000,2000,5000)
  --phase-s S            seconds each rate is offered (default 20; quick 8)
  --drain-cap-s S        longest wait after a rate for the backlog to drain (default 30; quick 15)
  --sustained N          events of the sustained run (default 60000; quick 15000)
  --sustained-cap-s S    longest wait for them (default 150; quick 60)
  --gamers N             gamers (default 10000; quick 2000)
  --ceiling-s S          seconds of the store-ceiling loop (default 15; quick 5)
  --ceiling-batch N      statements per bulkWrite in the ceiling (default 256)
  --setup direct|http    gamer tasks written straight to the database as documents the bench
                         builds from the catalog API's answer (default; ~1 min), or through
                         POST /tasks/assign and GET /achievements (slow: ~30k calls for 10k gamers)
  --collection NAME      the collection the ceiling copies (default gamer_progress: the progress
                         documents the stat consumer writes since 2026-11-26, copied after the
                         sustained run, as it left them; gamer_tasks: the gamer tasks, as before
                         2026-11-29)
  --state FILE           stack state (default .stack/state.json)
  --out DIR              results directory (default bench/results)
  --help                 this text

Service settings come from the environment of bench/run.sh (e.g. CONSUMER_BATCH=256
bench/run.sh --tasks-only); every CONSUMER_*, STATS_*, CATALOG_*, EXPIRY_*, PROCESSED_*, VERSION_*, CLAIM_* variable set is recorded.`;

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  console.log(TASKS_ONLY_HELP);
  process.exit(0);
}
function arg(name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}
const num = (name: string): number | undefined => {
  const v = arg(name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} needs a positive number, got ${v}`);
  return n;
};
const known = new Set(['--tasks-only', '--quick', '--label', '--before', '--rates', '--phase-s', '--drain-cap-s', '--sustained', '--sustained-cap-s', '--gamers', '--ceiling-s', '--ceiling-batch', '--collection', '--setup', '--state', '--out']);
for (const a of argv) if (a.startsWith('--') && !known.has(a)) throw new Error(`unknown option ${a}; see --help`);

const mode = argv.includes('--quick') ? 'quick' : 'full';
const overrides: Partial<PipelineOptions> = {};
const set = <K extends keyof PipelineOptions>(k: K, v: PipelineOptions[K] | undefined) => {
  if (v !== undefined) overrides[k] = v;
};
set('rates', arg('--rates')?.split(',').map((x) => Number(x.trim())).filter((x) => x > 0));
set('phaseS', num('--phase-s'));
set('drainCapS', num('--drain-cap-s'));
set('sustainedEvents', num('--sustained'));
set('sustainedCapS', num('--sustained-cap-s'));
set('gamers', num('--gamers'));
set('ceilingS', num('--ceiling-s'));
set('ceilingBatch', num('--ceiling-batch'));
const setupMethod = arg('--setup');
if (setupMethod !== undefined && setupMethod !== 'direct' && setupMethod !== 'http') throw new Error('--setup is direct or http');
set('setup', setupMethod);
const options = pipelineOptions(mode, overrides);
const label = arg('--label') ?? '';
const beforeFile = arg('--before');
const outDir = arg('--out') ?? join(root, 'bench/results');
const stateFile = arg('--state') ?? join(root, '.stack/state.json');
const revive = (_k: string, v: unknown) => (v === null ? Number.NaN : v);
const before = beforeFile ? (JSON.parse(readFileSync(beforeFile, 'utf8'), revive) as PipelineReport) : undefined;
if (before && before.kind !== 'tasks-pipeline') throw new Error(`${beforeFile} is not a tasks-pipeline result`);
// bench/run.sh checks the options this way before it starts the stack
if (process.env.BENCH_ARGS_ONLY === '1') process.exit(0);

const uptime = () => {
  try {
    return execFileSync('uptime', { encoding: 'utf8' }).trim();
  } catch {
    return `load average: ${loadAverage().join(', ')}`;
  }
};
const startedAt = new Date();
// the code the stack started from (run.sh started it just before; BENCH_STACK_ROOT: another checkout's)
const stackRoot = process.env.BENCH_STACK_ROOT ? resolve(process.env.BENCH_STACK_ROOT) : root;
const git = gitInfo(stackRoot);
const benchGit = stackRoot === root ? undefined : gitInfo(root);
const loadStart = loadAverage();
const uptimeStart = uptime();
const machineSpeedAtStart = await machineSpeed();
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
const progress = new Progress(mode === 'full' ? { 'tasks: setup': 120, 'tasks: ceiling': 25, 'tasks: single events': 2, 'tasks: sustained': 90, 'tasks: rates': 150 } : { 'tasks: setup': 25, 'tasks: ceiling': 8, 'tasks: single events': 2, 'tasks: sustained': 30, 'tasks: rates': 60 });
// the notifications store too: it takes the notifications the completions make (else its CPU counted as "other")
for (const [name, container] of [['friendship-db', state.containers.friendshipDb], ['tasks-db', state.containers.tasksDb], ['notifications-db', state.containers.notificationsDb], ['nats', state.containers.nats]] as const) {
  // a stack without the notifications service has no store of it
  if (container === undefined) continue;
  const pid = containerPid(state.engine, container);
  if (pid) pids.set(name, pid);
  else progress.log(`no pid for container ${container}: its CPU is not reported`);
}
progress.log(`tasks-only: ${mode} mode, ${JSON.stringify(options)}; ${uptimeStart}`);

const result = await runPipeline({ state, creds, pids, progress, gamerTasksCollection: arg('--collection') ?? 'gamer_progress' }, options);
const finishedAt = new Date();
const settings = Object.entries(process.env)
  .filter(([k]) => /^(CONSUMER_|STATS_|CATALOG_|EXPIRY_|PROCESSED_|VERSION_|CLAIM_|NATS_PREFIX$|LOG_LEVEL$)/.test(k))
  .map(([k, v]) => `${k}=${v}`)
  .sort();
const report: PipelineReport = {
  kind: 'tasks-pipeline',
  label,
  date: startedAt.toISOString().slice(0, 10),
  startedAt: startedAt.toISOString(),
  finishedAt: finishedAt.toISOString(),
  command: `bench/run.sh ${argv.join(' ')}`.trim(),
  git,
  ...(benchGit ? { benchGit } : {}),
  machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memGb: Math.round(totalmem() / 2 ** 30), node: process.version, kernel: release() },
  load: { start: loadStart, end: loadAverage(), uptimeStart, uptimeEnd: uptime(), machineSpeed: machineSpeedAtStart },
  stack: {
    engine: state.engine,
    mongoImage: state.mongoImage,
    natsImage: state.natsImage,
    db: /ferretdb/i.test(state.mongoImage) ? 'FerretDB 1.24 on SQLite, patched (scripts/images/ferretdb/)' : state.mongoImage,
    settings,
  },
  options,
  setup: result.setup,
  ...(result.ceiling ? { ceiling: result.ceiling } : {}),
  singles: result.singles,
  ...(result.firstPass ? { firstPass: result.firstPass } : {}),
  ...(result.sustained ? { sustained: result.sustained } : {}),
  rates: result.rates,
  knee: describeKnee(result.rates, result.sustained?.eventsPerSecond ?? Number.NaN),
  checks: [],
  notes: result.notes,
};
report.checks = pipelineChecks(report);
mkdirSync(outDir, { recursive: true });
const base = join(outDir, `${report.date}-tasks${mode === 'quick' ? '-quick' : ''}${label ? `-${label}` : ''}`);
if (existsSync(`${base}.json`)) progress.log(`${relative(root, base)}.json exists: overwriting it`);
writeFileSync(`${base}.json`, JSON.stringify(report, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2));
writeFileSync(`${base}.md`, renderPipeline(report, before));
progress.log(`results: ${relative(root, base)}.md and .json (${formatDuration(finishedAt.getTime() - startedAt.getTime())})`);
for (const c of report.checks) progress.log(`aim: ${c.name}: ${Number.isFinite(c.value) ? c.value.toFixed(c.value < 10 ? 3 : 0) : 'no data'} (${c.verdict}) — ${c.detail}`);
process.exit(0);
