import autocannon from 'autocannon';
import type { Progress } from './progress.ts';
import { UsageSampler, type ProcessUsage } from './procstat.ts';
import { summarize, type LatencySummary } from './stats.ts';

export interface RequestSpec {
  method?: string;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}

export interface ScenarioResult {
  id: string;
  title: string;
  /** autocannon: a timed run; sampled: requests one after another when a single one takes seconds */
  mode: 'autocannon' | 'sampled' | 'custom';
  connections: number;
  wallS: number;
  requests: number;
  /** requests (or pairs, or events) per second */
  rate: number;
  unit: string;
  latency: LatencySummary;
  errors: number;
  non2xx: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  usage: Record<string, ProcessUsage>;
  notes: string[];
  extra?: Record<string, unknown>;
}

export interface LoadOptions {
  id: string;
  title: string;
  baseUrl: string;
  /** the request to send next; called for every request */
  next: () => RequestSpec;
  connections: number;
  /** autocannon duration of a fast scenario */
  durationS: number;
  /** time budget of a sampled (slow) scenario */
  slowBudgetS: number;
  /** called before a timed autocannon run (e.g. to widen the gamer pool once requests are known to be fast) */
  beforeFast?: () => Promise<void>;
  /** a single request slower than this switches to sampled mode */
  slowMs: number;
  /** at least this many samples in sampled mode, even past the budget */
  minSamples: number;
  pids: Map<string, number>;
  progress: Progress;
  /** use this mode whatever the probe says (so that scenarios compared in a ratio run alike) */
  mode?: 'autocannon' | 'sampled';
  /** answers with another status count as errors; default: 2xx */
  okStatus?: (status: number) => boolean;
}

const NO_USAGE: Record<string, ProcessUsage> = {};

