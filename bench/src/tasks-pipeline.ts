/**
 * The tasks pipeline under load (issue #10 item 6), run by `bench/run.sh --tasks-only`:
 *  - setup: a catalog through the admin API, then per gamer 3 daily tasks, 1 weekly
 *    composite and the 2 tracked achievements, either written straight to the database as
 *    documents the bench builds from the catalog API's answer (`--setup direct`, the default;
 *    datagen/tasks-direct.ts, checked through the gateway) or through the public API (`--setup
 *    http`: assigns and a read of the achievements, which starts tracking them);
 *  - the store's ceiling: a bare driver loop of bulkWrite($inc by _id) on a copy of the
 *    gamer tasks, same store, same indexes;
 *  - a few single events on an idle consumer;
 *  - a first pass: one event per gamer, each gamer's first since the service started (what
 *    the service caches per gamer is read here), timed like the sustained run;
 *  - the sustained rate: N events published at once, timed until the consumer acknowledged
 *    them all;
 *  - open-loop rates (1,000 / 2,000 / 5,000 events/s by default) for a fixed window each:
 *    throughput, backlog, queue age and event→completion latency per rate.
 * Events are published straight to JetStream (`<prefix>.stats.<applicationId>`, msgID =
 * eventId); completions come from `<prefix>.task.completed`, matched by eventId.
 */
import { execFileSync } from 'node:child_process';
import { natsNames, type ApplicationTask, type TaskCompletedEvent } from '@gfts/contracts';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { MongoClient, type AnyBulkWriteOperation, type Document } from 'mongodb';
import { gameStats, MixModel, mixCatalog, seededRandom, type CatalogTaskView, type EventEffect, type Stat } from './datagen/tasks-mix.ts';
import { seededUuid } from './datagen/ids.ts';
import { writeGamerTasks } from './datagen/tasks-direct.ts';
import type { PhaseUsage, PipelineOptions, RatePhase, SetupResult, StageAge, SustainedResult, FirstPassResult, CeilingResult, TimelinePoint } from './pipeline-report.ts';
import { CpuIntervals, MachineCpu, UsageSampler, loadAverage } from './procstat.ts';
import type { Progress } from './progress.ts';
import { call, type Credentials, type Gamer, type StackState } from './stack.ts';
import { histogramByLabel, histogramDelta, histogramQuantile, latencyBySecond, summarize, type HistogramSeries, type LatencySummary } from './stats.ts';

export interface PipelineCtx {
  state: StackState;
  creds: Credentials;
  pids: Map<string, number>;
  progress: Progress;
  /** the tasks collection copied for the ceiling (gamer_tasks, or gamer_progress: the documents the consumer writes) */
  gamerTasksCollection: string;
}

export function pipelineOptions(mode: 'quick' | 'full', overrides: Partial<PipelineOptions> = {}): PipelineOptions {
  const full = mode === 'full';
  return {
    mode,
    gamers: full ? 10_000 : 2_000,
    rates: [1000, 2000, 5000],
    phaseS: full ? 20 : 8,
    drainCapS: full ? 30 : 15,
    sustainedEvents: full ? 60_000 : 15_000,
    sustainedCapS: full ? 150 : 60,
    singles: 5,
    ceilingS: full ? 15 : 5,
    ceilingBatch: 256,
    ceilingDocs: full ? 20_000 : 5_000,
    setup: 'direct',
    setupConcurrency: 16,
    maxInflight: 1024,
    seed: 20261123,
    ...overrides,
  };
}

/** the ceiling's small-command variant (see storeCeiling) */
const SMALL_CEILING_BATCH = 32;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const text = new TextDecoder();

interface Sent {
  phase: string;
  at: number;
  completed: boolean;
}

interface PlannedEvent {
  gamer: number;
  stats: Stat[];
}

export interface PipelineResult {
  setup: SetupResult;
  ceiling?: CeilingResult;
  singles: LatencySummary;
  /** one event per gamer, each gamer's first since the service started (caches cold), before the sustained run */
  firstPass?: FirstPassResult;
  sustained?: SustainedResult;
  rates: RatePhase[];
  notes: string[];
}


