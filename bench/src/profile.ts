import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { summarizeProfile, type CpuProfile } from './cpuprofile.ts';
import { cheapCall, warmRegistrations, type Ctx } from './friendship-scenarios.ts';
import type { ProfileReport } from './report.ts';
import { startNode, stopNode, type Gamer } from './stack.ts';

/**
 * Item 6: the hottest path under `node --cpu-prof`. A second gateway and friendship
 * process (same code, same database and NATS, other ports) run with the profiler while
 * the gateway → friendship call is driven; their .cpuprofile files are summarised into
 * self time per function and per package, and CPU milliseconds per request.
 */
export async function runProfile(ctx: Ctx, o: { root: string; logDir: string; app: string; gamers: Gamer[]; durationS: number }): Promise<ProfileReport> {
  const dir = join(o.root, '.stack/profiles', new Date().toISOString().replaceAll(':', '-'));
  mkdirSync(dir, { recursive: true });
  const fPort = Number(process.env.BENCH_PROFILE_FRIENDSHIP_PORT ?? 18181);
  const gPort = Number(process.env.BENCH_PROFILE_GATEWAY_PORT ?? 18180);
  const common = { HOST: '127.0.0.1', INTERNAL_TOKEN_SECRET: process.env.INTERNAL_TOKEN_SECRET ?? 'dev-only-internal-secret-0123456789abcdef' };
  const spawnedAt = performance.now();
  const friendship = await startNode(
    join(o.root, 'services/friendship/src/server.ts'),
    { ...common, PORT: String(fPort), MONGO_URL: ctx.state.services.friendship.mongoUrl, NATS_URL: ctx.state.natsUrl },
    `http://127.0.0.1:${fPort}/healthz`,
    ['--cpu-prof', `--cpu-prof-dir=${join(dir, 'friendship')}`],
    join(o.logDir, 'bench-profile-friendship.log'),
  );
  const gateway = await startNode(
    join(o.root, 'services/gateway/src/server.ts'),
    { ...common, PORT: String(gPort), FRIENDSHIP_URL: `http://127.0.0.1:${fPort}`, TASKS_URL: ctx.state.services.tasks.url, JWT_SECRET: process.env.JWT_SECRET ?? 'dev-only-secret-change-me-0123456789abcdef' },
    `http://127.0.0.1:${gPort}/healthz`,
    ['--cpu-prof', `--cpu-prof-dir=${join(dir, 'gateway')}`],
    join(o.logDir, 'bench-profile-gateway.log'),
  );
  let scenario;
  let loadFromMs = 0;
  try {
    // warm the new friendship process's registration cache (it has its own)
    await warmRegistrations({ ...ctx, state: { ...ctx.state, services: { ...ctx.state.services, friendship: { ...ctx.state.services.friendship, url: `http://127.0.0.1:${fPort}` } } } }, o.app, o.gamers);
    const pids = new Map<string, number>([['gateway', gateway.pid!], ['friendship', friendship.pid!], ['loadgen', process.pid]]);
    for (const name of ['friendship-db', 'nats']) if (ctx.pids.has(name)) pids.set(name, ctx.pids.get(name)!);
    loadFromMs = performance.now() - spawnedAt;
    scenario = await cheapCall({ ...ctx, pids }, { id: 'profile-cheap-gateway', title: 'GET /blocked through the gateway, both under --cpu-prof', target: 'gateway', app: o.app, gamers: o.gamers, baseUrl: `http://127.0.0.1:${gPort}`, durationS: o.durationS });
  } finally {
    await stopNode(gateway);
    await stopNode(friendship);
  }
  const processes = (['gateway', 'friendship'] as const).map((name) => {
    const sub = join(dir, name);
    const file = readdirSync(sub).filter((f) => f.endsWith('.cpuprofile')).sort().at(-1);
    if (!file) throw new Error(`no .cpuprofile written in ${sub}`);
    // start-up (module loading, compiling) is not the request path: leave it out
    const summary = summarizeProfile(JSON.parse(readFileSync(join(sub, file), 'utf8')) as CpuProfile, 20, loadFromMs);
    const requests = scenario?.requests ?? 0;
    const usage = scenario?.usage[name];
    // CPU per request from the kernel's accounting over the timed run (not the profiler's)
    const cpuMs = usage && scenario ? (usage.cpuPercent / 100) * scenario.wallS * 1000 : Number.NaN;
    return { name, file: join(sub, file), summary, requests, cpuMsPerRequest: requests > 0 ? cpuMs / requests : Number.NaN };
  });
  return { target: 'GET /api/v1/friendship/blocked through the gateway (a near-free read: the HTTP path itself)', durationS: o.durationS, processes, ...(scenario ? { scenario } : {}) };
}
