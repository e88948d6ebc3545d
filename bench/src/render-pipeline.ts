/**
 * The results page of a tasks-pipeline run (bench/run.sh --tasks-only), optionally with a
 * before/after table against an earlier run. Pure: report in, Markdown out.
 */
import { ceilingForRatio, keptUp, P99_AIM_MS, p99OfAllEvents, ratioOf, secondsLine, slowSecondsCpuLine, stagesLine, stalls, type PhaseUsage, type PipelineReport, type RatePhase } from './pipeline-report.ts';
import { fmt, pct, referenceSentence } from './report.ts';
import { checkAim, type AimCheck } from './stats.ts';

const PROCS = ['tasks', 'tasks-db', 'nats', 'notifications', 'notifications-db', 'gateway', 'loadgen'];

/** The aims of issue #10 item 6, from a run's figures. */
/** Whether the ceiling copied the progress documents (`--collection gamer_progress`), where one statement is one gamer's whole batch. */
function onProgressDocuments(c: { collection: string }): boolean {
  return c.collection.replace(/^bench_ceiling_/, '') === 'gamer_progress';
}

export function pipelineChecks(r: Pick<PipelineReport, 'sustained' | 'ceiling' | 'rates' | 'options'>): AimCheck[] {
  const checks: AimCheck[] = [];
  const s = r.sustained;
  checks.push(
    checkAim(
      'sustained events/s',
      s ? s.eventsPerSecond : Number.NaN,
      1000,
      'min',
      s ? `${s.processed} of ${s.events} events acknowledged in ${fmt(s.processS, 1)} s${s.drained ? '' : ` (cap reached, ${s.backlogAtEnd} left)`}` : 'the sustained run did not run',
    ),
  );
  const at1000 = r.rates.find((p) => p.offeredRate === 1000);
  if (at1000) {
    const p99 = p99OfAllEvents(at1000, r.options.drainCapS * 1000);
    checks.push(checkAim('event→completion p99 ms at 1,000 events/s offered', p99.value, P99_AIM_MS, 'max', `${p99.lowerBound ? 'lower bound: ' : ''}${p99.detail}`));
  } else checks.push(checkAim('event→completion p99 ms at 1,000 events/s offered', Number.NaN, P99_AIM_MS, 'max', '1,000/s was not among the offered rates'));
  const c = r.ceiling;
  const best = ceilingForRatio(c);
  checks.push(
    checkAim(
      'consumer events/s vs store bulk-update statements/s (%)',
      ratioOf(s?.eventsPerSecond ?? Number.NaN, best.statementsPerSecond),
      0.5,
      'min',
      s && c ? `${fmt(s.eventsPerSecond, 1)} events/s / ${fmt(best.statementsPerSecond, 0)} statements/s, the store's best in this run (${best.what}) (${onProgressDocuments(c) ? 'one event = one progress-document update: the consumer writes each gamer once per batch' : `one event = ${fmt(s.updatesPerEvent, 2)} gamer-task updates`})` : 'missing the sustained run or the ceiling',
    ),
  );
  return checks;
}

function usageCells(u: PhaseUsage | undefined): string {
  if (!u) return PROCS.map(() => '–').join(' | ') + ' | – | –';
  return `${PROCS.map((p) => fmt(u.processes[p]?.cpuPercent, 0)).join(' | ')} | ${fmt(u.machinePercent, 0)} | ${fmt(u.otherPercent, 0)}`;
}

function checksTable(checks: AimCheck[]): string {
  const rows = checks.map((c) => {
    const isRatio = c.name.includes('%');
    const value = isRatio ? pct(c.value) : fmt(c.value, 1);
    const aim = `${c.kind === 'min' ? '≥' : '≤'} ${isRatio ? pct(c.aim) : fmt(c.aim, 0)}`;
    return `| ${c.name} | ${value} | ${aim} | **${c.verdict}** | ${c.detail} |`;
  });
  return ['| aim | measured | aim | verdict | from |', '|---|---|---|---|---|', ...rows].join('\n');
}

const latencyCell = (p: RatePhase, capS: number) => {
  const all = p99OfAllEvents(p, capS * 1000);
  if (all.lowerBound) return `≥ ${fmt(all.value / 1000, 0)} s (see note)`;
  // a few events never processed: the p99 of all is bounded by the processed ones' p99.9
  return p.unprocessed > 0 ? `≤ ${fmt(all.value, 0)} (see note)` : fmt(p.latency.p99, 0);
};

