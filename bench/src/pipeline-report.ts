/**
 * What a tasks-pipeline run (bench/run.sh --tasks-only) records, and the pure arithmetic
 * that turns its raw counts into the figures the page shows. No I/O here.
 */
import type { IntervalCpu, ProcessUsage } from './procstat.ts';
import { percentileSorted, type AimCheck, type LatencySummary, type SecondLatency } from './stats.ts';

export interface PipelineOptions {
  mode: 'quick' | 'full';
  gamers: number;
  /** open-loop offered rates, events/s */
  rates: number[];
  /** how long each rate is offered */
  phaseS: number;
  /** how long, after offering, the bench waits for the consumer to catch up before purging what is left */
  drainCapS: number;
  /** events published as fast as possible for the sustained figure */
  sustainedEvents: number;
  /** longest wait for the sustained events to be processed */
  sustainedCapS: number;
  /** events sent one at a time on an idle consumer */
  singles: number;
  ceilingS: number;
  ceilingBatch: number;
  /** documents copied into the ceiling's collection */
  ceilingDocs: number;
  /** how gamer tasks are created: straight into the database with the service's functions, or through the HTTP API */
  setup: 'direct' | 'http';
  /** concurrent gamers during an HTTP setup (3 calls each) */
  setupConcurrency: number;
  /** most publishes awaiting their JetStream ack */
  maxInflight: number;
  seed: number;
}

export interface TimelinePoint {
  /** seconds since the phase started */
  t: number;
  published: number;
  /** events in the stream not acknowledged by the tasks consumer (num_pending + num_ack_pending) */
  backlog: number;
  /** events of the phase the consumer has acknowledged: accepted by JetStream so far − backlog */
  processed: number;
  /** CPU since the previous point (absent for an interval under 0.5 s) */
  cpu?: IntervalCpu;
}

export interface PhaseUsage {
  processes: Record<string, ProcessUsage>;
  /** the whole machine's busy CPU, percent of one core */
  machinePercent: number;
  /** machine busy CPU not accounted to the sampled processes: other engineers' work, the kernel, podman */
  otherPercent: number;
  load: { start: number[]; end: number[] };
}

export interface RatePhase {
  offeredRate: number;
  durationS: number;
  /** events the bench meant to publish (rate × duration) */
  offered: number;
  /** JetStream acknowledged (stored) */
  accepted: number;
  publishErrors: number;
  /** seconds the publishing took (≥ durationS when NATS or the bench fell behind) */
  sendS: number;
  acceptedRate: number;
  /**
   * The most an event's publish came after its slot in the schedule (start + i / rate), ms.
   * Latencies count from the slot, so a publisher that fell behind adds its lag to them
   * instead of hiding it (absent in runs before 2026-11-29, whose latencies counted from the send)
   */
  maxSendLagMs?: number;
  /** events the consumer acknowledged by the end of the offering window */
  processedInWindow: number;
  /** processedInWindow / sendS */
  processedRateInWindow: number;
  backlogAtWindowEnd: number;
  /** age of the oldest event still queued at the end of the window: a lower bound on its latency */
  queueAgeAtWindowEndMs: number;
  /** seconds after the window until the backlog was 0, or the cap */
  drainS: number;
  drained: boolean;
  /** events still queued at the cap, then purged from the stream */
  backlogAtEnd: number;
  /** events never processed: purged before the consumer took them (the ones it held still finished) */
  unprocessed: number;
  /** the service's own gfts_stats_events_processed_total (processed + duplicate) over the phase; NaN if the metric is gone */
  serviceCounter: number;
  failedAttempts: number;
  /** event→completion, first completion per event, events processed within the phase */
  latency: LatencySummary;
  /** the same latency by the second of the phase the events were published in (absent in runs before 2026-11-27) */
  latencyBySecond?: SecondLatency[];
  /**
   * The tasks service's own gfts_stats_event_age_seconds over the phase, by stage (pulled,
   * batched, written, acknowledged): where an event's time went, bucketed (absent before 2026-11-27)
   */
  ageByStage?: StageAge[];
  completionsSeen: number;
  /** completions the model expects from the events the consumer processed */
  completionsExpected: number;
  usage: PhaseUsage;
  timeline: TimelinePoint[];
}

