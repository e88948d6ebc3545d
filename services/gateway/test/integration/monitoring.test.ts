import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { liveUrl } from '@gfts/client';
import { eventually, infra, mintToken } from '@gfts/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startServiceProcesses, type ServiceProcesses } from '../support/processes.ts';
import { queryReferences, withoutGrafanaVariables } from '../support/promql.ts';

const files = new URL('../../../../deploy/helm/gfts/files/', import.meta.url);
// Labels Prometheus puts on every scraped series (target labels), and a histogram's bucket bound.
const SCRAPE_LABELS = new Set(['instance', 'job', 'namespace', 'pod', 'le']);
// Series Prometheus writes itself for every target it scrapes (with the target labels only).
const PROMETHEUS_SERIES = ['up'];

interface Query { where: string; expr: string }

function ruleQueries(): Query[] {
  const rules = parseYaml(readFileSync(new URL('prometheus-rules.yaml', files), 'utf8')) as { groups: { rules: { alert?: string; record?: string; expr: string }[] }[] };
  return rules.groups.flatMap((g) => g.rules.map((r) => ({ where: `alert ${r.alert ?? r.record}`, expr: r.expr })));
}

interface Panel { title: string; targets?: { expr: string }[]; panels?: Panel[] }

function dashboardQueries(): Query[] {
  const dashboard = JSON.parse(readFileSync(new URL('grafana-dashboard.json', files), 'utf8')) as {
    panels: Panel[]; templating: { list: { name: string; type: string; query: string | { query: string } }[] };
  };
  const panels = (list: Panel[]): Query[] =>
    list.flatMap((p) => [...(p.targets ?? []).map((t) => ({ where: `panel "${p.title}"`, expr: withoutGrafanaVariables(t.expr) })), ...panels(p.panels ?? [])]);
  const variables = dashboard.templating.list.filter((v) => v.type === 'query').map((v) => {
    const query = typeof v.query === 'string' ? v.query : v.query.query;
    return { where: `variable ${v.name}`, expr: /^label_values\((.*),\s*\w+\)$/.exec(query)?.[1] ?? query };
  });
  return [...panels(dashboard.panels), ...variables];
}

/** Series names and, per name, the label names its samples carry, from Prometheus text. */
function exposition(text: string): Map<string, Set<string>> {
  const series = new Map<string, Set<string>>();
  const add = (name: string, labels: string[] = []) => {
    const known = series.get(name) ?? new Set<string>();
    labels.forEach((l) => known.add(l));
    series.set(name, known);
  };
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\w+)/.exec(line);
    if (type) {
      const [, name = '', kind] = type;
      const suffixes = kind === 'histogram' ? ['_bucket', '_sum', '_count'] : kind === 'summary' ? ['', '_sum', '_count'] : [''];
      suffixes.forEach((s) => add(name + s));
      continue;
    }
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? /.exec(line);
    if (sample?.[1]) add(sample[1], [...(sample[2] ?? '').matchAll(/(\w+)="/g)].map((m) => m[1] ?? ''));
  }
  return series;
}

/** A live-channel socket through the gateway (Node's WebSocket, bearer header), once open, and the code it closes with. */
async function openLive(gatewayUrl: string, headers: Record<string, string>): Promise<{ socket: WebSocket; closed: Promise<number> }> {
  const socket = new WebSocket(liveUrl(gatewayUrl), { headers });
  const closed = new Promise<number>((resolve) => socket.addEventListener('close', (event) => resolve(event.code)));
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', () => reject(new Error('the live channel did not open')), { once: true });
  });
  return { socket, closed };
}

describe('dashboard and alert rules against the metrics the services export', () => {
  let stack: ServiceProcesses;
  const exported = new Map<string, Set<string>>(PROMETHEUS_SERIES.map((name) => [name, new Set<string>()]));

  beforeAll(async () => {
    // NATS for the gateway too, so that it exports the shared rate limit's fallback counter;
    // one live socket per gamer, so that a gamer's second socket closes the first.
    stack = await startServiceProcesses({ gateway: { NATS_URL: infra().natsUrl }, services: { NOTIFY_MAX_SOCKETS_PER_GAMER: '1' } });
    const app = randomUUID();
    const gamer = { authorization: `Bearer ${mintToken({ sub: randomUUID(), app, name: 'Mona' })}` };
    const server = { authorization: `Bearer ${mintToken({ sub: randomUUID(), app, roles: ['server'] })}` };
    // Traffic that gives the labelled series samples: requests per route and status,
    // readiness checks, a claim outcome, a stat event through the consumer, a live socket
    // the notifications service closed (its reason label).
    const services = [stack.gatewayUrl, stack.friendshipUrl, stack.tasksUrl, stack.notificationsUrl];
    for (const url of services) expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect((await fetch(`${stack.gatewayUrl}/api/v1/friendship/search?displayName=mo`, { headers: gamer })).status).toBe(200);
    expect((await fetch(`${stack.gatewayUrl}/api/v1/tasks/${randomUUID()}/claim`, { method: 'POST', headers: gamer })).status).toBe(404);
    const event = { eventId: randomUUID(), applicationId: app, gamerId: randomUUID(), gameId: 'game-1', occurredAt: new Date().toISOString(), stats: [{ applicationStatsId: 'kills', value: 1 }] };
    const posted = await fetch(`${stack.gatewayUrl}/api/v1/stats`, { method: 'POST', headers: { ...server, 'content-type': 'application/json' }, body: JSON.stringify(event) });
    expect(posted.status).toBe(202);
    await eventually(async () => (await (await fetch(`${stack.tasksUrl}/metrics`)).text()).includes('gfts_stats_events_processed_total{'), 20_000);
    const first = await openLive(stack.gatewayUrl, gamer);
    const second = await openLive(stack.gatewayUrl, gamer);
    expect(await first.closed).toBe(4029); // too_many_sockets
    second.socket.close();
    for (const url of services) {
      const response = await fetch(`${url}/metrics`);
      expect(response.status).toBe(200);
      for (const [name, labels] of exposition(await response.text())) {
        exported.set(name, new Set([...(exported.get(name) ?? []), ...labels]));
      }
    }
  });
  afterAll(async () => stack?.close());

  const queries = [...ruleQueries(), ...dashboardQueries()];

  it('has queries to check', () => {
    expect(ruleQueries().length).toBeGreaterThanOrEqual(5);
    expect(dashboardQueries().length).toBeGreaterThanOrEqual(20);
  });

  it.each(queries)('$where: every metric and label it names is exported', ({ expr }) => {
    const refs = queryReferences(expr);
    expect(refs.error, expr).toBeUndefined();
    expect(refs.metrics.length, `${expr} names no metric`).toBeGreaterThan(0);
    for (const metric of refs.metrics) expect(exported.has(metric), `${metric} is not exported by any service`).toBe(true);
    const carried = new Set([...SCRAPE_LABELS, ...refs.metrics.flatMap((m) => [...(exported.get(m) ?? [])])]);
    for (const label of refs.labels) expect(carried.has(label), `label ${label} is on none of ${refs.metrics.join(', ')}`).toBe(true);
  });
});
