import type { Db } from 'mongodb';
import type { BenchConfig } from './config.ts';
import { SEARCH_PREFIXES } from './datagen/ids.ts';
import type { FriendDataset } from './datagen/friendship-data.ts';
import { runLoad, type RequestSpec, type ScenarioResult } from './load.ts';
import { UsageSampler } from './procstat.ts';
import type { Progress } from './progress.ts';
import { call, type Credentials, type Gamer, type StackState } from './stack.ts';
import { summarize } from './stats.ts';

export interface Ctx {
  cfg: BenchConfig;
  state: StackState;
  creds: Credentials;
  pids: Map<string, number>;
  progress: Progress;
  ceilingUrl: string;
}

export type Target = 'gateway' | 'direct' | 'ceiling';

const FRIENDS = '/api/v1/friendship';

function baseUrl(ctx: Ctx, target: Target): string {
  if (target === 'gateway') return ctx.state.services.gateway.url;
  if (target === 'direct') return ctx.state.services.friendship.url;
  return ctx.ceilingUrl;
}

/** Headers of a gamer: a bearer token through the gateway, a fresh identity assertion directly. */
export function gamerHeaders(ctx: Ctx, target: Target, app: string, g: Gamer): Record<string, string> {
  if (target === 'gateway') return { authorization: ctx.creds.bearerFor(app, g) };
  if (target === 'direct') return { 'x-gfts-identity': ctx.creds.identityFor(app, g) };
  return {};
}

/**
 * The friendship service registers a gamer on its first call (a directory upsert), then
 * caches that. Real gamers are registered long before they list friends, so scenarios warm
 * their gamers first with a cheap call.
 */
/** What every timed friendship scenario passes to runLoad from the bench configuration. */
function timedRunOptions(ctx: Ctx, o: { connections?: number; mode?: 'autocannon' | 'sampled' }) {
  return {
    connections: o.connections ?? ctx.cfg.connections,
    durationS: ctx.cfg.durationS,
    slowBudgetS: ctx.cfg.slowBudgetS,
    slowMs: ctx.cfg.slowMs,
    minSamples: ctx.cfg.minSamples,
    pids: ctx.pids,
    progress: ctx.progress,
    ...(o.mode ? { mode: o.mode } : {}),
  };
}