/** One event per gamer, each gamer's first since the service started, timed until acknowledged. */
export interface FirstPassResult {
  events: number;
  processed: number;
  seconds: number;
  eventsPerSecond: number;
}

export interface SustainedResult {
  events: number;
  /** seconds to publish them all */
  publishS: number;
  processed: number;
  /** seconds from the first publish to the last acknowledgement (or the cap) */
  processS: number;
  eventsPerSecond: number;
  drained: boolean;
  backlogAtEnd: number;
  unprocessed: number;
  serviceCounter: number;
  failedAttempts: number;
  /** gamer-task writes per processed event, from the model (each task an event moves, plus composite parents) */
  updatesPerEvent: number;
  completionsPerEvent: number;
  completionsSeen: number;
  completionsExpected: number;
  latency: LatencySummary;
  usage: PhaseUsage;
  timeline: TimelinePoint[];
}

export interface CeilingResult {
  collection: string;
  copiedDocs: number;
  indexes: string[];
  batch: number;
  batches: number;
  statements: number;
  matched: number;
  modified: number;
  seconds: number;
  statementsPerSecond: number;
  docsUpdatedPerSecond: number;
  batchLatency: LatencySummary;
  writeErrors: number;
  usage: PhaseUsage;
  /**
   * What bounds the figure: the same loop with one statement per command, with two commands
   * at once, and on minimal documents ({_id, progress}, no secondary index)
   */
  variants: { batch: number; concurrency: number; documents: 'copy' | 'minimal'; statementsPerSecond: number; batchLatency: LatencySummary; storeCpuPercent: number }[];
}

export interface SetupResult {
  app: string;
  method: 'direct' | 'http';
  /** documents written straight to the database (direct setup) */
  documents: number;
  catalogEntries: number;
  gamers: number;
  httpCalls: number;
  errors: number;
  ms: number;
  callsPerSecond: number;
  /** top-level gamer tasks the model holds per gamer, by kind */
  perGamer: { daily: number; weekly: number; achievements: number; gamerTasks: number };
  firstErrors: string[];
}

export interface PipelineReport {
  kind: 'tasks-pipeline';
  label: string;
  date: string;
  startedAt: string;
  finishedAt: string;
  command: string;
  /** the code the services ran (BENCH_STACK_ROOT's checkout when set) */
  git: { commit: string; branch: string; dirty: boolean };
  /** the bench's own code, when the services ran another checkout */
  benchGit?: { commit: string; branch: string; dirty: boolean };
  machine: { cpu: string; cores: number; memGb: number; node: string; kernel: string };
  /** machineSpeed: bench/src/machine-speed.ts's references at the start (absent in runs before 2026-11-27) */
  load: { start: number[]; end: number[]; uptimeStart: string; uptimeEnd: string; machineSpeed?: { cpuMs: number; loopbackUs: number } };
  stack: { engine: string; mongoImage: string; natsImage: string; db: string; settings: string[] };
  options: PipelineOptions;
  setup: SetupResult;
  ceiling?: CeilingResult;
  singles: LatencySummary;
  firstPass?: FirstPassResult;
  sustained?: SustainedResult;
  rates: RatePhase[];
  knee: string;
  checks: AimCheck[];
  notes: string[];
}

/** a/b with NaN for missing or zero b */
const div = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : Number.NaN);

/** A rate kept up when the consumer processed ≥ 95 % of what was accepted within the window and the queue was under a second old. */
export function keptUp(p: Pick<RatePhase, 'accepted' | 'processedInWindow' | 'queueAgeAtWindowEndMs'>): boolean {
  return p.accepted > 0 && p.processedInWindow >= 0.95 * p.accepted && !(p.queueAgeAtWindowEndMs > 1000);
}