export function renderPipeline(r: PipelineReport, before?: PipelineReport): string {
  const out: string[] = [];
  const p = (s = '') => out.push(s);
  const minutes = (Date.parse(r.finishedAt) - Date.parse(r.startedAt)) / 60_000;
  const o = r.options;
  p(`# Tasks pipeline benchmark ${r.date}${r.label ? ` — ${r.label}` : ''}${o.mode === 'quick' ? ' (quick mode)' : ''}`);
  p();
  p(`Command: \`${r.command}\` — started ${r.startedAt}, took ${minutes.toFixed(1)} min. Code: \`${r.git.branch}\` at \`${r.git.commit.slice(0, 12)}\`${r.git.dirty ? ' (with uncommitted changes)' : ''}${r.benchGit ? `; the bench from \`${r.benchGit.branch}\` at \`${r.benchGit.commit.slice(0, 12)}\`${r.benchGit.dirty ? ' (with uncommitted changes)' : ''}` : ''}.`);
  p();
  p('## Machine, load and stack');
  p();
  p(`- CPU: ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memGb} GiB; kernel ${r.machine.kernel}; Node ${r.machine.node}`);
  p(`- \`uptime\` at the start: \`${r.load.uptimeStart}\`; at the end: \`${r.load.uptimeEnd}\` (load averages over 1/5/15 min; 2.00 = both cores busy). Other engineers work on this machine: each phase below also gives the machine's busy CPU and the part of it not used by the processes of the stack or the bench ("other").${r.load.machineSpeed === undefined ? '' : ` ${referenceSentence(r.load.machineSpeed)}`}`);
  p(`- Store: ${r.stack.db} (\`${r.stack.mongoImage}\`); NATS \`${r.stack.natsImage}\`; engine ${r.stack.engine}. Services, store, NATS and the load generator share the 2 cores; CPU % is of one core (200 % = the whole machine).`);
  p(`- Settings: ${r.stack.settings.join(', ') || 'service defaults'}`);
  p();
  p(`## Aims (issue #10 item 6)${o.mode === 'quick' ? ` — quick mode: ${o.gamers} gamers, ${o.phaseS} s windows, a ${o.ceilingS} s ceiling; the aims are for the full run` : ''}`);
  p();
  // from the figures, with the rules of this version (a re-render of an older run's JSON applies them too)
  p(checksTable(pipelineChecks(r)));
  p();
  const s = r.sustained;
  const c = r.ceiling;
  p('## Headline');
  p();
  p('| figure | value |');
  p('|---|---|');
  p(`| sustained: consumer events/s (${fmt(s?.events, 0)} events published at once) | **${fmt(s?.eventsPerSecond, 1)}**${s && !s.drained ? ` (cap of ${o.sustainedCapS} s reached; ${s.backlogAtEnd} events not processed)` : ''} |`);
  const f = r.firstPass;
  if (f) p(`| first pass: one event per gamer, each gamer's first since the service started (caches cold), events/s | ${fmt(f.eventsPerSecond, 1)} (${f.processed} of ${f.events} in ${fmt(f.seconds, 1)} s) |`);
  p(`| store ceiling: bulkWrite of ${c?.batch ?? o.ceilingBatch} × updateOne($inc) by _id, statements/s | **${fmt(c?.statementsPerSecond, 0)}** (${fmt(c?.docsUpdatedPerSecond, 0)} documents updated/s) |`);
  p(`| gamer tasks moved per event in the sustained run (model) | ${fmt(s?.updatesPerEvent, 2)} |`);
  const best = ceilingForRatio(c);
  p(`| consumer events/s as % of the store's best statements/s in this run (${best.what}: ${fmt(best.statementsPerSecond, 0)}) | **${pct(ratioOf(s?.eventsPerSecond ?? Number.NaN, best.statementsPerSecond))}** |`);
  // the sustained figure drains a backlog published at once (full batches all along): the
  // open-loop windows say what the consumer keeps up with when events arrive as they are played
  const steady = r.rates;
  if (steady.length > 0) {
    const ok = steady.filter(keptUp).map((x) => x.offeredRate);
    const most = Math.max(...steady.map((x) => x.processedRateInWindow).filter(Number.isFinite));
    p(`| open-loop: highest offered rate kept up; most events/s processed in a window | ${ok.length > 0 ? `${Math.max(...ok)}/s` : 'none'}; ${fmt(most, 0)} |`);
  }
  // a ceiling on gamer-task copies: the consumer's gamer-task updates against it (on progress
  // documents one statement moves all of a gamer's tasks, so the comparison does not apply)
  if (!c || !onProgressDocuments(c)) p(`| consumer gamer-task updates/s (events/s × updates per event) as % of the store's best statements/s | ${pct(ratioOf((s?.eventsPerSecond ?? Number.NaN) * (s?.updatesPerEvent ?? Number.NaN), best.statementsPerSecond))} |`);
  p(`| one event on an idle consumer, event→completion | p50 ${fmt(r.singles.p50, 0)} ms, max ${fmt(r.singles.max, 0)} ms (n=${r.singles.n}) |`);
  p(`| knee | ${r.knee} |`);
  p();
  p('## Open-loop rates');
  p();
  p(`Each rate is offered for ${o.phaseS} s, published straight to JetStream; then the bench waits up to ${o.drainCapS} s for the consumer to catch up, purges what is left, and before the next rate waits until the consumer is idle. "processed/s in window" = events the consumer acknowledged by the end of the window ÷ the window; "queue age" = how long the oldest unacknowledged event had waited at the end of the window (0: kept up). Latency = ${r.rates.some((x) => x.maxSendLagMs !== undefined) ? "the event's slot in the publishing schedule (its send, if the publisher was early)" : 'the event\'s send (a run before 2026-11-29: not from its slot in the schedule)'} → first \`task.completed\` carrying its eventId, over the events that completed a task and were processed before the purge.`);
  p();
  p(`| offered/s | accepted (/s) | processed in window (/s) | backlog at window end | queue age s | drained after s | never processed | event→completion p50 ms | p99 ms | completions seen / model | ${PROCS.map((name) => `${name} %`).join(' | ')} | machine % | other % |`);
  p(`|${'---|'.repeat(12 + PROCS.length)}`);
  for (const x of r.rates) {
    p(
      `| ${x.offeredRate} | ${x.accepted} (${fmt(x.acceptedRate, 0)}) | ${x.processedInWindow} (${fmt(x.processedRateInWindow, 0)}) | ${x.backlogAtWindowEnd} | ${fmt(x.queueAgeAtWindowEndMs / 1000, 1)} | ${x.drained ? fmt(x.drainS, 1) : `no (${o.drainCapS} s cap)`} | ${x.unprocessed} | ${fmt(x.latency.p50, 0)} | ${latencyCell(x, o.drainCapS)} | ${x.completionsSeen} / ${x.completionsExpected} | ${usageCells(x.usage)} |`,
    );
  }
  p();
  for (const x of r.rates) {
    const all = p99OfAllEvents(x, o.drainCapS * 1000);
    if (all.lowerBound) p(`- ${x.offeredRate}/s: ${all.detail}; the p99 over the ${x.latency.n} completing events that were processed is ${fmt(x.latency.p99, 0)} ms.`);
    else if (x.unprocessed > 0) p(`- ${x.offeredRate}/s: ${all.detail}.`);
    if (x.failedAttempts > 0) p(`- ${x.offeredRate}/s: ${x.failedAttempts} processing attempts failed and were retried (service counter).`);
    if (x.latencyBySecond && x.latencyBySecond.length > 0 && x.drained) {
      p(`- ${x.offeredRate}/s: ${secondsLine(x.latencyBySecond, P99_AIM_MS)}`);
      const cpu = slowSecondsCpuLine(x.latencyBySecond, x.timeline, P99_AIM_MS, PROCS);
      if (cpu) p(`- ${x.offeredRate}/s: ${cpu}`);
    }
    if (x.ageByStage && x.ageByStage.length > 0) p(`- ${x.offeredRate}/s: ${stagesLine(x.ageByStage)}`);
    const st = stalls(x.timeline);
    if (st.longestS >= 3) p(`- ${x.offeredRate}/s: the consumer acknowledged nothing for ${fmt(st.longestS, 0)} s at a stretch with events queued (${st.count} such stall${st.count > 1 ? 's' : ''}, ${fmt(st.totalS, 0)} s in all; timeline in the JSON).`);
    if (x.publishErrors > 0) p(`- ${x.offeredRate}/s: ${x.publishErrors} publishes failed.`);
    if (x.maxSendLagMs !== undefined) p(`- ${x.offeredRate}/s: the publisher was at most ${fmt(x.maxSendLagMs, 0)} ms behind its schedule (counted in the latencies).`);
    if (!Number.isFinite(x.serviceCounter)) p(`- ${x.offeredRate}/s: the service has no gfts_stats_events_processed_total; processed counts come from the stream alone.`);
  }
  p(`- Knee: ${r.knee}.`);
  p();
  if (s) {
    p('## Sustained throughput');
    p();
    p(`${s.events} events (seeded random gamers, one game each) published as fast as JetStream acknowledged them (${fmt(s.publishS, 1)} s), after the first pass (one event per gamer; in the headline); the clock runs from the first publish until the tasks consumer acknowledged the last one${s.drained ? '' : ` — it had not after the ${o.sustainedCapS} s cap: ${s.backlogAtEnd} were left and purged`}.`);
    p();
    p(`| processed | seconds | events/s | gamer tasks moved per event (model) | completions per event (model) | completions seen / model | failed attempts | service counter |`);
    p('|---|---|---|---|---|---|---|---|');
    p(`| ${s.processed} | ${fmt(s.processS, 1)} | **${fmt(s.eventsPerSecond, 1)}** | ${fmt(s.updatesPerEvent, 2)} | ${fmt(s.completionsPerEvent, 3)} | ${s.completionsSeen} / ${s.completionsExpected} | ${s.failedAttempts} | ${fmt(s.serviceCounter, 0)} |`);
    p();
    p(`CPU during the sustained run (% of one core):`);
    p();
    p(`| ${PROCS.join(' | ')} | machine | other |`);
    p(`|${'---|'.repeat(PROCS.length + 2)}`);
    p(`| ${usageCells(s.usage)} |`);
    p();
    const st = stalls(s.timeline);
    if (st.longestS >= 3) {
      p(`The consumer acknowledged nothing for ${fmt(st.longestS, 0)} s at a stretch with events queued: ${st.count} such stall${st.count > 1 ? 's' : ''}, ${fmt(st.totalS, 0)} of the ${fmt(s.processS, 0)} s in all (per-second timeline in the JSON).`);
      p();
    }
    p(`Load average ${s.usage.load.start.map((v) => v.toFixed(2)).join(' / ')} at its start, ${s.usage.load.end.map((v) => v.toFixed(2)).join(' / ')} at its end. Event→completion while the whole batch queued: p50 ${fmt(s.latency.p50, 0)} ms, p99 ${fmt(s.latency.p99, 0)} ms (n=${s.latency.n}; this is queueing behind ${s.events} events, not a latency aim).`);
    p();
  }
  if (c) {
    p('## Store ceiling');
    p();
    p(
      `A bare MongoDB-driver loop in the bench process, one \`bulkWrite\` at a time (unordered) of ${c.batch} \`updateOne({_id}, {$inc: {progress: 1}})\` on distinct random documents of \`${c.collection}\`: a copy of ${c.copiedDocs} of this application's documents in \`${c.collection.replace(/^bench_ceiling_/, '')}\` as the service wrote them, with the same indexes (${c.indexes.join(', ') || 'none besides _id'}), in the same store, for ${fmt(c.seconds, 1)} s after a 1 s warm-up.`,
    );
    p();
    p('| batches | statements | matched | modified | statements/s | documents updated/s | batch p50 ms | batch p99 ms | write errors | tasks-db % | loadgen % | machine % | other % |');
    p('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    p(
      `| ${c.batches} | ${c.statements} | ${c.matched} | ${c.modified} | **${fmt(c.statementsPerSecond, 0)}** | ${fmt(c.docsUpdatedPerSecond, 0)} | ${fmt(c.batchLatency.p50, 1)} | ${fmt(c.batchLatency.p99, 1)} | ${c.writeErrors} | ${fmt(c.usage.processes['tasks-db']?.cpuPercent, 0)} | ${fmt(c.usage.processes.loadgen?.cpuPercent, 0)} | ${fmt(c.usage.machinePercent, 0)} | ${fmt(c.usage.otherPercent, 0)} |`,
    );
    p();
    const v1 = c.variants?.find((v) => v.batch === 1);
    const v2 = c.variants?.find((v) => v.concurrency === 2);
    const vMin = c.variants?.find((v) => v.documents === 'minimal');
    if (c.variants?.length) {
      p('The same loop, shorter, to see what bounds it:');
      p();
      p('| variant | statements/s | command p50 ms | tasks-db % |');
      p('|---|---|---|---|');
      p(`| ${c.batch} statements per bulkWrite, 1 at a time (the figure above) | ${fmt(c.statementsPerSecond, 0)} | ${fmt(c.batchLatency.p50, 1)} | ${fmt(c.usage.processes['tasks-db']?.cpuPercent, 0)} |`);
      for (const v of c.variants) {
        const docs = v.documents === 'minimal' ? ', on minimal documents {_id, progress} without secondary indexes' : '';
        p(`| ${v.batch} statement${v.batch > 1 ? 's' : ''} per bulkWrite, ${v.concurrency} at a time${docs} | ${fmt(v.statementsPerSecond, 0)} | ${fmt(v.batchLatency.p50, 1)} | ${fmt(v.storeCpuPercent, 0)} |`);
      }
      p();
    }
    const cpuMs = ((c.usage.processes['tasks-db']?.cpuPercent ?? Number.NaN) / 100) * (1000 / c.statementsPerSecond);
    p(
      `What bounds it: the local store (FerretDB v1 on SQLite, patched, scripts/images/ferretdb/README.md) runs the statements of one update command one after the other — each reads its document by \`_id\`, decodes the stored JSON, applies \`$inc\` in Go and writes the whole document back (the current image under the collection's write lock, a command's by-\`_id\` writes committed in one SQLite transaction; the image before the rework without a lock, each statement in its own transaction, and an update command of 100 or more statements never returns there) — so a collection takes one statement at a time whatever the client does, and its cost is per document. Here a statement took ${fmt(1000 / c.statementsPerSecond, 2)} ms of wall time and ${fmt(cpuMs, 2)} ms of FerretDB CPU (tasks-db at ${fmt(c.usage.processes['tasks-db']?.cpuPercent, 0)} % of a core; the machine at ${fmt(c.usage.machinePercent, 0)} %, of which ${fmt(c.usage.otherPercent, 0)} % other work)${v1 ? `; one statement per command gave ${fmt(v1.statementsPerSecond, 0)} statements/s (the round trip adds ${fmt(v1.statementsPerSecond > 0 && c.statementsPerSecond > 0 ? 1000 / v1.statementsPerSecond - 1000 / c.statementsPerSecond : Number.NaN, 2)} ms a statement)` : ''}${v2 ? `; two commands at once gave ${fmt(v2.statementsPerSecond, 0)} statements/s (×${fmt(v2.statementsPerSecond / c.statementsPerSecond, 2)} of one at a time)` : ''}${vMin ? `; on minimal documents ${fmt(vMin.statementsPerSecond, 0)} statements/s (×${fmt(vMin.statementsPerSecond / c.statementsPerSecond, 2)}: the part of the cost that is the copied document's size and indexes)` : ''}. ${onProgressDocuments(c) ? `A consumer that writes one update statement per event (one per gamer and batch) cannot pass about ${fmt(c.statementsPerSecond, 0)} events/s on this store in this run, whatever its batching.` : `A consumer that writes one update statement per gamer-task update cannot pass about ${fmt(c.statementsPerSecond, 0)} updates/s on this store in this run, whatever its batching.`} This is the local store's ceiling, not MongoDB's; it moves with the CPU the store gets, so read it next to the consumer's figures of the same run.`,
    );
    p();
  }
  p('## Setup');
  p();
  const st = r.setup;
  const how =
    st.method === 'http'
      ? `each through the gateway with a gamer token: \`POST /api/v1/tasks/assign\` daily × 3, weekly × 1, then \`GET /api/v1/achievements\` (which starts tracking both achievements); ${st.httpCalls} calls in ${fmt(st.ms / 1000, 0)} s (${fmt(st.callsPerSecond, 0)} calls/s), ${st.errors} errors${st.firstErrors.length ? ` (${st.firstErrors.join('; ')})` : ''}`
      : `written straight into the tasks database with the service's own functions (bench/src/datagen/tasks-direct.ts: seeded picks of 3 daily and 1 weekly entry, the achievements' records with their derived ids), ${st.documents} documents in ${fmt(st.ms / 1000, 0)} s; then ${st.httpCalls} reads through the gateway checked that the service lists for 3 gamers exactly what the bench wrote (${st.errors} errors). The HTTP assign path (\`--setup http\`) is kept but takes ~15 calls/s on this machine`;
  p(
    `Application \`${st.app}\`, catalog of ${st.catalogEntries} entries created through the admin API (9 daily tasks, 2 weekly composites of 3 children, 2 lifetime achievements; bench/src/datagen/tasks-mix.ts). ${st.gamers} gamers, ${how}. Gamer 0 holds ${st.perGamer.daily} daily, ${st.perGamer.weekly} weekly composite and ${st.perGamer.achievements} achievements = ${st.perGamer.gamerTasks} gamer tasks.`,
  );
  p();
  p(
    'Events: one game of one gamer drawn at random (seeded), with games_played 1 and, when non-zero, kills (0–8), wins (45 %), coins (20–180), headshots and assists (0–5). Daily targets take 2–10 games, weekly children 6–15, so tasks complete throughout the run; the achievements never complete here and every game moves them. The model (same file) replays the processed events to count the gamer-task writes each causes and the completions to expect.',
  );
  p();
  if (before) p(renderComparison(before, r));
  if (r.notes.length) {
    p('## Notes');
    p();
    for (const n of r.notes) p(`- ${n}`);
    p();
  }
  return out.join('\n');
}

/** Before/after of two pipeline runs. */
export function renderComparison(before: PipelineReport, after: PipelineReport): string {
  const out: string[] = [];
  const p = (s = '') => out.push(s);
  const times = (b: number, a: number) => (Number.isFinite(b) && Number.isFinite(a) && b > 0 ? `×${fmt(a / b, a / b >= 10 ? 0 : 2)}` : '–');
  p('## Before / after');
  p();
  p(`Before: ${before.label || 'run'} of ${before.startedAt} (\`${before.git.commit.slice(0, 12)}\`, load at start ${before.load.start.map((v) => v.toFixed(2)).join(' / ')}); after: ${after.label || 'run'} of ${after.startedAt} (\`${after.git.commit.slice(0, 12)}\`, load at start ${after.load.start.map((v) => v.toFixed(2)).join(' / ')}). Compare ratios within a run; the ceiling is measured in each.`);
  p();
  p('| figure | before | after | change |');
  p('|---|---|---|---|');
  const row = (name: string, b: number | undefined, a: number | undefined, digits = 1) => p(`| ${name} | ${fmt(b, digits)} | ${fmt(a, digits)} | ${times(b ?? Number.NaN, a ?? Number.NaN)} |`);
  row('sustained events/s', before.sustained?.eventsPerSecond, after.sustained?.eventsPerSecond);
  row('store ceiling statements/s', before.ceiling?.statementsPerSecond, after.ceiling?.statementsPerSecond, 0);
  p(`| consumer events/s as % of the ceiling (the store's best in the run) | ${pct(ratioOf(before.sustained?.eventsPerSecond ?? Number.NaN, ceilingForRatio(before.ceiling).statementsPerSecond))} | ${pct(ratioOf(after.sustained?.eventsPerSecond ?? Number.NaN, ceilingForRatio(after.ceiling).statementsPerSecond))} | |`);
  row('gamer tasks moved per event (model)', before.sustained?.updatesPerEvent, after.sustained?.updatesPerEvent, 2);
  row('single event p50 ms', before.singles.p50, after.singles.p50, 0);
  for (const a of after.rates) {
    const b = before.rates.find((x) => x.offeredRate === a.offeredRate);
    row(`${a.offeredRate}/s offered: processed/s in window`, b?.processedRateInWindow, a.processedRateInWindow, 0);
    p(`| ${a.offeredRate}/s offered: event→completion p50 / p99 ms | ${b ? `${fmt(b.latency.p50, 0)} / ${latencyCell(b, before.options.drainCapS)}` : '–'} | ${fmt(a.latency.p50, 0)} / ${latencyCell(a, after.options.drainCapS)} | |`);
    p(`| ${a.offeredRate}/s offered: never processed (purged after the cap) | ${b ? `${b.unprocessed} of ${b.accepted}` : '–'} | ${a.unprocessed} of ${a.accepted} | |`);
  }
  p(`| knee | ${before.knee} | ${after.knee} | |`);
  p();
  p('| aim | before | after |');
  p('|---|---|---|');
  for (const a of after.checks) {
    const b = before.checks.find((x) => x.name === a.name);
    const show = (c: AimCheck | undefined) => (c ? `${c.name.includes('%') ? pct(c.value) : fmt(c.value, 1)} (${c.verdict})` : '–');
    p(`| ${a.name} | ${show(b)} | ${show(a)} |`);
  }
  p();
  return out.join('\n');
}
