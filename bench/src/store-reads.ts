/**
 * The store's side of the friend suggestions and the friend list (issues #15 item 2, #16
 * item 3), before and after a store change, in one run on one dataset: the friendship
 * repository's own reads (services/friendship/src/repository/relations.ts), timed straight
 * against the store, once per image, on the same database files.
 *
 *   node bench/src/store-reads.ts --state DIR --image before=IMAGE --image after=IMAGE
 *        [--samples 20] [--budget-s 60] [--out bench/results]
 *
 * DIR holds a friendship database loaded by suggestions-data.ts (a FerretDB state
 * directory, mounted at /state). Each image in turn gets a container on those files; the
 * reads only read. Per read: up to --samples sequential calls within --budget-s seconds
 * (at least one), latency and the store container's CPU per call, and the store's plan.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectMongo } from '../../libs/platform/src/connections.ts';
import { profileCache } from '../../services/friendship/src/profile-cache.ts';
import { createRepositories } from '../../services/friendship/src/repository/index.ts';
import { benchConfig } from './config.ts';
import { planFriendDataset } from './datagen/friendship-data.ts';
import { center } from './datagen/suggestions-neighbourhood.ts';
import { describePlan } from './friendship-scenarios.ts';
import { loadAverage, UsageSampler } from './procstat.ts';
import { containerPid } from './stack.ts';
import { summarize, type LatencySummary } from './stats.ts';

const all = (name: string): string[] => process.argv.flatMap((a, i) => (a === name && process.argv[i + 1] ? [process.argv[i + 1]!] : []));
const arg = (name: string): string | undefined => all(name)[0];
if (process.argv.includes('--help') || process.argv.includes('-h') || !arg('--state') || all('--image').length === 0) {
  console.log('usage: node bench/src/store-reads.ts --state DIR --image LABEL=IMAGE [--image LABEL=IMAGE] [--samples N] [--budget-s S] [--out DIR]\n(see the header of this file)');
  process.exit(arg('--state') ? 0 : 2);
}
const here = dirname(fileURLToPath(import.meta.url));
const outDir = arg('--out') ?? resolve(here, '../results');
const samples = Number(arg('--samples') ?? 20);
const budgetMs = Number(arg('--budget-s') ?? 60) * 1000;
const engine = process.env.GFTS_ENGINE ?? 'podman';
const name = 'gfts-store-reads';
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

const spec = benchConfig('full').main;
const plan = planFriendDataset(spec);
const app = spec.app;
const probe100 = plan.probeGamers.get(100)![0]!.id;
const probe1000 = plan.probeGamers.get(1000)![0]!.id;

interface Read {
  id: string;
  what: string;
  n: number;
  latency: LatencySummary;
  storeCpuMsPerCall: number;
  rows: number;
}

async function startStore(image: string): Promise<string> {
  execFileSync(engine, ['rm', '-f', name], { stdio: 'ignore' });
  execFileSync(engine, ['run', '-d', '--name', name, '-p', '127.0.0.1::27017', '-v', `${arg('--state')}:/state`, image], { stdio: 'ignore' });
  const port = execFileSync(engine, ['port', name, '27017/tcp'], { encoding: 'utf8' }).trim().split('\n')[0]!.replace(/.*:/, '');
  return `mongodb://127.0.0.1:${port}/friendship`;
}

async function measureImage(label: string, image: string) {
  log(`${label}: ${image}`);
  const url = await startStore(image);
  const quiet = { info: () => {}, warn: () => {}, error: (o: unknown, m?: string) => console.error('mongodb:', m ?? o) };
  const connection = await connectMongo(url, quiet as never);
  try {
    const repos = await createRepositories(connection, { maxAgeMs: 24 * 3600_000 }, profileCache(1, 0)); // no profile cache: the store's reads are measured
    const repo = repos.relations;
    const pid = containerPid(engine, name);
    const friendsOfCenter = await repo.friendIds(app, center.id);
    const reads: Array<[string, string, () => Promise<unknown[]>]> = [
      ['suggestion-edges', `friendEdgesOf: 2 × {applicationId, requester|addressee: {$in: ${friendsOfCenter.length} ids}, status} (the suggestions' friends of friends)`, () => repo.friendEdgesOf(app, friendsOfCenter)],
      ['friend-lists', `friendLists.friendsOf: {_id: {$in: ${friendsOfCenter.length} list ids}} (the suggestions' friends of friends since the friend-id lists; the first call builds them)`, async () => [...(await repos.friendLists.friendsOf(app, friendsOfCenter)).values()].flat()],
      ['friend-ids', "friendIds of the center (suggestions' first read, mutual friends)", () => repo.friendIds(app, center.id)],
      ['friend-page-100', 'friend list page of 100 (limit 101 per side), gamer with 100 friends', () => repo.list(app, probe100, 'friends', undefined, 101)],
      ['friend-page-1000', 'friend list page of 100 (limit 101 per side), gamer with 1,000 friends', () => repo.list(app, probe1000, 'friends', undefined, 101)],
    ];
    const out: Read[] = [];
    for (const [id, what, run] of reads) {
      const latencies: number[] = [];
      let rows = 0;
      const pids = new Map(pid ? [['store', pid]] : []);
      let sampler = new UsageSampler(pids);
      sampler.start();
      let started = performance.now();
      // the first call warms the page cache and the pool; one that takes 5 s or more is the
      // only sample (a scan: the next would take as long)
      let timedOut = false;
      // the store connection's socket timeout (30 s, libs/platform) ends a longer read
      rows = await run().then((r) => r.length, () => ((timedOut = true), -1));
      const first = performance.now() - started;
      if (timedOut) log(`${label} ${id}: no answer within ${(first / 1000).toFixed(0)} s (socket timeout); recorded as one sample, rows -1`);
      if (first >= 5_000 || timedOut) latencies.push(first);
      else {
        sampler.stop();
        sampler = new UsageSampler(pids);
        sampler.start();
        started = performance.now();
      }
      while (latencies.length < samples && (latencies.length === 0 || performance.now() - started < budgetMs)) {
        const t = performance.now();
        rows = (await run()).length;
        latencies.push(performance.now() - t);
      }
      const seconds = (performance.now() - started) / 1000;
      const usage = sampler.stop();
      const storeCpuMsPerCall = usage.store ? ((usage.store.cpuPercent / 100) * seconds * 1000) / latencies.length : Number.NaN;
      const r = { id, what, n: latencies.length, latency: summarize(latencies), storeCpuMsPerCall, rows };
      log(`${label} ${id}: n ${r.n}, p50 ${r.latency.p50.toFixed(1)} ms, p99 ${r.latency.p99.toFixed(1)} ms, store CPU ${storeCpuMsPerCall.toFixed(1)} ms/call, ${rows} rows`);
      out.push(r);
    }
    const db = connection.db!;
    const explain = async (run: () => Promise<unknown>) => describePlan((await run()) as Record<string, unknown>);
    const plans = {
      'suggestion-edges (requester side)': await explain(() => db.collection('relations').find({ applicationId: app, requester: { $in: friendsOfCenter }, status: 'accepted' }, { projection: { _id: 0, requester: 1, addressee: 1 } }).explain()),
      'friend page (one side)': await explain(() => db.collection('relations').find({ applicationId: app, requester: probe1000, status: 'accepted' }).sort({ _id: 1 }).limit(101).explain()),
    };
    return { label, image, reads: out, plans };
  } finally {
    await connection.close();
    execFileSync(engine, ['rm', '-f', name], { stdio: 'ignore' });
  }
}

const loadBefore = loadAverage();
const runs = [];
for (const pair of all('--image')) {
  const [label, image] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
  runs.push(await measureImage(label, image));
}
const loadAfter = loadAverage();
const date = new Date().toISOString().slice(0, 10);
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, `${date}-store.json`), `${JSON.stringify({ date, app, loadBefore, loadAfter, samples, budgetMs, runs }, null, 2)}\n`);
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–');
const lines = [
  `# Store reads of the friendship service: ${date}`,
  '',
  `Application \`${app}\` (full main dataset + suggestions neighbourhood). Load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(2)).join(' ')} after.`,
  '',
  '| image | read | n | p50 ms | p99 ms | max ms | store CPU ms/call | rows |',
  '|---|---|---|---|---|---|---|---|',
  ...runs.flatMap((run) => run.reads.map((r) => `| ${run.label} | ${r.id} | ${r.n} | ${ms(r.latency.p50)} | ${ms(r.latency.p99)} | ${ms(r.latency.max)} | ${ms(r.storeCpuMsPerCall)} | ${r.rows} |`)),
  '',
  ...runs.flatMap((run) => Object.entries(run.plans).map(([q, p]) => `- ${run.label}, ${q}: ${p}`)),
  '',
];
writeFileSync(join(outDir, `${date}-store.generated.md`), lines.join('\n'));
console.log(lines.join('\n'));