export async function runPipeline(ctx: PipelineCtx, o: PipelineOptions): Promise<PipelineResult> {
  const { state, creds, progress } = ctx;
  const gw = state.services.gateway.url;
  const names = natsNames(process.env.NATS_PREFIX ?? 'gfts');
  const notes: string[] = [];
  const gamer = (i: number): Gamer => ({ id: seededUuid(`pipeline-${o.mode}-gamer`, i), name: `Pipeline${i}`, avatar: '' });
  const random = seededRandom(o.seed);

  // ---- the application: a fresh one (a rerun against a running stack must not find old state)
  progress.begin('tasks: setup');
  const adminOf = (app: string) => ({ authorization: creds.bearerFor(app, { id: seededUuid('bench-admin', 0), name: 'Bench Admin', avatar: '' }, ['admin' as never]) });
  let app = '';
  for (let k = 0; k < 1000 && !app; k++) {
    const candidate = seededUuid(`bench-pipeline-${o.mode}`, k);
    const r = await call('GET', `${gw}/api/v1/${candidate}/tasks`, adminOf(candidate));
    if (r.status !== 200) throw new Error(`tasks API not answering: GET catalog → ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
    if (Array.isArray(r.body) && r.body.length === 0) app = candidate;
  }
  if (!app) throw new Error('no fresh application id found');
  const admin = adminOf(app);
  for (const input of mixCatalog((i) => seededUuid('pipeline-item', i))) {
    const r = await call('POST', `${gw}/api/v1/${app}/tasks`, admin, input);
    if (r.status !== 201) throw new Error(`catalog create failed: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  }
  // the top-level entries, as the catalog API lists them (tasks, then achievements)
  const entries: ApplicationTask[] = [];
  for (const q of ['', '?isAchievement=true']) {
    const r = await call('GET', `${gw}/api/v1/${app}/tasks${q}`, admin);
    if (r.status !== 200 || !Array.isArray(r.body)) throw new Error(`catalog read failed: ${r.status}`);
    for (const e of r.body as ApplicationTask[]) if (e.parentTaskId === null && !entries.some((v) => v.id === e.id)) entries.push(e);
  }
  const views: CatalogTaskView[] = entries;
  const model = new MixModel(views);
  const achievements = views.filter((v) => v.isAchievement);
  progress.log(`tasks: application ${app}, catalog of ${views.length} entries (${achievements.length} achievements)`);

  // ---- gamers: 3 daily tasks, 1 weekly composite, 2 tracked achievements each
  const t0 = performance.now();
  let calls = 0;
  let errors = 0;
  let docs = 0;
  const firstErrors: string[] = [];
  const failed = (what: string, r: { status: number; body: unknown }) => {
    errors++;
    if (firstErrors.length < 5) firstErrors.push(`${what}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
  };
  if (o.setup === 'http') {
    // through the gateway with gamer tokens: assign daily × 3, weekly × 1, read achievements (tracks them)
    let nextGamer = 0;
    const worker = async () => {
      while (nextGamer < o.gamers) {
        const g = nextGamer++;
        const who = gamer(g);
        const h = { authorization: creds.bearerFor(app, who) };
        for (const [family, numberOfTasks] of [['daily', 3], ['weekly', 1]] as const) {
          const r = await call('POST', `${gw}/api/v1/tasks/assign`, h, { family, numberOfTasks }, 60_000);
          calls++;
          if (r.status !== 200 || !Array.isArray(r.body)) failed(`assign ${family}`, r);
          else for (const t of r.body as { task: { id: string } }[]) model.assign(who.id, t.task.id);
        }
        const r = await call('GET', `${gw}/api/v1/achievements`, h, undefined, 60_000);
        calls++;
        if (r.status !== 200 || !Array.isArray(r.body)) failed('achievements', r);
        else for (const t of r.body as { task: { id: string } }[]) model.assign(who.id, t.task.id);
        if (g % 50 === 0) progress.report(g / o.gamers, `gamers ${g}/${o.gamers}, ${calls} calls (${(calls / ((performance.now() - t0) / 1000)).toFixed(0)}/s), ${errors} errors`);
      }
    };
    await Promise.all(Array.from({ length: o.setupConcurrency }, worker));
  } else {
    const mongo = new MongoClient(state.services.tasks.mongoUrl);
    await mongo.connect();
    try {
      const written = await writeGamerTasks(mongo.db(), {
        collection: 'gamer_tasks',
        applicationId: app,
        catalog: entries,
        gamerIds: Array.from({ length: o.gamers }, (_, g) => gamer(g).id),
        seed: o.seed,
        onProgress: (done, n) => progress.report(done / o.gamers, `gamers ${done}/${o.gamers}, ${n} documents`),
      });
      docs = written.docs;
      for (const a of written.assignments) for (const id of a.taskIds) model.assign(a.gamerId, id);
    } finally {
      await mongo.close();
    }
    // the service must see them as the model does: a few gamers' lists through the gateway
    for (let g = 0; g < Math.min(3, o.gamers); g++) {
      const who = gamer(g);
      const h = { authorization: creds.bearerFor(app, who) };
      const seen: string[] = [];
      for (const path of ['tasks', 'achievements']) {
        const r = await call('GET', `${gw}/api/v1/${path}`, h, undefined, 60_000);
        calls++;
        if (r.status !== 200 || !Array.isArray(r.body)) failed(`GET ${path}`, r);
        else for (const t of r.body as { task: { id: string }; childTasks: unknown[] }[]) seen.push(t.task.id);
      }
      const want = model.held(who.id).sort().join(',');
      if (seen.sort().join(',') !== want) throw new Error(`gamer ${g}: the service lists tasks ${seen.join(',')} but the bench wrote ${want}: the direct setup no longer matches the service (see bench/src/datagen/tasks-direct.ts)`);
    }
  }
  const setupMs = performance.now() - t0;
  const held = model.held(gamer(0).id).map((id) => views.find((v) => v.id === id)!);
  const setup: SetupResult = {
    app,
    method: o.setup,
    catalogEntries: views.length,
    gamers: o.gamers,
    httpCalls: calls,
    documents: docs,
    errors,
    ms: setupMs,
    callsPerSecond: calls / (setupMs / 1000),
    perGamer: {
      daily: held.filter((v) => !v.isAchievement && v.children.length === 0).length,
      weekly: held.filter((v) => v.children.length > 0).length,
      achievements: held.filter((v) => v.isAchievement).length,
      gamerTasks: held.reduce((s, v) => s + 1 + v.children.length, 0),
    },
    firstErrors,
  };
  progress.log(`tasks: ${o.gamers} gamers set up (${o.setup}) in ${(setupMs / 1000).toFixed(0)} s: ${calls} HTTP calls, ${docs} documents written directly, ${errors} errors; gamer 0 holds ${JSON.stringify(setup.perGamer)}`);
  if (errors > 0) notes.push(`setup: ${errors} of ${calls} HTTP calls failed (first: ${firstErrors.join('; ')})`);
  progress.end();

  // ---- NATS: completions by eventId
  // noAsyncTraces: nats.js otherwise builds two Error objects (stack traces) per publish, half the loop's CPU
  const nc = await connect({ servers: state.natsUrl, name: 'bench-pipeline', noAsyncTraces: true });
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const sent = new Map<string, Sent>();
  const latencies = new Map<string, number[]>();
  /** the same samples with their event's publication time, for the rates' per-second view */
  const timedLatencies = new Map<string, Array<{ at: number; ms: number }>>();
  const completionCount = new Map<string, number>();
  const sub = nc.subscribe(names.taskCompleted, {
    callback: (_e, msg) => {
      const now = performance.now();
      let ev: TaskCompletedEvent;
      try {
        ev = JSON.parse(text.decode(msg.data)) as TaskCompletedEvent;
      } catch {
        return;
      }
      if (ev.applicationId !== app) return;
      const s = sent.get(ev.eventId);
      if (!s) return;
      completionCount.set(s.phase, (completionCount.get(s.phase) ?? 0) + 1);
      if (s.completed) return;
      s.completed = true;
      const list = latencies.get(s.phase) ?? [];
      list.push(now - s.at);
      latencies.set(s.phase, list);
      const timed = timedLatencies.get(s.phase) ?? [];
      timed.push({ at: s.at, ms: now - s.at });
      timedLatencies.set(s.phase, timed);
    },
  });
  const subject = names.statsSubject(app);
  const gamerIds = Array.from({ length: o.gamers }, (_, g) => gamer(g).id);
  /** events JetStream acknowledged, all phases: a timeline point's processed = accepted in the phase − backlog */
  let acceptedTotal = 0;
  const plan = (n: number): PlannedEvent[] => Array.from({ length: n }, () => ({ gamer: Math.floor(random() * o.gamers), stats: gameStats(random) }));

  const backlog = async (): Promise<{ pending: number; ackPending: number; total: number }> => {
    const info = await jsm.consumers.info(names.statsStream, names.statsConsumer);
    return { pending: info.num_pending, ackPending: info.num_ack_pending, total: info.num_pending + info.num_ack_pending };
  };
  /**
   * The service's counter of handled events: processed and duplicate ones. `failed` ones are
   * counted apart, and `stale` ones (newer code: handed back to be applied again on newer
   * state, so they count again when they are) are left out.
   */
  const counter = async (): Promise<{ handled: number; failed: number; stale: number }> => {
    const r = await fetch(`${state.services.tasks.url}/metrics`, { signal: AbortSignal.timeout(10_000) }).then((x) => x.text()).catch(() => '');
    let handled = Number.NaN;
    let failedN = 0;
    let staleN = 0;
    for (const m of r.matchAll(/^gfts_stats_events_processed_total\{[^}]*outcome="([a-z]+)"[^}]*\} (\d+(?:\.\d+)?(?:e\+\d+)?)/gm)) {
      if (m[1] === 'failed') failedN += Number(m[2]);
      else if (m[1] === 'stale') staleN += Number(m[2]);
      else handled = (Number.isNaN(handled) ? 0 : handled) + Number(m[2]);
    }
    return { handled, failed: failedN, stale: staleN };
  };
  /** The service's event-age histogram by stage (empty when the service has none: older code). */
  const ageScrape = async (): Promise<Map<string, HistogramSeries>> => {
    const r = await fetch(`${state.services.tasks.url}/metrics`, { signal: AbortSignal.timeout(10_000) }).then((x) => x.text()).catch(() => '');
    return histogramByLabel(r, 'gfts_stats_event_age_seconds', 'stage');
  };
  const agesBetween = (before: Map<string, HistogramSeries>, after: Map<string, HistogramSeries>): StageAge[] =>
    ['pulled', 'batched', 'written', 'acknowledged'].flatMap((stage) => {
      const end = after.get(stage);
      if (!end) return [];
      const d = histogramDelta(end, before.get(stage));
      return [{ stage, n: d.count, meanMs: d.count > 0 ? (d.sum / d.count) * 1000 : Number.NaN, p50Ms: histogramQuantile(d, 0.5) * 1000, p99Ms: histogramQuantile(d, 0.99) * 1000 }];
    });
  /**
   * Waits until the consumer holds none of the bench's events: nothing in the stream and the
   * service's counter still for 3 s (a slow consumer finishes its in-hand events in bursts).
   * With `purge`, what is left is purged first (the events the consumer already holds still
   * finish); without, what is still there after the cap is purged.
   */
  const quiesce = async (capMs: number, purge: boolean): Promise<number> => {
    let b = await backlog();
    let purged = 0;
    if (purge && b.total > 0) {
      purged = b.total;
      await jsm.streams.purge(names.statsStream, { filter: subject });
    }
    const t = performance.now();
    let stableSince = performance.now();
    let last = (await counter()).handled;
    while (performance.now() - t < capMs) {
      b = await backlog();
      const now = (await counter()).handled;
      if (!Object.is(now, last)) {
        last = now;
        stableSince = performance.now();
      }
      if (b.total === 0 && performance.now() - stableSince >= 3000) return purged;
      await sleep(250);
    }
    if (b.total > 0) {
      progress.log(`tasks: ${b.total} events still queued after ${capMs / 1000} s of waiting: purged`);
      await jsm.streams.purge(names.statsStream, { filter: subject });
      purged += b.total;
    }
    return purged;
  };
  const usageOf = (sampler: UsageSampler, machine: MachineCpu, loadStart: number[]): PhaseUsage => {
    const processes = sampler.stop();
    const machinePercent = machine.stop();
    const ours = Object.values(processes).reduce((s, u) => s + (Number.isFinite(u.cpuPercent) ? u.cpuPercent : 0), 0);
    return { processes, machinePercent, otherPercent: Math.max(0, machinePercent - ours), load: { start: loadStart, end: loadAverage() } };
  };
  const samplers = () => {
    const sampler = new UsageSampler(ctx.pids);
    sampler.start();
    return { sampler, machine: new MachineCpu(), load: loadAverage() };
  };
  /** the model applies the first `processed` events of a phase (the stream delivers in publish order) */
  const applyModel = (events: PlannedEvent[], processed: number): EventEffect & { events: number } => {
    let updates = 0;
    let completions = 0;
    const n = Math.min(events.length, Math.max(0, processed));
    for (let i = 0; i < n; i++) {
      const e = events[i]!;
      const effect = model.apply(gamerIds[e.gamer]!, e.stats);
      updates += effect.updates;
      completions += effect.completions;
    }
    return { updates, completions, events: n };
  };

  /**
   * Publishes events open-loop at `rate` per second (Infinity: as fast as the in-flight bound
   * allows), stamping each eventId's send time for the completion match.
   */
  async function publish(phase: string, events: PlannedEvent[], rate: number, offset: number, onTick?: (published: number) => void): Promise<{ accepted: number; errors: number; sendS: number; sendTimes: Float64Array; maxSendLagMs: number }> {
    // the loop must reach 5,000/s on a busy 2-core machine: bodies are put together from
    // precomputed parts (gamer ids, stats JSON), in-flight publishes are a counter
    const statsJson = events.map((e) => JSON.stringify(e.stats));
    const start = performance.now();
    const sendTimes = new Float64Array(events.length);
    let inflight = 0;
    let wake: (() => void) | undefined;
    const settle = () => {
      inflight--;
      const w = wake;
      wake = undefined;
      w?.();
    };
    let accepted = 0;
    let errs = 0;
    let maxLag = 0;
    let i = 0;
    while (i < events.length) {
      const due = Number.isFinite(rate) ? Math.min(events.length, Math.floor(((performance.now() - start) / 1000) * rate) + 1) : events.length;
      if (i >= due) {
        await sleep(Math.max(1, (i / rate) * 1000 - (performance.now() - start)));
        continue;
      }
      const burstEnd = Math.min(due, i + 256);
      const occurredAt = new Date().toISOString();
      while (i < burstEnd) {
        while (inflight >= o.maxInflight) await new Promise<void>((resolve) => (wake = resolve));
        const eventId = crypto.randomUUID();
        const body = `{"eventId":"${eventId}","applicationId":"${app}","gamerId":"${gamerIds[events[i]!.gamer]}","gameId":"game-${offset + i}","occurredAt":"${occurredAt}","stats":${statsJson[i]}}`;
        const sentAt = performance.now();
        // latency counts from the event's slot in the schedule, not its send: a publisher that
        // fell behind (a busy machine, the in-flight bound) must not take its lag out of the
        // figure (coordinated omission; until 2026-11-29 it counted from the send)
        const slot = Number.isFinite(rate) ? start + (i / rate) * 1000 : sentAt;
        const at = Math.min(slot, sentAt);
        maxLag = Math.max(maxLag, sentAt - at);
        // the queue age at the end of a window counts from the slot as well
        sendTimes[i] = at;
        sent.set(eventId, { phase, at, completed: false });
        inflight++;
        js.publish(subject, body, { msgID: eventId, timeout: 30_000 })
          .then(
            () => {
              accepted++;
              acceptedTotal++;
            },
            () => {
              errs++;
            },
          )
          .finally(settle);
        i++;
      }
      onTick?.(i);
      await new Promise((resolve) => setImmediate(resolve));
    }
    while (inflight > 0) await new Promise<void>((resolve) => (wake = resolve));
    return { accepted, errors: errs, sendS: (performance.now() - start) / 1000, sendTimes, maxSendLagMs: maxLag };
  }

  // ---- single events on an idle consumer
  progress.begin('tasks: single events');
  await quiesce(30_000, false);
  const single: number[] = [];
  for (let k = 0; k < o.singles; k++) {
    const g = k;
    const finisher = model.finisher(gamer(g).id);
    if (!finisher) continue;
    // one (big) game that reaches the target of one of the gamer's daily tasks
    const e: PlannedEvent = { gamer: g, stats: [{ applicationStatsId: 'games_played', value: 1 }, finisher] };
    const phase = `single-${k}`;
    await publish(phase, [e], Number.POSITIVE_INFINITY, 0);
    const t = performance.now();
    while (!latencies.get(phase)?.length && performance.now() - t < 30_000) await sleep(5);
    const l = latencies.get(phase)?.[0];
    if (l !== undefined) single.push(l);
    applyModel([e], 1);
    progress.report((k + 1) / o.singles, `single event ${k + 1}: ${l !== undefined ? `${l.toFixed(0)} ms` : 'no completion in 30 s'}`, true);
  }
  const singles = summarize(single);
  progress.end();

  // ---- sustained: everything at once, timed until acknowledged
  /** The backlog once a second, from tStart until stop(): a phase's per-second timeline. */
  const recordTimeline = (tStart: number, accepted0: number) => {
    let stopped = false;
    const watch = {
      points: [] as TimelinePoint[],
      /** events published so far in the phase, written by the publisher */
      published: 0,
      stop: async () => {
        stopped = true;
        await sampling;
      },
    };
    const cpu = new CpuIntervals(ctx.pids);
    const sampling = (async () => {
      while (!stopped) {
        const b = await backlog().catch(() => undefined);
        const interval = cpu.next();
        if (b) watch.points.push({ t: (performance.now() - tStart) / 1000, published: watch.published, backlog: b.total, processed: acceptedTotal - accepted0 - b.total, ...(interval ? { cpu: interval } : {}) });
        await sleep(1000);
      }
    })();
    return watch;
  };

  /** The backlog once it is empty, or at the sustained cap counted from `tStart`, with progress. */
  const drained = async (tStart: number, accepted: number) => {
    let b = await backlog();
    while (b.total > 0 && performance.now() - tStart < o.sustainedCapS * 1000) {
      await sleep(250);
      b = await backlog();
      progress.report(1 - b.total / Math.max(1, accepted), `backlog ${b.total}`);
    }
    return b;
  };

  // ---- first pass: one event per gamer, timed as the sustained run is. It is each gamer's
  // first event since the service started, so what the service caches per gamer (the
  // progress documents' task definitions) is read here: the sustained run measures the
  // state a running service is in, and this figure says what a cold start costs.
  progress.begin('tasks: first pass');
  await quiesce(30_000, false);
  let firstPass: FirstPassResult | undefined;
  {
    const passPlan: PlannedEvent[] = Array.from({ length: o.gamers }, (_, g) => ({ gamer: g, stats: gameStats(random) }));
    const tStart = performance.now();
    const pub = await publish('first-pass', passPlan, Number.POSITIVE_INFINITY, 0);
    const b = await drained(tStart, pub.accepted);
    const seconds = (performance.now() - tStart) / 1000;
    const processed = pub.accepted - b.total;
    if (b.total > 0) await quiesce(30_000, true);
    applyModel(passPlan, processed);
    firstPass = { events: pub.accepted, processed, seconds, eventsPerSecond: processed / seconds };
    progress.log(`tasks: first pass: ${processed}/${pub.accepted} processed in ${seconds.toFixed(1)} s = ${firstPass.eventsPerSecond.toFixed(0)} events/s`);
  }
  progress.end();

  progress.begin('tasks: sustained');
  await quiesce(30_000, false);
  const sustainedPlan = plan(o.sustainedEvents);
  let sustained: SustainedResult | undefined;
  {
    const u = samplers();
    const c0 = await counter();
    const tStart = performance.now();
    const accepted0 = acceptedTotal;
    const watch = recordTimeline(tStart, accepted0);
    const timeline = watch.points;
    const pub = await publish('sustained', sustainedPlan, Number.POSITIVE_INFINITY, 0, (n) => {
      watch.published = n;
    });
    watch.published = sustainedPlan.length;
    progress.log(`tasks: sustained: ${pub.accepted} events published in ${pub.sendS.toFixed(1)} s (${pub.errors} errors)`);
    const b = await drained(tStart, pub.accepted);
    const processS = (performance.now() - tStart) / 1000;
    await watch.stop();
    const usage = usageOf(u.sampler, u.machine, u.load);
    const processed = pub.accepted - b.total;
    // what is left is purged; events the consumer already held still finish
    if (b.total > 0) await quiesce(30_000, true);
    await sleep(500); // the last completions
    const c1 = await counter();
    if (c1.stale > c0.stale) notes.push(`sustained: ${c1.stale - c0.stale} attempts found the gamer's tasks moved meanwhile (outcome "stale") and were redelivered`);
    const handled = finalProcessed(pub.accepted, processed, c1.handled - c0.handled);
    const effect = applyModel(sustainedPlan, handled);
    sustained = {
      events: pub.accepted,
      publishS: pub.sendS,
      processed,
      processS,
      eventsPerSecond: processed / processS,
      drained: b.total === 0,
      backlogAtEnd: b.total,
      unprocessed: pub.accepted - handled,
      serviceCounter: c1.handled - c0.handled,
      failedAttempts: c1.failed - c0.failed,
      updatesPerEvent: effect.updates / Math.max(1, effect.events),
      completionsPerEvent: effect.completions / Math.max(1, effect.events),
      completionsSeen: completionCount.get('sustained') ?? 0,
      completionsExpected: effect.completions,
      latency: summarize(latencies.get('sustained') ?? []),
      usage,
      timeline,
    };
    progress.log(`tasks: sustained: ${processed}/${pub.accepted} processed in ${processS.toFixed(1)} s = ${sustained.eventsPerSecond.toFixed(1)} events/s; ${sustained.updatesPerEvent.toFixed(2)} gamer tasks moved per event (model); tasks ${usage.processes.tasks?.cpuPercent.toFixed(0)} % CPU, tasks-db ${usage.processes['tasks-db']?.cpuPercent.toFixed(0)} %`);
  }
  progress.end();

  // ---- the store's ceiling: bare bulkWrite of $inc by _id, same store, a copy of the documents
  // the consumer writes, taken after the sustained run: as they are under load (their applied
  // event ids among them), not as the setup wrote them (until 2026-11-29 it ran first)
  progress.begin('tasks: ceiling');
  const ceiling = await storeCeiling(ctx, o, app, samplers, usageOf).catch((error: unknown) => {
    notes.push(`the store ceiling failed: ${(error as Error).message}`);
    progress.log(`tasks: ceiling failed: ${String((error as Error).stack ?? error)}`);
    return undefined;
  });
  if (ceiling) progress.log(`tasks: store ceiling ${ceiling.statementsPerSecond.toFixed(0)} statements/s (${ceiling.docsUpdatedPerSecond.toFixed(0)} documents updated/s), batch ${ceiling.batch}, ${ceiling.batches} batches`);
  progress.end();

  // ---- open-loop rates
  progress.begin('tasks: rates');
  const rates: RatePhase[] = [];
  for (const [k, rate] of o.rates.entries()) {
    await quiesce(30_000, false);
    const phase = `rate-${rate}`;
    const events = plan(Math.round(rate * o.phaseS));
    const u = samplers();
    const c0 = await counter();
    const ages0 = await ageScrape();
    const tStart = performance.now();
    const accepted0 = acceptedTotal;
    const watch = recordTimeline(tStart, accepted0);
    const timeline = watch.points;
    const pub = await publish(phase, events, rate, 0, (n) => {
      watch.published = n;
      progress.report((k + Math.min(1, n / events.length) * 0.5) / o.rates.length, `${rate}/s: published ${n}/${events.length}`);
    });
    watch.published = events.length;
    const bEnd = await backlog();
    const windowEnd = performance.now();
    const processedInWindow = pub.accepted - bEnd.total;
    const oldest = bEnd.total > 0 ? pub.sendTimes[Math.min(events.length - 1, Math.max(0, processedInWindow))]! : Number.NaN;
    const queueAge = bEnd.total > 0 ? windowEnd - oldest : 0;
    let b = bEnd;
    while (b.total > 0 && performance.now() - windowEnd < o.drainCapS * 1000) {
      await sleep(250);
      b = await backlog();
      progress.report((k + 0.5 + 0.5 * (1 - b.total / Math.max(1, bEnd.total))) / o.rates.length, `${rate}/s: draining, backlog ${b.total}`);
    }
    const drainS = (performance.now() - windowEnd) / 1000;
    await watch.stop();
    const usage = usageOf(u.sampler, u.machine, u.load);
    if (b.total > 0) await quiesce(30_000, true);
    await sleep(500);
    const c1 = await counter();
    const ageByStage = agesBetween(ages0, await ageScrape());
    if (c1.stale > c0.stale) notes.push(`${rate}/s: ${c1.stale - c0.stale} attempts found the gamer's tasks moved meanwhile (outcome "stale") and were redelivered`);
    const handled = finalProcessed(pub.accepted, pub.accepted - b.total, c1.handled - c0.handled);
    const effect = applyModel(events, handled);
    const p: RatePhase = {
      offeredRate: rate,
      durationS: o.phaseS,
      offered: events.length,
      accepted: pub.accepted,
      publishErrors: pub.errors,
      sendS: pub.sendS,
      acceptedRate: pub.accepted / pub.sendS,
      maxSendLagMs: pub.maxSendLagMs,
      processedInWindow,
      processedRateInWindow: processedInWindow / pub.sendS,
      backlogAtWindowEnd: bEnd.total,
      queueAgeAtWindowEndMs: queueAge,
      drainS,
      drained: b.total === 0,
      backlogAtEnd: b.total,
      unprocessed: pub.accepted - handled,
      serviceCounter: c1.handled - c0.handled,
      failedAttempts: c1.failed - c0.failed,
      latency: summarize(latencies.get(phase) ?? []),
      latencyBySecond: latencyBySecond(timedLatencies.get(phase) ?? [], tStart),
      ageByStage,
      completionsSeen: completionCount.get(phase) ?? 0,
      completionsExpected: effect.completions,
      usage,
      timeline,
    };
    rates.push(p);
    progress.log(
      `tasks: ${rate}/s: accepted ${p.accepted} in ${p.sendS.toFixed(1)} s; processed ${p.processedInWindow} in the window (${p.processedRateInWindow.toFixed(0)}/s), backlog ${p.backlogAtWindowEnd} (queue ${(queueAge / 1000).toFixed(1)} s old), ${p.drained ? `drained in ${drainS.toFixed(1)} s` : `${p.backlogAtEnd} left after ${o.drainCapS} s (purged)`}; event→completion p50 ${p.latency.p50.toFixed(0)} ms, p99 ${p.latency.p99.toFixed(0)} ms (n=${p.latency.n})`,
    );
  }
  progress.end();

  sub.unsubscribe();
  await nc.drain();
  return { setup, ...(ceiling ? { ceiling } : {}), singles, ...(firstPass ? { firstPass } : {}), ...(sustained ? { sustained } : {}), rates, notes };
}

/**
 * Events the consumer ended up processing: the service's counter when it has one (it also
 * counts events in hand when the rest was purged), else what the stream saw acknowledged.
 */
function finalProcessed(accepted: number, acknowledged: number, counter: number): number {
  return Number.isFinite(counter) && counter >= acknowledged ? Math.min(accepted, counter) : acknowledged;
}

/**
 * The store's raw bulk-update rate: a copy of the application's gamer tasks (documents and
 * indexes as the service wrote them) in the same database, then one bulkWrite at a time of
 * `batch` updateOne({_id}, {$inc: {progress: 1}}) on random documents, for `ceilingS`.
 */
async function storeCeiling(
  ctx: PipelineCtx,
  o: PipelineOptions,
  app: string,
  samplers: () => { sampler: UsageSampler; machine: MachineCpu; load: number[] },
  usageOf: (s: UsageSampler, m: MachineCpu, l: number[]) => PhaseUsage,
): Promise<CeilingResult> {
  const mongo = new MongoClient(ctx.state.services.tasks.mongoUrl);
  await mongo.connect();
  try {
    const db = mongo.db();
    const source = db.collection(ctx.gamerTasksCollection);
    const name = `bench_ceiling_${ctx.gamerTasksCollection}`;
    await db.collection(name).drop().catch(() => undefined);
    const copy = db.collection<Document>(name);
    const indexes: string[] = [];
    for (const ix of await source.listIndexes().toArray()) {
      if (ix.name === '_id_') continue;
      await copy.createIndex(ix.key as Document, { name: ix.name as string, ...(ix.unique ? { unique: true } : {}), ...(ix.partialFilterExpression ? { partialFilterExpression: ix.partialFilterExpression as Document } : {}) });
      indexes.push(`${ix.name as string}${ix.unique ? ' (unique)' : ''}`);
    }
    const ids: unknown[] = [];
    let batch: Document[] = [];
    for await (const doc of source.find({ applicationId: app }).limit(o.ceilingDocs)) {
      batch.push(doc);
      ids.push(doc._id);
      if (batch.length >= 1000) {
        await copy.insertMany(batch, { ordered: false });
        batch = [];
        ctx.progress.report((ids.length / o.ceilingDocs) * 0.3, `copied ${ids.length} documents`);
      }
    }
    if (batch.length) await copy.insertMany(batch, { ordered: false });
    if (ids.length < o.ceilingBatch) throw new Error(`only ${ids.length} documents of application ${app} in ${ctx.gamerTasksCollection} to copy`);
    const random = seededRandom(o.seed + 1);
    const makeBatch = (size: number): AnyBulkWriteOperation<Document>[] => {
      const picked = new Set<number>();
      while (picked.size < Math.min(size, ids.length)) picked.add(Math.floor(random() * ids.length));
      return [...picked].map((i) => ({ updateOne: { filter: { _id: ids[i] } as Document, update: { $inc: { progress: 1 } } } }));
    };
    /** `concurrency` loops of one bulkWrite at a time of `size` statements, for `seconds` */
    const measure = async (size: number, concurrency: number, seconds: number, report?: (f: number, n: number) => void, target = copy) => {
      const t = performance.now();
      const lat: number[] = [];
      let statements = 0;
      let matched = 0;
      let modified = 0;
      let writeErrors = 0;
      const loop = async () => {
        while (performance.now() - t < seconds * 1000) {
          const ops = makeBatch(size);
          const b0 = performance.now();
          try {
            const r = await target.bulkWrite(ops, { ordered: false });
            matched += r.matchedCount;
            modified += r.modifiedCount;
          } catch (error) {
            const e = error as { writeErrors?: unknown[]; result?: { matchedCount?: number; modifiedCount?: number } };
            writeErrors += Array.isArray(e.writeErrors) ? e.writeErrors.length : ops.length;
            matched += e.result?.matchedCount ?? 0;
            modified += e.result?.modifiedCount ?? 0;
          }
          lat.push(performance.now() - b0);
          statements += ops.length;
          report?.((performance.now() - t) / (seconds * 1000), statements);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, loop));
      return { statements, matched, modified, writeErrors, lat, seconds: (performance.now() - t) / 1000 };
    };
    // warm-up: a second of batches, not counted
    await measure(o.ceilingBatch, 1, 1);
    const u = samplers();
    const m = await measure(o.ceilingBatch, 1, o.ceilingS, (f, n) => ctx.progress.report(0.3 + 0.5 * f, `${n} statements`));
    const usage = usageOf(u.sampler, u.machine, u.load);
    // what bounds it: one statement per command (round trips), and two commands at once (the collection lock)
    const variants: CeilingResult['variants'] = [];
    // 32 statements at a time: what a store that cannot take large update commands gets
    // (the image before the rework hangs on one of 100 statements or more, so its run uses 32)
    const shapes: [number, number][] = [[1, 1], ...(o.ceilingBatch > SMALL_CEILING_BATCH ? [[SMALL_CEILING_BATCH, 1] as [number, number]] : []), [o.ceilingBatch, 2]];
    for (const [size, concurrency] of shapes) {
      const vu = samplers();
      const v = await measure(size, concurrency, Math.min(4, o.ceilingS));
      const vUsage = usageOf(vu.sampler, vu.machine, vu.load);
      variants.push({ batch: size, concurrency, documents: 'copy', statementsPerSecond: v.statements / v.seconds, batchLatency: summarize(v.lat), storeCpuPercent: vUsage.processes['tasks-db']?.cpuPercent ?? Number.NaN });
      ctx.progress.report(0.8 + 0.05 * variants.length, `variant batch ${size} × ${concurrency}: ${(v.statements / v.seconds).toFixed(0)} statements/s`);
    }
    // the store's best case: the same ids in documents of {_id, progress} and no secondary index
    const minimal = db.collection<Document>(`${name}_minimal`);
    await minimal.drop().catch(() => undefined);
    for (let i = 0; i < ids.length; i += 1000) await minimal.insertMany(ids.slice(i, i + 1000).map((_id) => ({ _id, progress: 0 }) as Document), { ordered: false });
    {
      const vu = samplers();
      const v = await measure(o.ceilingBatch, 1, Math.min(4, o.ceilingS), undefined, minimal);
      const vUsage = usageOf(vu.sampler, vu.machine, vu.load);
      variants.push({ batch: o.ceilingBatch, concurrency: 1, documents: 'minimal', statementsPerSecond: v.statements / v.seconds, batchLatency: summarize(v.lat), storeCpuPercent: vUsage.processes['tasks-db']?.cpuPercent ?? Number.NaN });
    }
    await minimal.drop().catch(() => undefined);
    await copy.drop().catch(() => undefined);
    return {
      collection: name,
      copiedDocs: ids.length,
      indexes,
      batch: o.ceilingBatch,
      batches: m.lat.length,
      statements: m.statements,
      matched: m.matched,
      modified: m.modified,
      seconds: m.seconds,
      statementsPerSecond: m.statements / m.seconds,
      docsUpdatedPerSecond: m.modified / m.seconds,
      batchLatency: summarize(m.lat),
      writeErrors: m.writeErrors,
      usage,
      variants,
    };
  } finally {
    await mongo.close();
  }
}

/** The commit the services ran from, for the results header. */
export function gitInfo(root: string): { commit: string; branch: string; dirty: boolean } {
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', timeout: 10_000 }).trim();
    } catch {
      return '';
    }
  };
  return { commit: git('rev-parse', 'HEAD'), branch: git('rev-parse', '--abbrev-ref', 'HEAD'), dirty: git('status', '--porcelain').length > 0 };
}

