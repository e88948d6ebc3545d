import type { BenchReport } from './report.ts';
import { fmt } from './report.ts';

/** Plain statements derived from the figures of a run, put at the top of the results. */
export function deriveFindings(r: BenchReport): string[] {
  const out: string[] = [];
  const byId = new Map(r.scenarios.map((s) => [s.id, s]));
  const scans = r.plans.filter((p) => /\bSCAN\b/.test(p.text) && /filterPushdown=false/.test(p.text));
  const seeks = r.plans.filter((p) => /SEARCH .* USING (COVERING )?INDEX/.test(p.text));
  if (seeks.length > 0) {
    out.push(`Index use: ${seeks.length} of ${r.plans.length} explained friendship queries seek an index (SQLite \`SEARCH … USING INDEX\`; see the query plans).`);
  }
  if (scans.length > 0) {
    out.push(
      `The store scans: ${scans.length} of ${r.plans.length} explained friendship queries are full collection scans (\`filterPushdown=false\`, SQLite \`SCAN\`): upstream FerretDB 1.24 on SQLite pushes down only a filter that is exactly \`{_id: value}\` (scripts/images/ferretdb/README.md), so such a read costs time in proportion to the whole collection.`,
    );
    const perDoc = r.growth
      .filter((g) => g.series === 'search, by gamers' && g.latency.n > 0 && g.collectionDocs >= 10_000)
      .map((g) => (g.latency.p50 * 1000) / g.collectionDocs);
    if (perDoc.length) out.push(`Scan cost: a search spends about ${fmt(Math.min(...perDoc), 0)}–${fmt(Math.max(...perDoc), 0)} µs per gamer document in the collection (p50 / documents).`);
  }
  const gw = byId.get('friends100-gateway');
  const direct = byId.get('friends100-direct');
  const ceiling = byId.get('friends100-ceiling');
  if (gw && direct && ceiling) {
    const cpu = (s: typeof gw, p: string) => fmt(s.usage[p]?.cpuPercent, 0);
    out.push(
      `Friend list of 100 friends on the main dataset: ${fmt(gw.rate, 1)} req/s through the gateway, ${fmt(direct.rate, 1)} straight to the service, ${fmt(ceiling.rate, 1)} for the bare ceiling server (p50 ${fmt(gw.latency.p50, 0)} / ${fmt(direct.latency.p50, 0)} / ${fmt(ceiling.latency.p50, 0)} ms). CPU during the gateway run: friendship database ${cpu(gw, 'friendship-db')} %, friendship ${cpu(gw, 'friendship')} %, gateway ${cpu(gw, 'gateway')} %, load generator ${cpu(gw, 'loadgen')} % (200 % = both cores).`,
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
    const offered = 1000;
    const keepsUp = consumer >= offered * 0.9;
    out.push(
      `Stat events: ingest takes ${fmt(he?.rate, 0)} events/s via HTTP and ${fmt(ne?.rate, 0)} via NATS at ${offered}/s offered; the tasks consumer ${keepsUp ? 'keeps up' : 'does not keep up'} (${fmt(consumer, 1)} events/s under the burst, against ${fmt(t.ackOnly.eventsPerSecond, 0)} events/s for a consumer that only acknowledges, from the same NATS); one event on an idle consumer completes its task in ${t.singleEvent.n ? `${fmt(t.singleEvent.p50, 0)} ms (p50)` : 'more than the cap'}.`,
    );
  }
  return out;
}