/** Where throughput stops following the offered rate, in words, from the rate phases. */
export function describeKnee(phases: readonly Pick<RatePhase, 'offeredRate' | 'accepted' | 'processedInWindow' | 'processedRateInWindow' | 'queueAgeAtWindowEndMs' | 'latency'>[], sustainedRate: number): string {
  if (phases.length === 0) return 'no rate phases ran';
  const sorted = [...phases].sort((a, b) => a.offeredRate - b.offeredRate);
  const ok = sorted.filter((p) => keptUp(p));
  const notOk = sorted.filter((p) => !keptUp(p));
  const best = Math.max(...sorted.map((p) => p.processedRateInWindow).filter(Number.isFinite), 0);
  const sus = Number.isFinite(sustainedRate) ? `; the sustained run processed ${Math.round(sustainedRate)} events/s` : '';
  if (notOk.length === 0) return `the consumer kept up at every offered rate (up to ${sorted[sorted.length - 1]!.offeredRate} events/s): the knee is above it${sus}`;
  if (ok.length === 0)
    return `the consumer kept up with none of the offered rates (it processed at most ${Math.round(best)} events/s in a window): the knee is below ${sorted[0]!.offeredRate} events/s${sus}`;
  const lastOk = ok[ok.length - 1]!;
  const firstBad = notOk.find((p) => p.offeredRate > lastOk.offeredRate) ?? notOk[0]!;
  return `kept up at ${ok.map((p) => p.offeredRate).join(', ')} events/s, not at ${notOk.map((p) => p.offeredRate).join(', ')}: the knee lies between ${lastOk.offeredRate} and ${firstBad.offeredRate} events/s offered (at ${firstBad.offeredRate}/s it processed ${Math.round(firstBad.processedRateInWindow)} events/s and the queue was ${(firstBad.queueAgeAtWindowEndMs / 1000).toFixed(1)} s old at the end of the window)${sus}`;
}

/** The figures a reader needs to judge p99: events never processed within the cap make the p99 of all events at least the cap. */
export function p99OfAllEvents(p: Pick<RatePhase, 'accepted' | 'unprocessed' | 'latency'>, capMs: number): { value: number; lowerBound: boolean; detail: string } {
  const unprocessed = div(p.unprocessed, p.accepted);
  if (Number.isFinite(unprocessed) && unprocessed > 0.01) {
    return { value: Math.max(capMs, Number.isFinite(p.latency.p99) ? p.latency.p99 : 0), lowerBound: true, detail: `${p.unprocessed} of ${p.accepted} events (${(unprocessed * 100).toFixed(1)} %) were not processed within the ${capMs / 1000} s after the window: p99 ≥ ${capMs / 1000} s` };
  }
  // Fewer than 1 % never processed: the slowest are missing from the processed events' p99,
  // which is then lower than all events' (until 2026-11-29 it was taken as theirs). Counted
  // as the slowest, the p99 of all events is the processed ones' quantile at 0.99 / (1 − f):
  // at most their p99.9 while that is ≤ 0.999 (f ≤ 0.9 %), which is given, an upper bound
  // (an aim met on it is met); past that, at least the cap.
  if (p.unprocessed > 0) {
    const q = 0.99 / (1 - unprocessed);
    if (q <= 0.999 && Number.isFinite(p.latency.p999)) {
      return { value: p.latency.p999, lowerBound: false, detail: `${p.unprocessed} of ${p.accepted} events were not processed within the ${capMs / 1000} s after the window; counted as the slowest, the p99 of all events is at most the processed ones' p99.9 (${Math.round(p.latency.p999)} ms; their p99 ${Math.round(p.latency.p99)} ms), over ${p.latency.n} completing events` };
    }
    return { value: Math.max(capMs, Number.isFinite(p.latency.p99) ? p.latency.p99 : 0), lowerBound: true, detail: `${p.unprocessed} of ${p.accepted} events were not processed within the ${capMs / 1000} s after the window: the p99 of all events is past what the processed ones show` };
  }
  if (p.latency.n === 0) return { value: Number.NaN, lowerBound: false, detail: 'no completion observed' };
  return { value: p.latency.p99, lowerBound: false, detail: `${p.latency.n} completing events` };
}

