import { useState } from 'preact/hooks';
import { ok } from '../api/client.ts';
import { failureKind } from '../api/poll-delay.ts';
import { keepLast, ratePerSecond, type Sample } from '../charts/series.ts';
import { Chart } from '../components/chart.tsx';
import { usePoll } from '../hooks.ts';
import type { PipelineHealth, ServiceHealth, Session } from '../session.ts';
import { utcDateTime } from '../time.ts';
import { gatewayState, read, type Reading } from './readings.ts';

const POLL_MS = 5_000;
const SAMPLES = 60;

function ServiceCard({ name, reading }: { name: string; reading: Reading<ServiceHealth> | undefined }) {
  const ready = reading?.ok && reading.value.status === 'ok';
  return (
    <section class={`card health ${reading ? (ready ? 'ready' : 'down') : ''}`} aria-label={`${name} readiness`}>
      <h2>{name}</h2>
      <p class="state">{!reading ? 'checking…' : ready ? 'ready' : 'not ready'}</p>
      {reading?.ok && reading.value.checks && (
        <ul>{Object.entries(reading.value.checks).map(([check, state]) => <li key={check}>{check}: {state}</li>)}</ul>
      )}
      {reading && !reading.ok && <p class="muted">{reading.reason}</p>}
    </section>
  );
}

/** Health: each service's readiness, the stat consumer's lag, event rate and dead letters, polled. */
export function HealthPage({ session }: { session: Session }) {
  const { api } = session;
  const [friendship, setFriendship] = useState<Reading<ServiceHealth>>();
  const [tasks, setTasks] = useState<Reading<PipelineHealth>>();
  const [stored, setStored] = useState<Sample[]>([]);
  const [lag, setLag] = useState<Sample[]>([]);
  usePoll(async (live) => {
    const [f, t] = await Promise.all([
      read(ok(api.GET('/api/v1/friendship/admin/health'))),
      read(ok(api.GET('/api/v1/admin/health'))),
    ]);
    if (!live()) return;
    setFriendship(f);
    setTasks(t);
    const at = Date.now();
    if (t.ok && t.value.stream) setStored((s) => keepLast(s, { at, value: t.value.stream!.lastSequence }, SAMPLES));
    if (t.ok && t.value.consumer) setLag((s) => keepLast(s, { at, value: t.value.consumer!.pending }, SAMPLES));
    // an API that asks for room, or no answer, slows the polls down (usePoll)
    for (const r of [f, t]) if (!r.ok && failureKind(r.error) === 'unavailable') throw r.error;
  }, POLL_MS, []);
  const pipeline = tasks?.ok ? tasks.value : null;
  const gateway = gatewayState([friendship, tasks]);
  return (
    <div class="page">
      <h1>Health</h1>
      <div class="grid">
        <section class={`card health ${gateway === 'ready' ? 'ready' : gateway === 'unreachable' ? 'down' : ''}`} aria-label="gateway readiness">
          <h2>gateway</h2>
          <p class="state">{gateway === 'ready' ? 'ready' : gateway === 'unreachable' ? 'not reachable' : 'checking…'}</p>
          {gateway !== 'checking' && <p class="muted">{gateway === 'ready' ? 'It answered these calls.' : 'No call got an answer from it.'}</p>}
        </section>
        <ServiceCard name="friendship" reading={friendship} />
        <ServiceCard name="tasks" reading={tasks as Reading<ServiceHealth> | undefined} />
      </div>
      <section aria-labelledby="pipeline-heading">
        <h2 id="pipeline-heading">Stat pipeline</h2>
        {pipeline ? (
          <dl class="figures">
            <dt>Consumer lag (undelivered events)</dt><dd data-testid="lag">{pipeline.consumer?.pending ?? 'unknown'}</dd>
            <dt>Delivered, not yet acknowledged</dt><dd>{pipeline.consumer?.ackPending ?? 'unknown'}</dd>
            <dt>Redelivered, pending</dt><dd>{pipeline.consumer?.redelivered ?? 'unknown'}</dd>
            <dt>Events kept in the stream</dt><dd>{pipeline.stream?.messages ?? 'unknown'}</dd>
            <dt>Last event stored</dt><dd>{pipeline.stream?.lastEventAt ? utcDateTime(pipeline.stream.lastEventAt) : 'none'}</dd>
            <dt>Dead letters (your application)</dt><dd>{pipeline.deadLetters ?? 'unknown'} {pipeline.deadLetters ? <a href="#/dead-letters">see them</a> : null}</dd>
          </dl>
        ) : <p class="muted">{tasks && !tasks.ok ? tasks.reason : 'checking…'}</p>}
        <div class="grid charts">
          <Chart title="Stat events stored per second (all applications)" points={ratePerSecond(stored)} unit="/s" />
          <Chart title="Consumer lag (events)" points={lag} />
        </div>
      </section>
    </div>
  );
}
