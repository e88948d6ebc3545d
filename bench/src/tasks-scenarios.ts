import { natsNames, type ApplicationTask, type StatEvent, type TaskCompletedEvent } from '@gfts/contracts';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { MongoClient } from 'mongodb';
import { gamerName, seededUuid } from './datagen/ids.ts';
import { expiryOf, gamerTaskDocs, seededUuidV7, type GamerTaskDocument } from './datagen/tasks-direct.ts';
import type { Ctx } from './friendship-scenarios.ts';
import type { ScenarioResult } from './load.ts';
import { UsageSampler } from './procstat.ts';
import { call, type Gamer } from './stack.ts';
import { checkAim, ratio, summarize, type AimCheck } from './stats.ts';

/*
 * Tasks scenarios: a realistic catalog created through the admin API, 10k gamers with
 * assigned tasks (documents built by the bench from the catalog API's answer and written
 * straight to the tasks database: datagen/tasks-direct.ts), then
 *  - stat events through POST /api/v1/stats and straight to NATS, with event→completion
 *    latency from gfts.task.completed matched by eventId;
 *  - the consumer's events per second next to a bench-side ack-only consumer on the same
 *    stream, same batch size;
 *  - concurrent claims of completed tasks (exactly one succeeds per task).
 */

const STATS = ['kills', 'wins', 'games_played', 'coins', 'headshots', 'distance_m', 'assists', 'revives'];
const FAMILIES = ['daily', 'weekly', 'monthly', 'seasonal'] as const;

interface TaskInput {
  name: string;
  description: string;
  targetValue: number;
  numberOfGames: number;
  family: string;
  applicationStatsId: string;
  isAchievement?: boolean;
  rewards: { inventoryItemId: string; quantity: number }[];
  children?: Omit<TaskInput, 'family' | 'children'>[];
}

/** ~70 entries: per family 12 single tasks and 2 composites of 3, plus 10 achievements. */
export function catalogInputs(seed: string): TaskInput[] {
  const item = (i: number) => seededUuid(`${seed}-item`, i % 25);
  const out: TaskInput[] = [];
  let n = 0;
  for (const family of FAMILIES) {
    for (let i = 0; i < 12; i++, n++) {
      const stat = STATS[n % STATS.length]!;
      out.push({ name: `${family} ${stat} ${i}`, description: `Reach ${10 + i} ${stat}`, targetValue: 10 + i, numberOfGames: i % 3 === 0 ? 0 : 5, family, applicationStatsId: stat, rewards: [{ inventoryItemId: item(n), quantity: 1 + (n % 5) }] });
    }
    for (let c = 0; c < 2; c++, n++) {
      out.push({
        name: `${family} combo ${c}`,
        description: 'Three in one',
        targetValue: 1,
        numberOfGames: 0,
        family,
        applicationStatsId: STATS[n % STATS.length]!,
        rewards: [{ inventoryItemId: item(n), quantity: 10 }],
        children: [0, 1, 2].map((k) => ({ name: `${family} combo ${c}.${k}`, description: '', targetValue: 5 + k, numberOfGames: 0, applicationStatsId: STATS[(n + k) % STATS.length]!, rewards: [] })),
      });
    }
  }
  for (let a = 0; a < 10; a++, n++) {
    out.push({ name: `achievement ${a}`, description: 'Lifetime', targetValue: 1000 * (a + 1), numberOfGames: 0, family: 'lifetime', isAchievement: true, applicationStatsId: STATS[a % STATS.length]!, rewards: [{ inventoryItemId: item(n), quantity: 1 }] });
  }
  return out;
}

interface TasksOptions {
  root: string;
  add: (s: ScenarioResult) => ScenarioResult;
}