/**
 * Where the consumer stood still with work queued: spans between timeline samples in which
 * nothing was acknowledged while the backlog was not empty, adjacent spans merged. The
 * longest such stall and their total, in seconds.
 */
export function stalls(timeline: readonly TimelinePoint[]): { longestS: number; totalS: number; count: number } {
  let longest = 0;
  let total = 0;
  let count = 0;
  let current = 0;
  for (let i = 1; i < timeline.length; i++) {
    const a = timeline[i - 1]!;
    const b = timeline[i]!;
    const still = a.backlog > 0 && b.backlog > 0 && b.processed - a.processed <= 0;
    if (still) {
      if (current === 0) count++;
      current += b.t - a.t;
      total += b.t - a.t;
      longest = Math.max(longest, current);
    } else current = 0;
  }
  return { longestS: longest, totalS: total, count };
}

/** An event's age at one stage of the consumer over a phase, from the service's histogram. */
export interface StageAge {
  stage: string;
  n: number;
  meanMs: number;
  /** estimates within the histogram's buckets (histogram_quantile) */
  p50Ms: number;
  p99Ms: number;
}

/** A phase's event age by stage, as one line. */
export function stagesLine(stages: readonly StageAge[]): string {
  const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(0) : '–');
  return `event age by stage (the service's gfts_stats_event_age_seconds; p50 and p99 estimated within its buckets): ${stages
    .map((s) => `${s.stage} mean ${ms(s.meanMs)}, p50 ~${ms(s.p50Ms)}, p99 ~${ms(s.p99Ms)} ms`)
    .join('; ')}.`;
}

/** The event→completion aim of issue #10 at 1,000 events/s offered. */
export const P99_AIM_MS = 100;

/**
 * A phase's latency by second of publication, as one line: the p99 of each second, and
 * whether the phase's tail is a few seconds of stall or spread over the phase (how many
 * seconds had an event over `aimMs`, and the worst).
 */
export function secondsLine(seconds: readonly SecondLatency[], aimMs: number): string {
  const over = seconds.filter((s) => s.max > aimMs);
  const worst = seconds.reduce((w, s) => (s.max > w.max ? s : w), seconds[0]!);
  const p99s = seconds.map((s) => Math.round(s.p99)).join(' ');
  // the median second: a phase's typical tail, which a few stalls do not move
  const median = percentileSorted(seconds.map((s) => s.p99).sort((a, b) => a - b), 50);
  const spread = over.length === 0
    ? `no second had an event over ${aimMs} ms`
    : `${over.length} of ${seconds.length} seconds had an event over ${aimMs} ms (the worst ${Math.round(worst.max)} ms, published in second ${worst.second})`;
  return `p99 ms by second of publication: ${p99s} (median ${Math.round(median)}); ${spread}.`;
}

/** The CPU of the timeline's interval that ends nearest the end of second `second` of the phase (within half a second). */
export function cpuOfSecond(timeline: readonly TimelinePoint[], second: number): IntervalCpu | undefined {
  let best: TimelinePoint | undefined;
  for (const pt of timeline) {
    if (pt.cpu === undefined || Math.abs(pt.t - (second + 1)) > 0.5) continue;
    if (!best || Math.abs(pt.t - (second + 1)) < Math.abs(best.t - (second + 1))) best = pt;
  }
  return best?.cpu;
}

/** Mean CPU over some seconds of a phase, percent of one core. */
export interface SecondsCpu {
  seconds: number;
  machinePercent: number;
  otherPercent: number;
  processes: Record<string, number>;
}

