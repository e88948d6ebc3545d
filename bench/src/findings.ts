import type { BenchReport } from './report.ts';
import { fmt } from './report.ts';

/** Plain statements derived from the figures of a run, put at the top of the results. */
export function deriveFindings(r: BenchReport): string[] {
  const out: string[] = [];
  const byId = new Map(r.scenarios.map((s) => [s.id, s]));
  const scans = r.plans.filter((p) => /SCAN/.test(p.text) && /filterPushdown=false/.test(p.text));
  if (scans.length > 0) {
    out.push(
      `The store scans: ${scans.length} of ${r.plans.length} explained friendship queries are full collection scans (\`filterPushdown=false\`, SQLite \`SCAN\`); FerretDB 1.24 on SQLite pushes down only a filter that is exactly \`{_id: value}\`. The indexes exist (unique ones still guard races) but no read uses them, so every read costs time in proportion to the whole collection, whatever the application or the gamer.`,
    );
  }
  const perDoc = r.growth
    .filter((g) => g.series === 'search, by gamers' && g.latency.n > 0 && g.collectionDocs >= 10_000)
    .map((g) => (g.latency.p50 * 1000) / g.collectionDocs);
  if (perDoc.length) out.push(`Scan cost: a search spends about ${fmt(Math.min(...perDoc), 0)}–${fmt(Math.max(...perDoc), 0)} µs per gamer document in the collection (p50 / documents), which is what sets every latency below.`);
  const gw = byId.get('friends100-gateway');
  const direct = byId.get('friends100-direct');
  const ceiling = byId.get('friends100-ceiling');
  if (gw && direct && ceiling) {
    const db = gw.usage['friendship-db'];
    out.push(
      `Friend list of 100 friends on the main dataset: p50 ${fmt(gw.latency.p50, 0)} ms through the gateway, ${fmt(direct.latency.p50, 0)} ms straight to the service, ${fmt(ceiling.latency.p50, 0)} ms for the bare ceiling server — the same within noise, because the database does nearly all the work (friendship database ${fmt(db?.cpuPercent, 0)} % CPU, gateway ${fmt(gw.usage.gateway?.cpuPercent, 1)} %, friendship ${fmt(gw.usage.friendship?.cpuPercent, 1)} % during the gateway run).`,
    );
  }
  const cg = byId.get('cheap-gateway');
  const cd = byId.get('cheap-direct');
  if (cg && cd) {
    out.push(
      `The gateway's own cost shows on a near-free read (GET /blocked, empty): ${fmt(cg.rate, 0)} req/s through the gateway vs ${fmt(cd.rate, 0)} req/s direct (${fmt((cg.rate / cd.rate) * 100, 0)} %), p50 ${fmt(cg.latency.p50)} vs ${fmt(cd.latency.p50)} ms: a second HTTP hop, a JWT verification and an identity assertion per request on the same 2 cores.`,
    );
  }
  for (const g of r.growthFactors) {
    if (Number.isFinite(g.exponentP50)) {
      out.push(`Growth, ${g.series}: p99 ×${fmt(g.factorP99, 1)} across the series; latency ∝ documents^${fmt(g.exponentP50, 2)} (1 = linear: a scan; an index seek would be ≈ 0).`);
    }
  }
  const t = r.tasks as { singleEvent?: { n: number; p50: number; max: number }; ackOnly?: { eventsPerSecond: number } };
  const he = byId.get('tasks-events-http');
  const ne = byId.get('tasks-events-nats');
  if (t.singleEvent && t.ackOnly) {
    const consumer = Math.max(Number((he?.extra as { consumerEventsPerSecond?: number } | undefined)?.consumerEventsPerSecond ?? Number.NaN), Number((ne?.extra as { consumerEventsPerSecond?: number } | undefined)?.consumerEventsPerSecond ?? Number.NaN));
    out.push(
      `Stat events: ingest keeps up (${fmt(he?.rate, 0)} events/s accepted via HTTP, ${fmt(ne?.rate, 0)} via NATS at 1,000/s offered), but processing does not: one event on an idle consumer takes ${t.singleEvent.n ? `${fmt(t.singleEvent.p50, 0)} ms to complete its task` : 'longer than the cap'}, the consumer handles ${fmt(consumer, 2)} events/s under the burst, while a consumer that only acknowledges drains ${fmt(t.ackOnly.eventsPerSecond, 0)} events/s from the same NATS. Each event reads and writes gamer tasks with filters FerretDB cannot push down.`,
    );
  }
  return out;
}