export async function runTasks(ctx: Ctx, o: TasksOptions): Promise<Record<string, unknown>> {
  const { cfg, state, creds, progress } = ctx;
  const app = cfg.tasks.app;
  const gw = state.services.gateway.url;
  const names = natsNames(process.env.NATS_PREFIX ?? 'gfts');
  const gamer = (i: number): Gamer => ({ id: seededUuid(`${cfg.mode}-tasks`, i), name: gamerName(`${cfg.mode}-tasks`, i), avatar: '' });
  const admin = { authorization: creds.bearerFor(app, { id: seededUuid('bench-admin', 0), name: 'Bench Admin', avatar: '' }, ['admin' as never]) };
  const server = { authorization: creds.bearerFor(app, { id: seededUuid('bench-server', 0), name: 'Game Server', avatar: '' }, ['server' as never]) };
  const result: Record<string, unknown> = {};
  const checks: AimCheck[] = [];
  result.checks = checks;

  // ---- catalog, through the admin API
  const existing = await call('GET', `${gw}/api/v1/${app}/tasks`, admin);
  if (existing.status !== 200) return { ...result, skipped: `tasks API not answering: GET catalog → ${existing.status} ${JSON.stringify(existing.body).slice(0, 200)}` };
  if (!Array.isArray(existing.body) || existing.body.length === 0) {
    for (const input of catalogInputs(cfg.mode)) {
      const r = await call('POST', `${gw}/api/v1/${app}/tasks`, admin, input);
      if (r.status !== 201) return { ...result, skipped: `catalog create failed: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}` };
    }
  }
  const listed = await call('GET', `${gw}/api/v1/${app}/tasks`, admin);
  if (listed.status !== 200 || !Array.isArray(listed.body)) return { ...result, skipped: `catalog read failed: ${listed.status}` };
  const catalogDocs = (listed.body as ApplicationTask[]).filter((e) => e.parentTaskId === null);
  const mongo = new MongoClient(state.services.tasks.mongoUrl);
  await mongo.connect();
  const db = mongo.db();
  result.catalog = { entries: catalogDocs.length, tasksWithChildren: catalogDocs.reduce((s, e) => s + 1 + e.children.length, 0) };
  progress.log(`tasks: catalog of ${catalogDocs.length} entries`);

  // ---- gamer tasks for cfg.tasks.gamers gamers: 3 daily + 2 weekly + 1 monthly each; the
  // first `claims` gamers' first daily task is already completed (for the claim scenario)
  const gamerTasks = db.collection<GamerTaskDocument>('gamer_tasks');
  // this application's assigned tasks (not achievements, which events create): already there on a rerun?
  const already = (await gamerTasks.findOne({ applicationId: app, isAchievement: false }, { projection: { _id: 1 } })) ? 1 : 0;
  const perFamily: Record<string, ApplicationTask[]> = {};
  for (const e of catalogDocs) if (!e.isAchievement) (perFamily[e.family] ??= []).push(e);
  const now = new Date();
  const claimable: { gamer: Gamer; gamerTaskId: string }[] = [];
  const eventTargets: { gamer: Gamer; stat: string; value: number }[] = [];
  const t0 = performance.now();
  let inserted = 0;
  if (already === 0) {
    let batch: GamerTaskDocument[] = [];
    let n = 0;
    for (let g = 0; g < cfg.tasks.gamers; g++) {
      const who = gamer(g);
      const picks = [...pick(perFamily.daily ?? [], 3, g), ...pick(perFamily.weekly ?? [], 2, g), ...pick(perFamily.monthly ?? [], 1, g)];
      picks.forEach((entry, k) => {
        const docs = gamerTaskDocs(entry, { applicationId: app, gamerId: who.id, now, expiredAt: expiryOf(entry.family, now), idFor: () => seededUuidV7(now, `${app}:tasks`, n++) });
        const parent = docs[0]!;
        if (k === 0 && g < cfg.tasks.claims && docs.length === 1) {
          Object.assign(parent, { progress: parent.targetValue, games: 1, completed: true, completedAt: now, completedByEventId: 'bench-seed' });
        }
        batch.push(...docs);
      });
      if (batch.length >= 1000) {
        await gamerTasks.insertMany(batch, { ordered: false });
        inserted += batch.length;
        batch = [];
        progress.report(g / cfg.tasks.gamers / 3, `tasks: gamer tasks ${inserted}`);
      }
    }
    if (batch.length) await gamerTasks.insertMany(batch, { ordered: false });
    inserted += batch.length;
  }
  const insertMs = performance.now() - t0;
  result.gamerTasks = { gamers: cfg.tasks.gamers, inserted, ms: insertMs, docsPerSecond: inserted / (insertMs / 1000), total: await gamerTasks.estimatedDocumentCount() };
  // what the scenarios need, read back (also on a rerun against a running stack): one query,
  // since every query here scans the collection
  const byGamer = new Map(Array.from({ length: cfg.tasks.claims }, (_, g) => [gamer(g).id, gamer(g)]));
  const seeded = await gamerTasks.find({ applicationId: app, completedByEventId: 'bench-seed', claimState: 'none' }, { projection: { _id: 1, gamerId: 1 } }).toArray();
  for (const d of seeded) {
    const who = byGamer.get(d.gamerId);
    if (who && claimable.length < cfg.tasks.claims) claimable.push({ gamer: who, gamerTaskId: d._id });
  }
  // events: one per gamer, completing its first daily task (value ≥ target) in one game
  for (let g = cfg.tasks.claims; g < cfg.tasks.gamers && eventTargets.length < cfg.tasks.eventsHttp + cfg.tasks.eventsNats + 3; g++) {
    const who = gamer(g);
    const entry = pick(perFamily.daily ?? [], 3, g)[0]!;
    if (entry.children.length) continue;
    eventTargets.push({ gamer: who, stat: entry.applicationStatsId, value: entry.targetValue });
  }
  await mongo.close();

  // ---- NATS: completions, and the ack-only consumer
  const nc = await connect({ servers: state.natsUrl, name: 'bench' });
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const sentAt = new Map<string, number>();
  const completion: number[] = [];
  const completedBy = new Set<string>();
  const sub = nc.subscribe(names.taskCompleted, {
    callback: (_e, msg) => {
      const ev = JSON.parse(new TextDecoder().decode(msg.data)) as TaskCompletedEvent;
      const t = sentAt.get(ev.eventId);
      if (t !== undefined && ev.applicationId === app && !completedBy.has(ev.eventId) && ev.parentGamerTaskId === null && !ev.isAchievement) {
        completedBy.add(ev.eventId);
        completion.push(performance.now() - t);
      }
    },
  });
  // events the tasks service has handled, from its own /metrics counter
  const consumerInfo = async (): Promise<number> => {
    const r = await fetch(`${state.services.tasks.url}/metrics`, { signal: AbortSignal.timeout(30_000) }).then((x) => x.text()).catch(() => '');
    let n = 0;
    for (const m of r.matchAll(/^gfts_stats_events_processed_total\{[^}]*outcome="(processed|duplicate)"[^}]*\} (\d+(?:\.\d+)?)/gm)) n += Number(m[2]);
    return n;
  };
  const failedAttempts = async (): Promise<number> => {
    const r = await fetch(`${state.services.tasks.url}/metrics`, { signal: AbortSignal.timeout(30_000) }).then((x) => x.text()).catch(() => '');
    const m = /^gfts_stats_events_processed_total\{[^}]*outcome="failed"[^}]*\} (\d+(?:\.\d+)?)/m.exec(r);
    return m ? Number(m[1]) : 0;
  };

  const makeEvent = (i: number): StatEvent => {
    const t = eventTargets[i % eventTargets.length]!;
    return { eventId: crypto.randomUUID(), applicationId: app, gamerId: t.gamer.id, gameId: `match-${i}`, occurredAt: new Date().toISOString(), stats: [{ applicationStatsId: t.stat, value: t.value }] };
  };
  const capMs = cfg.mode === 'full' ? 60_000 : 45_000;

  async function events(id: string, title: string, count: number, offset: number, send: (e: StatEvent) => Promise<number>): Promise<ScenarioResult> {
    completion.length = 0;
    completedBy.clear();
    const sampler = new UsageSampler(ctx.pids);
    sampler.start();
    const floor0 = await consumerInfo();
    const failed0 = await failedAttempts();
    const t00 = performance.now();
    const ingest: number[] = [];
    let errors = 0;
    const statusCodes: Record<string, number> = {};
    const start = performance.now();
    const interval = 1000 / cfg.tasks.rate;
    const inflight = new Set<Promise<void>>();
    for (let i = 0; i < count; i++) {
      // open-loop at cfg.tasks.rate events/s, at most 256 in flight
      const due = start + i * interval;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      while (inflight.size >= 256) await Promise.race(inflight);
      const e = makeEvent(offset + i);
      sentAt.set(e.eventId, performance.now());
      const p = send(e).then(
        (status) => {
          statusCodes[String(status)] = (statusCodes[String(status)] ?? 0) + 1;
          if (status >= 300) errors++;
          else ingest.push(performance.now() - sentAt.get(e.eventId)!);
        },
        () => {
          errors++;
        },
      );
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
      if (i % 50 === 0) progress.report(i / count / 2, `${id}: sent ${i}/${count}`);
    }
    await Promise.all(inflight);
    void t00;
    const sendS = (performance.now() - start) / 1000;
    // wait for the consumer to finish (or the cap)
    let floor = await consumerInfo();
    while (performance.now() - start < capMs && completion.length < count - errors) {
      await new Promise((r) => setTimeout(r, 1000));
      floor = await consumerInfo();
      progress.report(0.5 + completion.length / count / 2, `${id}: ${completion.length}/${count} completed`, false);
      if (floor - floor0 >= count && completion.length >= count - errors) break;
    }
    const wallS = (performance.now() - start) / 1000;
    const usage = sampler.stop();
    const lat = summarize(completion);
    const processed = floor - floor0;
    const failed = (await failedAttempts()) - failed0;
    return {
      id,
      title,
      mode: 'custom',
      connections: 256,
      wallS,
      requests: count,
      rate: ingest.length / sendS,
      unit: 'events/s in',
      latency: lat,
      errors,
      non2xx: errors,
      timeouts: 0,
      statusCodes,
      usage,
      notes: [
        `offered ${cfg.tasks.rate}/s; accepted ${ingest.length} in ${sendS.toFixed(1)} s (ingest p50 ${summarize(ingest).p50.toFixed(1)} ms, p99 ${summarize(ingest).p99.toFixed(1)} ms)`,
        `the tasks consumer handled ${processed} of the ${count} events in ${wallS.toFixed(0)} s = ${(processed / wallS).toFixed(2)} events/s (its gfts_stats_events_processed_total); ${completion.length}/${count - errors} completions seen within the ${capMs / 1000} s cap (the rest was purged from the stream); ${failed} processing attempts failed and were retried (e.g. SQLITE_BUSY: database is locked); latency columns = event→task.completed`,
      ],
      extra: { consumerEventsPerSecond: processed / wallS, failedAttempts: failed, completions: completion.length, ingest: summarize(ingest), capS: capMs / 1000 },
    };
  }

  // one event at a time on an idle consumer: the processing latency of a single event
  const single: number[] = [];
  const singleStart = performance.now();
  for (let i = 0; i < 2 && performance.now() - singleStart < capMs; i++) {
    completion.length = 0;
    completedBy.clear();
    const e = makeEvent(cfg.tasks.eventsHttp + cfg.tasks.eventsNats + i);
    sentAt.set(e.eventId, performance.now());
    await js.publish(names.statsSubject(app), JSON.stringify(e), { msgID: e.eventId });
    const t = performance.now();
    while (completion.length === 0 && performance.now() - t < capMs) await new Promise((r) => setTimeout(r, 20));
    if (completion.length) single.push(completion[0]!);
    progress.report(0.02 * (i + 1), `tasks: single event ${i + 1}: ${completion[0]?.toFixed(0) ?? 'no completion'} ms`, true);
  }
  result.singleEvent = summarize(single);
  const singleSummary = summarize(single);

  const httpEvents = o.add(await events('tasks-events-http', `stat events via POST /api/v1/stats (gateway), ${cfg.tasks.eventsHttp} events`, cfg.tasks.eventsHttp, 0, async (e) => (await call('POST', `${gw}/api/v1/stats`, server, e, 30_000)).status));
  await purgeBacklog();
  const natsEvents = o.add(await events('tasks-events-nats', `stat events published to JetStream, ${cfg.tasks.eventsNats} events`, cfg.tasks.eventsNats, cfg.tasks.eventsHttp, async (e) => {
    await js.publish(names.statsSubject(app), JSON.stringify(e), { msgID: e.eventId });
    return 202;
  }));
  await purgeBacklog();

  // ---- ack-only consumer: same stream, same batch size (CONSUMER_BATCH default 64), only acks
  const ackOnly = await ackOnlyRate();
  result.ackOnly = ackOnly;
  const consumerRate = Math.max(Number((httpEvents.extra as { consumerEventsPerSecond: number }).consumerEventsPerSecond), Number((natsEvents.extra as { consumerEventsPerSecond: number }).consumerEventsPerSecond));
  checks.push(checkAim('event→completion ms, one event on an idle consumer (informational, aim is for p99 at 1,000/s)', singleSummary.n ? singleSummary.max : Number.NaN, 100, 'max', `${singleSummary.n} events, max`));
  checks.push(checkAim('tasks consumer vs ack-only consumer (events/s)', ratio(consumerRate, ackOnly.eventsPerSecond), 1, 'min', `${consumerRate.toFixed(2)} / ${ackOnly.eventsPerSecond.toFixed(0)} events/s (no aim given; 100 % = as fast as acking)`));
  // nothing completed within the cap: the p99 is at least the cap, a miss rather than 'no data'
  const noneCompleted = natsEvents.latency.n === 0 && natsEvents.requests > 0;
  checks.push(
    checkAim(
      `event→completion p99 ms at ${cfg.tasks.rate} events/s offered (NATS)`,
      noneCompleted ? capMs : natsEvents.latency.n >= Math.min(10, cfg.tasks.eventsNats) ? natsEvents.latency.p99 : Number.NaN,
      100,
      'max',
      noneCompleted ? `0 of ${natsEvents.requests} events completed within the ${capMs / 1000} s cap: p99 > ${capMs} ms` : `${natsEvents.latency.n} completions`,
    ),
  );

  // ---- concurrent claims: 5 claims at once per completed task, exactly one may win
  const claims = await concurrentClaims();
  o.add(claims);

  sub.unsubscribe();
  await nc.drain();
  result.summary = `Catalog ${catalogDocs.length} entries; ${cfg.tasks.gamers.toLocaleString('en-US')} gamers with 6 assigned tasks each (${String((result.gamerTasks as { total: number }).total)} gamer-task documents). Ack-only consumer: ${ackOnly.eventsPerSecond.toFixed(0)} events/s over ${ackOnly.count} events. One event at a time on an idle consumer: event→completion ${singleSummary.n ? `p50 ${singleSummary.p50.toFixed(0)} ms, max ${singleSummary.max.toFixed(0)} ms (n=${singleSummary.n})` : 'no completion within the cap'}.`;
  return result;

  async function purgeBacklog(): Promise<void> {
    // events the consumer did not get to within the cap would keep it busy for the rest of the
    // run: drop the bench application's remaining stat events
    await jsm.streams.purge(names.statsStream, { filter: names.statsSubject(app) }).catch(() => undefined);
  }

  async function ackOnlyRate(): Promise<{ eventsPerSecond: number; count: number }> {
    // A copy of the stats stream (same storage and retention, its own subjects, so the tasks
    // consumer never sees these events) with a durable pull consumer that only acknowledges,
    // fetching batches of 64 like the service's CONSUMER_BATCH default.
    const n = cfg.mode === 'full' ? 20_000 : 5_000;
    const stream = 'BENCH_ACK_ONLY';
    const subject = `bench.ackonly.stats.${app}`;
    const info = await jsm.streams.info(names.statsStream);
    await jsm.streams.delete(stream).catch(() => undefined);
    await jsm.streams.add({ name: stream, subjects: ['bench.ackonly.stats.*'], storage: info.config.storage, retention: info.config.retention, discard: info.config.discard, num_replicas: 1, duplicate_window: info.config.duplicate_window });
    const pubs: Promise<unknown>[] = [];
    for (let i = 0; i < n; i++) {
      const e = makeEvent(i);
      pubs.push(js.publish(subject, JSON.stringify(e), { msgID: e.eventId }));
      if (pubs.length >= 1000) await Promise.all(pubs.splice(0));
    }
    await Promise.all(pubs);
    await jsm.consumers.add(stream, { durable_name: 'bench-ack-only', ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, max_ack_pending: 10_000 });
    const consumer = await js.consumers.get(stream, 'bench-ack-only');
    const t = performance.now();
    let count = 0;
    while (count < n && performance.now() - t < 60_000) {
      const batch = await consumer.fetch({ max_messages: 64, expires: 2000 });
      for await (const m of batch) {
        m.ack();
        count++;
      }
    }
    const s = (performance.now() - t) / 1000;
    await jsm.streams.delete(stream).catch(() => undefined);
    return { eventsPerSecond: count / s, count };
  }

  async function concurrentClaims(): Promise<ScenarioResult> {
    const sampler = new UsageSampler(ctx.pids);
    sampler.start();
    const t = performance.now();
    const latencies: number[] = [];
    const statusCodes: Record<string, number> = {};
    let winners = 0;
    let doubleWins = 0;
    let next = 0;
    let tasksDone = 0;
    const budgetMs = cfg.mode === 'full' ? 60_000 : 30_000;
    const worker = async () => {
      while (next < claimable.length && performance.now() - t < budgetMs) {
        const c = claimable[next++]!;
        const h = { authorization: creds.bearerFor(app, c.gamer) };
        const answers = await Promise.all(Array.from({ length: 5 }, () => call('POST', `${gw}/api/v1/tasks/${c.gamerTaskId}/claim`, h, undefined, 600_000)));
        let wins = 0;
        for (const a of answers) {
          statusCodes[String(a.status)] = (statusCodes[String(a.status)] ?? 0) + 1;
          latencies.push(a.ms);
          if (a.status === 200) wins++;
        }
        if (wins === 1) winners++;
        if (wins > 1) doubleWins++;
        tasksDone++;
        progress.report(Math.min(1, tasksDone / claimable.length), `tasks-claims: ${tasksDone} tasks`, false);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.floor(cfg.tasks.claimConcurrency / 5)) }, worker));
    const wallS = (performance.now() - t) / 1000;
    const total = Object.values(statusCodes).reduce((s, v) => s + v, 0);
    const unexpected = Object.entries(statusCodes).filter(([s]) => s !== '200' && s !== '409').reduce((s, [, v]) => s + v, 0);
    return {
      id: 'tasks-claims',
      title: `concurrent claims: 5 at once per completed task, ${tasksDone} tasks`,
      mode: 'custom',
      connections: Math.max(1, Math.floor(cfg.tasks.claimConcurrency / 5)) * 5,
      wallS,
      requests: total,
      rate: total / wallS,
      unit: 'claims/s',
      latency: summarize(latencies),
      errors: unexpected,
      non2xx: total - (statusCodes['200'] ?? 0),
      timeouts: 0,
      statusCodes,
      usage: sampler.stop(),
      notes: [`${winners} of ${tasksDone} tasks granted exactly once, ${doubleWins} granted twice; answers ${JSON.stringify(statusCodes)} (409 ALREADY_CLAIMED is the expected loser answer)`],
    };
  }
}

function pick<T>(list: T[], n: number, seed: number): T[] {
  if (list.length === 0) return [];
  const out: T[] = [];
  for (let k = 0; k < n && k < list.length; k++) out.push(list[(seed * 7 + k * 5) % list.length]!);
  return [...new Set(out)];
}