/**
 * The CPU of the seconds whose events waited over `aimMs` against that of the other
 * seconds: were the slow seconds the machine's other work, one of the stack's processes,
 * or neither? Second s of publication is matched with the timeline's interval that ends
 * nearest s + 1 (the timeline samples about once a second from the phase's start).
 * Undefined without both kinds of second.
 */
export function cpuOfSlowSeconds(seconds: readonly SecondLatency[], timeline: readonly TimelinePoint[], aimMs: number): { slow: SecondsCpu; rest: SecondsCpu } | undefined {
  const mean = (cpus: IntervalCpu[]): SecondsCpu => {
    const avg = (f: (c: IntervalCpu) => number) => cpus.reduce((sum, c) => sum + f(c), 0) / cpus.length;
    const names = [...new Set(cpus.flatMap((c) => Object.keys(c.processes)))];
    return {
      seconds: cpus.length,
      machinePercent: avg((c) => c.machinePercent),
      otherPercent: avg((c) => c.otherPercent),
      processes: Object.fromEntries(names.map((n) => [n, avg((c) => c.processes[n] ?? 0)])),
    };
  };
  const slow: IntervalCpu[] = [];
  const rest: IntervalCpu[] = [];
  for (const s of seconds) {
    const cpu = cpuOfSecond(timeline, s.second);
    if (cpu) (s.max > aimMs ? slow : rest).push(cpu);
  }
  return slow.length > 0 && rest.length > 0 ? { slow: mean(slow), rest: mean(rest) } : undefined;
}

/** The comparison of cpuOfSlowSeconds as one line, with each second's "other" CPU for reading beside the p99s. */
export function slowSecondsCpuLine(seconds: readonly SecondLatency[], timeline: readonly TimelinePoint[], aimMs: number, processes: readonly string[]): string | undefined {
  const cmp = cpuOfSlowSeconds(seconds, timeline, aimMs);
  if (!cmp) return undefined;
  const pct = (v: number | undefined) => (v !== undefined && Number.isFinite(v) ? v.toFixed(0) : '–');
  const pair = (name: string, f: (c: SecondsCpu) => number | undefined) => `${name} ${pct(f(cmp.slow))} vs ${pct(f(cmp.rest))}`;
  const others = seconds.map((s) => pct(cpuOfSecond(timeline, s.second)?.otherPercent));
  return `CPU % of one core in the ${cmp.slow.seconds} seconds with an event over ${aimMs} ms vs the other ${cmp.rest.seconds}: ${[
    pair('machine', (c) => c.machinePercent),
    pair('other', (c) => c.otherPercent),
    ...processes.map((n) => pair(n, (c) => c.processes[n])),
  ].join(', ')}; other CPU by second of publication: ${others.join(' ')}.`;
}

export { div as ratioOf };

/**
 * The store ceiling the consumer is compared with: the best full-document figure of the run,
 * one command at a time or two at once (the consumer writes from CONSUMER_LANES lanes, 2 by
 * default, so two at once is its own shape; until 2026-11-29 the one-at-a-time figure alone,
 * which flattered the ratio by up to a fifth). Minimal documents are not the consumer's.
 */
export function ceilingForRatio(c: Pick<CeilingResult, 'batch' | 'statementsPerSecond' | 'variants'> | undefined): { statementsPerSecond: number; what: string } {
  if (!c) return { statementsPerSecond: Number.NaN, what: 'no ceiling' };
  let best = { statementsPerSecond: c.statementsPerSecond, what: `${c.batch} statements per bulkWrite, 1 at a time` };
  for (const v of c.variants ?? []) {
    if (v.documents !== 'copy' || !(v.statementsPerSecond > best.statementsPerSecond)) continue;
    best = { statementsPerSecond: v.statementsPerSecond, what: `${v.batch} statement${v.batch > 1 ? 's' : ''} per bulkWrite, ${v.concurrency} at a time` };
  }
  return best;
}
