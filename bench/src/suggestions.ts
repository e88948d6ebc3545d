/**
 * Friend suggestions and mutual friends (issue #15 item 2): latency of
 * `GET /api/v1/friendship/suggestions` for a gamer with 100 friends who each have 100
 * friends, aim p99 <= 50 ms; beside it `GET /mutual/{gamerId}` and the friend list (which
 * now carries presence). Speaks HTTP through the gateway like any client; it builds its
 * neighbourhood with the public API (request, then accept with the id the request answers).
 *
 *   bench/run.sh --suggestions            # starts the stack, or BENCH_USE_RUNNING=1
 *   node bench/src/suggestions.ts [--state .stack/state.json] [--out bench/results]
 *        [--app <uuid>] [--samples 300] [--concurrency 8] [--warmup 20]
 *        [--scenarios suggestions-20-seq,friends-100-seq] [--measure-only]
 *
 * `--app` defaults to the application of the full bench's main dataset (100k gamers, 1M
 * relations), so when that dataset is loaded the neighbourhood lives among its relations.
 * Ids are seeded: a second run finds the friendships there and only measures.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchConfig } from './config.ts';
import { center, FRIENDS, FRIENDS_OF_EACH, friends, neighbourhoodPairs, pool, POOL } from './datagen/suggestions-neighbourhood.ts';
import { loadAverage, UsageSampler, type ProcessUsage } from './procstat.ts';
import { call, containerPid, Credentials, DEV_INTERNAL_SECRET, DEV_JWT_SECRET, readStackState, type Gamer } from './stack.ts';
import { summarize, type LatencySummary } from './stats.ts';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log('usage: node bench/src/suggestions.ts [--state FILE] [--out DIR] [--app UUID] [--samples N] [--concurrency N] [--warmup N] [--scenarios ID,ID] [--measure-only]\n(see the header of this file and bench/README.md)');
  process.exit(0);
}

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const known = new Set(['--suggestions', '--state', '--out', '--app', '--samples', '--concurrency', '--warmup', '--scenarios', '--measure-only']);
for (const a of process.argv.slice(2)) {
  if (a.startsWith('-') && !known.has(a)) {
    console.error(`unknown option ${a}; see --help`);
    process.exit(2);
  }
}
if (process.env.BENCH_ARGS_ONLY === '1') process.exit(0);
const state = readStackState(arg('--state') ?? join(root, '.stack/state.json'));
const outDir = arg('--out') ?? join(root, 'bench/results');
const app = arg('--app') ?? benchConfig('full').main.app;
const samples = Number(arg('--samples') ?? 300);
const concurrency = Number(arg('--concurrency') ?? 8);
const warmup = Number(arg('--warmup') ?? 20);
// --scenarios a,b: only these (a slow store cannot afford the whole set)
const only = arg('--scenarios')?.split(',');
const AIM_P99_MS = 50;

const creds = new Credentials(process.env.JWT_SECRET ?? DEV_JWT_SECRET, process.env.INTERNAL_TOKEN_SECRET ?? DEV_INTERNAL_SECRET);
const base = `${state.services.gateway.url}/api/v1/friendship`;
const auth = (g: Gamer) => ({ authorization: creds.bearerFor(app, g) });
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

/** Runs `work` over `items` with at most `limit` in flight, reporting progress. */
async function inParallel<T>(label: string, items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let done = 0;
  const started = Date.now();
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
      if (++done % 500 === 0) log(`${label}: ${done}/${items.length} (${Math.round((done * 1000) / (Date.now() - started))}/s)`);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  log(`${label}: ${items.length} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Friends via the public API: request (answers the id), accept; an existing friendship is kept. */
async function befriend([a, b]: [Gamer, Gamer]): Promise<void> {
  const requested = await call('POST', base, auth(a), { target: b.id });
  if (requested.status === 409) return; // already friends from an earlier run
  if (requested.status !== 200) throw new Error(`request ${a.id} -> ${b.id}: ${requested.status} ${JSON.stringify(requested.body)}`);
  const { id, status } = requested.body as { id: string; status: string };
  if (status === 'accepted') return;
  const accepted = await call('POST', `${base}/${id}/accept`, auth(b));
  if (accepted.status !== 200) throw new Error(`accept ${id}: ${accepted.status} ${JSON.stringify(accepted.body)}`);
}

const pairs = neighbourhoodPairs();

log(`application ${app}; load average ${loadAverage().join(' ')}`);
// --measure-only: the neighbourhood is there from an earlier run (ids are seeded)
if (!process.argv.includes('--measure-only')) {
  await inParallel('register', [center, ...friends, ...pool], concurrency, async (g) => {
    const r = await call('GET', `${base}?limit=1`, auth(g));
    if (r.status !== 200) throw new Error(`register ${g.id}: ${r.status} ${JSON.stringify(r.body)}`);
  });
  await inParallel('befriend', pairs, concurrency, befriend);
}

const pids = new Map<string, number>([
  ['gateway', state.services.gateway.pid],
  ['friendship', state.services.friendship.pid],
  ['loadgen', process.pid],
]);
const storePid = containerPid(state.engine, state.containers.friendshipDb);
if (storePid) pids.set('friendship-db', storePid);

interface Measured {
  id: string;
  path: string;
  concurrency: number;
  requests: number;
  seconds: number;
  latency: LatencySummary;
  usage: Record<string, ProcessUsage>;
  /** CPU milliseconds per request, per process */
  cpuMsPerRequest: Record<string, number>;
  errors: number;
}

/** `total` GETs of `path` by the center, `parallel` at a time; latency per request. */
async function measure(id: string, path: string, total: number, parallel: number, check: (body: unknown) => boolean): Promise<Measured> {
  for (let i = 0; i < warmup; i++) await call('GET', `${base}${path}`, auth(center));
  const latencies: number[] = [];
  let errors = 0;
  const sampler = new UsageSampler(pids);
  const started = performance.now();
  sampler.start();
  await inParallel(id, Array.from({ length: total }, (_, i) => i), parallel, async () => {
    const r = await call('GET', `${base}${path}`, auth(center));
    latencies.push(r.ms);
    if (r.status !== 200 || !check(r.body)) errors++;
  });
  const seconds = (performance.now() - started) / 1000;
  const usage = sampler.stop();
  const cpuMsPerRequest = Object.fromEntries(Object.entries(usage).map(([name, u]) => [name, (u.cpuPercent / 100) * seconds * 1000 / total]));
  const result = { id, path, concurrency: parallel, requests: total, seconds, latency: summarize(latencies), usage, cpuMsPerRequest, errors };
  log(`${id}: p50 ${result.latency.p50.toFixed(1)} ms, p99 ${result.latency.p99.toFixed(1)} ms, ${(total / seconds).toFixed(1)} req/s, errors ${errors}`);
  return result;
}

const first = (await call('GET', `${base}/suggestions?limit=20`, auth(center))).body as Array<{ user: { id: string }; mutualFriends: number }>;
if (first.length === 0) throw new Error('no suggestions: the neighbourhood was not built');
const top = first[0]!;
const isSuggestions = (body: unknown) => Array.isArray(body) && body.length === 20;
const isMutual = (body: unknown) => Array.isArray(body) && body.length === top.mutualFriends;
const isFriendPage = (body: unknown) => Array.isArray(body) && body.length === 100;
const loadBefore = loadAverage();
const scenarios: Array<[string, string, number, number, (body: unknown) => boolean]> = [
  ['suggestions-20-seq', '/suggestions?limit=20', samples, 1, isSuggestions],
  ['suggestions-100-seq', '/suggestions?limit=100', samples, 1, (b) => Array.isArray(b) && b.length === 100],
  [`suggestions-20-c${concurrency}`, '/suggestions?limit=20', samples * 2, concurrency, isSuggestions],
  ['mutual-seq', `/mutual/${top.user.id}`, samples, 1, isMutual],
  ['friends-100-seq', '?limit=100', samples, 1, isFriendPage],
];
const results: Measured[] = [];
for (const [id, path, total, parallel, check] of scenarios) if (!only || only.includes(id)) results.push(await measure(id, path, total, parallel, check));
const loadAfter = loadAverage();

const date = new Date().toISOString().slice(0, 10);
mkdirSync(outDir, { recursive: true });
const report = { date, app, neighbourhood: { friends: FRIENDS, friendsOfEach: FRIENDS_OF_EACH, pool: POOL, topMutual: top.mutualFriends }, loadBefore, loadAfter, aimP99Ms: AIM_P99_MS, results };
writeFileSync(join(outDir, `${date}-suggestions.json`), `${JSON.stringify(report, null, 2)}\n`);
const ms = (n: number) => n.toFixed(1);
const cpu = (r: Measured, name: string) => (Number.isFinite(r.cpuMsPerRequest[name]) ? ms(r.cpuMsPerRequest[name]!) : '–');
const lines = [
  `# Friend suggestions and mutual friends: ${date}`,
  '',
  `Center gamer with ${FRIENDS} friends, each with ${FRIENDS_OF_EACH} friends (99 drawn from a pool of ${POOL}, so ~${FRIENDS * (FRIENDS_OF_EACH - 1)} friend-of-friend edges), in application \`${app}\`. Through the gateway. Load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(2)).join(' ')} after. Aim: p99 <= ${AIM_P99_MS} ms for suggestions.`,
  '',
  '| scenario | path | conc. | n | req/s | p50 ms | p99 ms | max ms | errors | CPU ms/req gateway | friendship | store | aim |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...results.map((r) =>
    `| ${r.id} | \`${r.path}\` | ${r.concurrency} | ${r.requests} | ${(r.requests / r.seconds).toFixed(1)} | ${ms(r.latency.p50)} | ${ms(r.latency.p99)} | ${ms(r.latency.max)} | ${r.errors} | ${cpu(r, 'gateway')} | ${cpu(r, 'friendship')} | ${cpu(r, 'friendship-db')} | ${r.id.startsWith('suggestions-20-seq') ? (r.latency.p99 <= AIM_P99_MS ? 'pass' : 'miss') : ''} |`),
  '',
];
writeFileSync(join(outDir, `${date}-suggestions.generated.md`), lines.join('\n'));
console.log(lines.join('\n'));