async function once(baseUrl: string, spec: RequestSpec, timeoutMs: number): Promise<{ status: number; ms: number; error?: string }> {
  const t0 = performance.now();
  try {
    const response = await fetch(baseUrl + spec.path, {
      method: spec.method ?? 'GET',
      headers: { ...spec.headers, ...(spec.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(spec.body !== undefined ? { body: JSON.stringify(spec.body) } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - t0 };
  } catch (error) {
    return { status: 0, ms: performance.now() - t0, error: (error as Error).name };
  }
}

/**
 * Runs one HTTP scenario. A probe request first (it also warms caches); if it answers
 * within `slowMs`, autocannon drives `connections` keep-alive connections for
 * `durationS`; otherwise (a request takes seconds, as a collection scan does) requests
 * are sent `connections` at a time until the budget is spent and at least `minSamples`
 * have answered, so the run stays bounded and the figures say how many samples they rest on.
 */
export async function runLoad(o: LoadOptions): Promise<ScenarioResult> {
  const ok = o.okStatus ?? ((s: number) => s >= 200 && s < 300);
  const probeTimeout = 900_000;
  // sampled mode counts the probe as its first sample: measure from before it
  const probeSampler = new UsageSampler(o.pids);
  probeSampler.start();
  const probeStart = performance.now();
  const probe = await once(o.baseUrl, o.next(), probeTimeout);
  o.progress.report(0.05, `${o.id}: probe ${probe.ms.toFixed(1)} ms (status ${probe.status})`, true);
  if (o.mode === 'sampled' || (o.mode === undefined && probe.ms >= o.slowMs)) return sampled(o, probe, ok, probeSampler, probeStart);
  probeSampler.stop();
  await o.beforeFast?.();

  const sampler = new UsageSampler(o.pids);
  sampler.start();
  const t0 = performance.now();
  const ticker = setInterval(() => o.progress.report((performance.now() - t0) / 1000 / o.durationS, `${o.id} running`), 1000);
  let result: autocannon.Result;
  try {
    result = await autocannon({
      url: o.baseUrl,
      connections: o.connections,
      duration: o.durationS,
      timeout: 30,
      requests: [
        {
          setupRequest: (req) => {
            const spec = o.next();
            return { ...req, method: (spec.method ?? 'GET') as autocannon.Request['method'], path: spec.path, headers: { ...spec.headers, ...(spec.body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(spec.body !== undefined ? { body: JSON.stringify(spec.body) } : {}) };
          },
        },
      ],
    });
  } finally {
    clearInterval(ticker);
  }
  const usage = sampler.stop();
  const statusCodes: Record<string, number> = {};
  let okCount = 0;
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) {
    const count = (stat as { count: number }).count;
    statusCodes[code] = count;
    if (ok(Number(code))) okCount += count;
  }
  const total = Object.values(statusCodes).reduce((s, v) => s + v, 0);
  const l = result.latency;
  return {
    id: o.id,
    title: o.title,
    mode: 'autocannon',
    connections: o.connections,
    wallS: result.duration,
    requests: total,
    rate: okCount / result.duration,
    unit: 'req/s',
    latency: { n: l.totalCount ?? total, mean: l.mean, p50: l.p50, p99: l.p99, p999: l.p99_9, max: l.max },
    errors: result.errors + (total - okCount),
    non2xx: total - okCount,
    timeouts: result.timeouts,
    statusCodes,
    usage,
    notes: [`probe ${probe.ms.toFixed(1)} ms`],
  };
}

async function sampled(o: LoadOptions, probe: { status: number; ms: number }, ok: (s: number) => boolean, sampler: UsageSampler, t0: number): Promise<ScenarioResult> {
  const budgetMs = o.slowBudgetS * 1000;
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = { [String(probe.status)]: 1 };
  let errors = 0;
  let timeouts = 0;
  if (probe.status === 0) timeouts++;
  if (ok(probe.status)) latencies.push(probe.ms);
  else errors++;
  let estimate = probe.ms;
  // one at a time: on 2 cores, two scans in parallel only make each slower
  const concurrency = 1;
  const worker = async () => {
    // start another request only while it is expected to end within the budget, or too few answered
    // the probe counts as the first sample: with requests of seconds, its warm-up effect is noise
    while (latencies.length + errors < o.minSamples || performance.now() - t0 + estimate <= budgetMs) {
      if (latencies.length + errors >= o.minSamples * 50) break;
      const r = await once(o.baseUrl, o.next(), Math.max(600_000, estimate * 5));
      statusCodes[String(r.status)] = (statusCodes[String(r.status)] ?? 0) + 1;
      if (r.status === 0) {
        timeouts++;
        errors++;
      } else if (!ok(r.status)) errors++;
      else latencies.push(r.ms);
      estimate = Math.max(estimate * 0.5 + r.ms * 0.5, 1);
      const frac = Math.min(1, Math.max((performance.now() - t0) / budgetMs, latencies.length / o.minSamples));
      o.progress.report(frac, `${o.id}: ${latencies.length} samples, last ${r.ms.toFixed(0)} ms`, true);
      if (r.status === 0 && latencies.length === 0 && errors >= 2) break;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallS = (performance.now() - t0) / 1000;
  const usage = sampler.stop();
  const total = Object.values(statusCodes).reduce((s, v) => s + v, 0);
  return {
    id: o.id,
    title: o.title,
    mode: 'sampled',
    connections: concurrency,
    wallS,
    requests: total,
    rate: latencies.length / wallS,
    unit: 'req/s',
    latency: summarize(latencies),
    errors,
    non2xx: total - latencies.length - timeouts,
    timeouts,
    statusCodes,
    usage: usage ?? NO_USAGE,
    notes: [`probe ${probe.ms.toFixed(0)} ms${o.mode ? ' (mode set to match the scenario it is compared with)' : ` ≥ ${o.slowMs} ms`}: sampled mode, ${concurrency} at a time, ${latencies.length} samples (p99/p99.9 of few samples = the maximum)`],
  };
}