export async function warmRegistrations(ctx: Ctx, app: string, gamers: Gamer[], concurrency = 4): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < gamers.length) {
      const g = gamers[next++]!;
      const r = await call('GET', `${ctx.state.services.friendship.url}${FRIENDS}/blocked?limit=1`, gamerHeaders(ctx, 'direct', app, g));
      if (r.status !== 200) throw new Error(`warming gamer ${g.id}: status ${r.status} ${JSON.stringify(r.body)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

interface ListOptions {
  id: string;
  title: string;
  target: Target;
  app: string;
  gamers: Gamer[];
  limit: number;
  connections?: number;
  mode?: 'autocannon' | 'sampled';
}

export async function friendList(ctx: Ctx, o: ListOptions): Promise<ScenarioResult> {
  let i = 0;
  let pool = o.gamers.slice(0, 1);
  if (o.target !== 'ceiling') await warmRegistrations(ctx, o.app, pool);
  const next = (): RequestSpec => {
    const g = pool[i++ % pool.length]!;
    if (o.target === 'ceiling') return { path: `/friends?app=${o.app}&gamer=${g.id}&limit=${o.limit}`, headers: {} };
    return { path: `${FRIENDS}?limit=${o.limit}`, headers: gamerHeaders(ctx, o.target, o.app, g) };
  };
  return runLoad({
    id: o.id,
    title: o.title,
    baseUrl: baseUrl(ctx, o.target),
    next,
    ...timedRunOptions(ctx, o),
    beforeFast: async () => {
      // fast enough for a timed run: spread the load over every probe gamer of this size
      if (o.target !== 'ceiling') await warmRegistrations(ctx, o.app, o.gamers);
      pool = o.gamers;
    },
  });
}

export async function search(ctx: Ctx, o: { id: string; title: string; target: Exclude<Target, 'ceiling'>; app: string; gamers: Gamer[]; connections?: number; mode?: 'autocannon' | 'sampled' }): Promise<ScenarioResult> {
  let i = 0;
  let pool = o.gamers.slice(0, 1);
  await warmRegistrations(ctx, o.app, pool);
  const next = (): RequestSpec => {
    const g = pool[i % pool.length]!;
    const prefix = SEARCH_PREFIXES[i++ % SEARCH_PREFIXES.length]!;
    return { path: `${FRIENDS}/search?displayName=${encodeURIComponent(prefix)}&limit=20`, headers: gamerHeaders(ctx, o.target, o.app, g) };
  };
  return runLoad({
    id: o.id,
    title: o.title,
    baseUrl: baseUrl(ctx, o.target),
    next,
    ...timedRunOptions(ctx, o),
    beforeFast: async () => {
      await warmRegistrations(ctx, o.app, o.gamers);
      pool = o.gamers;
    },
  });
}

/** GET /blocked of gamers who block nobody: an almost free read, so the figures are the HTTP path's own cost. */
export async function cheapCall(ctx: Ctx, o: { id: string; title: string; target: Exclude<Target, 'ceiling'>; app: string; gamers: Gamer[]; baseUrl?: string; durationS?: number }): Promise<ScenarioResult> {
  let i = 0;
  const next = (): RequestSpec => {
    const g = o.gamers[i++ % o.gamers.length]!;
    return { path: `${FRIENDS}/blocked?limit=10`, headers: gamerHeaders(ctx, o.target, o.app, g) };
  };
  return runLoad({
    id: o.id,
    title: o.title,
    baseUrl: o.baseUrl ?? baseUrl(ctx, o.target),
    next,
    connections: ctx.cfg.connections,
    durationS: o.durationS ?? ctx.cfg.durationS,
    slowBudgetS: ctx.cfg.slowBudgetS,
    slowMs: ctx.cfg.slowMs,
    minSamples: ctx.cfg.minSamples,
    pids: ctx.pids,
    progress: ctx.progress,
  });
}

/**
 * Request + accept pairs through the gateway between gamers with no relation: A sends a
 * request, B lists its incoming requests to learn the id, B accepts. A pair's latency is
 * the sum of the three calls. Pairs start while they are expected to end within the budget.
 */
export async function requestAcceptPairs(ctx: Ctx, o: { id: string; title: string; plan: FriendDataset; firstPair: number; budgetS: number; estimateMs: number }): Promise<ScenarioResult> {
  const app = o.plan.spec.app;
  const gw = ctx.state.services.gateway.url;
  const budgetMs = o.budgetS * 1000;
  if (o.estimateMs > budgetMs * 3) {
    return skipped(o.id, o.title, `skipped: a pair is expected to take ~${(o.estimateMs / 60_000).toFixed(1)} min here (${(o.estimateMs / 1000).toFixed(0)} s, extrapolated), over 3× the ${o.budgetS} s budget`);
  }
  const sampler = new UsageSampler(ctx.pids);
  const pairMs: number[] = [];
  const steps: Record<'request' | 'incoming' | 'accept', number[]> = { request: [], incoming: [], accept: [] };
  const statusCodes: Record<string, number> = {};
  let errors = 0;
  let index = o.firstPair;
  let estimate = o.estimateMs;
  let measuredMs = 0;
  const t0 = performance.now();
  sampler.start();
  const count = (s: number) => (statusCodes[String(s)] = (statusCodes[String(s)] ?? 0) + 1);
  const worker = async () => {
    while (pairMs.length + errors === 0 || performance.now() - t0 + estimate <= budgetMs) {
      if (pairMs.length + errors >= 10_000) break;
      const [a, b] = o.plan.strangerPair(index++);
      // registration is not part of the pair: real gamers are registered long before
      const warmT = performance.now();
      await warmRegistrations(ctx, app, [a, b], 2);
      const warmMs = performance.now() - warmT;
      const ha = { authorization: ctx.creds.bearerFor(app, a) };
      const hb = { authorization: ctx.creds.bearerFor(app, b) };
      const r1 = await call('POST', `${gw}${FRIENDS}`, ha, { target: b.id });
      count(r1.status);
      const r2 = r1.status === 200 ? await call('GET', `${gw}${FRIENDS}/requests/incoming?limit=200`, hb) : undefined;
      if (r2) count(r2.status);
      const entry = Array.isArray(r2?.body) ? (r2.body as { id: string; user: { id: string } }[]).find((e) => e.user.id === a.id) : undefined;
      const r3 = entry ? await call('POST', `${gw}${FRIENDS}/${entry.id}/accept`, hb) : undefined;
      if (r3) count(r3.status);
      if (r1.status === 200 && r2?.status === 200 && r3?.status === 200) {
        const total = r1.ms + r2.ms + r3.ms;
        pairMs.push(total);
        steps.request.push(r1.ms);
        steps.incoming.push(r2.ms);
        steps.accept.push(r3.ms);
        measuredMs += total;
        estimate = total + warmMs;
      } else {
        errors++;
        ctx.progress.log(`${o.id}: pair failed: ${r1.status} ${r2?.status ?? '-'} ${r3?.status ?? '-'} ${JSON.stringify(r3?.body ?? r2?.body ?? r1.body).slice(0, 200)}`);
        if (errors >= 3 && pairMs.length === 0) break;
      }
      ctx.progress.report(Math.min(1, (performance.now() - t0) / budgetMs), `${o.id}: ${pairMs.length} pairs, last ${(pairMs.at(-1) ?? 0).toFixed(0)} ms`, true);
    }
  };
  await Promise.all(Array.from({ length: ctx.cfg.pairs.concurrency }, worker));
  const wallS = (performance.now() - t0) / 1000;
  const usage = sampler.stop();
  return {
    id: o.id,
    title: o.title,
    mode: 'custom',
    connections: ctx.cfg.pairs.concurrency,
    wallS,
    requests: Object.values(statusCodes).reduce((s, v) => s + v, 0),
    // pairs per second of the time spent in the timed calls (registration warm-ups excluded)
    rate: measuredMs > 0 ? pairMs.length / (measuredMs / 1000 / ctx.cfg.pairs.concurrency) : Number.NaN,
    unit: 'pairs/s',
    latency: summarize(pairMs),
    errors,
    non2xx: Object.entries(statusCodes).filter(([s]) => s !== '200').reduce((sum, [, v]) => sum + v, 0),
    timeouts: 0,
    statusCodes,
    usage,
    notes: [`${pairMs.length} pairs, ${ctx.cfg.pairs.concurrency} at a time; 3 calls each (request, incoming list, accept)`],
    extra: { steps: { request: summarize(steps.request), incoming: summarize(steps.incoming), accept: summarize(steps.accept) } },
  };
}

export function skipped(id: string, title: string, why: string): ScenarioResult {
  return {
    id,
    title,
    mode: 'custom',
    connections: 0,
    wallS: 0,
    requests: 0,
    rate: Number.NaN,
    unit: 'req/s',
    latency: summarize([]),
    errors: 0,
    non2xx: 0,
    timeouts: 0,
    statusCodes: {},
    usage: {},
    notes: [why],
  };
}

export interface PlanReport {
  query: string;
  text: string;
  raw: unknown;
}

/** A one-line plan from MongoDB's winningPlan or FerretDB v1's SQL plan + pushdown flags. */
export function describePlan(explain: Record<string, unknown>): string {
  const qp = explain.queryPlanner as Record<string, unknown> | undefined;
  if (qp && 'winningPlan' in qp) {
    const stages: string[] = [];
    let stage = qp.winningPlan as Record<string, unknown> | undefined;
    while (stage) {
      stages.push(`${String(stage.stage)}${stage.indexName ? `(${String(stage.indexName)})` : ''}`);
      stage = (stage.inputStage as Record<string, unknown> | undefined) ?? ((stage.inputStages as Record<string, unknown>[] | undefined)?.[0]);
    }
    return stages.join(' ← ');
  }
  const lines = ((qp?.Plan as string[] | undefined) ?? []).map((l) => l.replace(/^id=\d+ parent=\d+ notused=\d+ detail=/, ''));
  // The patched store writes an equality as a UNION ALL of index-served branches (one per
  // "value or array" choice per field): show each distinct access once, with its count.
  const accesses = lines.filter((l) => /^(SEARCH|SCAN) /.test(l));
  const counted = [...new Set(accesses)].map((l) => {
    const n = accesses.filter((x) => x === l).length;
    return n > 1 ? `${n} × ${l}` : l;
  });
  const shape = lines.includes('COMPOUND QUERY') ? `UNION ALL of ${accesses.length}: ` : '';
  const flags = ['filterPushdown', 'sortPushdown', 'limitPushdown'].map((f) => `${f}=${String(explain[f])}`).join(', ');
  return `SQLite: ${shape}${counted.join('; ') || '(no plan)'}; ${flags}`;
}

export async function explainFriendship(db: Db, app: string, gamer: Gamer, prefixKey: string): Promise<PlanReport[]> {
  const relations = db.collection('relations');
  const gamers = db.collection('gamers');
  const queries: [string, () => Promise<unknown>][] = [
    ['friend list (one of its two ranges): relations {applicationId, requester, status} sort {_id} limit 101', () => relations.find({ applicationId: app, requester: gamer.id, status: 'accepted' }).sort({ _id: 1 }).limit(101).explain()],
    ['friend list: gamers {applicationId, gamerId: {$in: 100 ids}}', () => gamers.find({ applicationId: app, gamerId: { $in: [gamer.id] } }, { projection: { _id: 0, gamerId: 1, displayName: 1, avatar: 1 } }).explain()],
    ['search: gamers {applicationId, displayNameKey: [prefix, prefix+U+10FFFF), gamerId ≥ \'\' and $nin} sort {displayNameKey, gamerId} limit 20', () => gamers.find({ applicationId: app, displayNameKey: { $gte: prefixKey, $lt: `${prefixKey}\u{10FFFF}` }, gamerId: { $gte: '', $nin: [gamer.id] } }).sort({ displayNameKey: 1, gamerId: 1 }).limit(20).explain()],
    ['registration: gamers updateOne {applicationId, gamerId} (as find)', () => gamers.find({ applicationId: app, gamerId: gamer.id }).explain()],
    ['by id: relations {_id}', () => relations.find({ _id: 'x' as never }).explain()],
  ];
  const out: PlanReport[] = [];
  for (const [query, run] of queries) {
    try {
      const raw = (await run()) as Record<string, unknown>;
      out.push({ query, text: describePlan(raw), raw: { queryPlanner: raw.queryPlanner, filterPushdown: raw.filterPushdown, sortPushdown: raw.sortPushdown, limitPushdown: raw.limitPushdown } });
    } catch (error) {
      out.push({ query, text: `explain failed: ${(error as Error).message}`, raw: null });
    }
  }
  return out;
}
