import { useState } from 'preact/hooks';
import { ApiProblem, ok } from '../api/client.ts';
import { ProblemView } from '../components/problem.tsx';
import { isGamerId } from '../gamer-id.ts';
import { latestCalls } from '../latest-call.ts';
import { usePoll, useSingleFlight } from '../hooks.ts';
import { Progress } from '../components/progress.tsx';
import type { GamerProgress, GamerRelations, GamerTask, Session, UserSummary } from '../session.ts';
import { utcDateTime } from '../time.ts';
import { listSize } from './list-size.ts';

const REFRESH_MS = 2_000;
// entries of each of a gamer's lists (AdminListQuery: default 50, at most 200); no total comes with them
const LIST_LIMIT = 50;
// search results (AdminGamerSearchQuery: default 20, at most 50)
const SEARCH_LIMIT = 50;

function TaskTable({ caption, tasks }: { caption: string; tasks: GamerTask[] }) {
  if (tasks.length === 0) return <p class="muted">No {caption.toLowerCase()}.</p>;
  const rows = tasks.flatMap((t) => [{ t, child: false }, ...((t as GamerTask & { childTasks?: GamerTask[] }).childTasks ?? []).map((c) => ({ t: c, child: true }))]);
  return (
    <table>
      <caption>{caption}</caption>
      <thead><tr><th scope="col">Task</th><th scope="col">Family</th><th scope="col">Progress</th><th scope="col">Games</th><th scope="col">State</th><th scope="col">Expires</th></tr></thead>
      <tbody>
        {rows.map(({ t, child }) => {
          const target = t.task.children.length > 0 ? t.task.children.length : t.task.targetValue;
          return (
            <tr key={t.id} class={child ? 'child' : ''} data-task-id={t.task.id}>
              <th scope="row">{child ? '↳ ' : ''}{t.task.name}<span class="muted"> · {t.task.applicationStatsId}</span></th>
              <td>{t.task.family}</td>
              <td><Progress value={t.progress} target={target} label={`${t.task.name} progress`} /></td>
              <td>{t.gamesPlayed}{t.task.numberOfGames > 0 ? ` / ${t.task.numberOfGames}` : ''}</td>
              <td>{t.claimed ? 'claimed' : t.completed ? 'completed' : 'in progress'}</td>
              <td>{t.expiredAt ? utcDateTime(t.expiredAt) : 'never'}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** One of the gamer's lists; `limit`: the most the API answers (none: the whole list). */
function People({ title, people, limit = Infinity }: { title: string; people: { key: string; user: UserSummary; note?: string }[]; limit?: number }) {
  return (
    <section aria-label={title} class="card">
      <h3>{title} <span class="count">({listSize(people.length, limit)})</span></h3>
      {people.length === 0 ? <p class="muted">None.</p> : (
        <ul>{people.map((p) => <li key={p.key}><a href={`#/gamer/${p.user.id}`}>{p.user.displayName || p.user.id}</a>{p.note ? <span class="muted"> {p.note}</span> : null}</li>)}</ul>
      )}
    </section>
  );
}

const RESET_SCOPES = [
  { scope: 'tasks', label: 'Tasks', what: 'progress and unclaimed completions of assigned tasks; claimed ones and rewards stay' },
  { scope: 'achievements', label: 'Achievements', what: 'progress and unclaimed completions of achievements; claimed ones and rewards stay' },
  { scope: 'all', label: 'Everything', what: 'all tasks and achievements, claimed ones too, and the inventory' },
] as const;
type ResetScope = (typeof RESET_SCOPES)[number]['scope'];

/** Reset the gamer's progress (support cases): pick a scope, then confirm it; the API's answer is shown. */
function ResetProgress({ session, gamerId }: { session: Session; gamerId: string }) {
  const [scope, setScope] = useState<ResetScope>('tasks');
  const [confirming, setConfirming] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [resetting, whileResetting] = useSingleFlight();
  const chosen = RESET_SCOPES.find((s) => s.scope === scope)!;
  // one reset at a time: a double click on Confirm reset sends one request
  const reset = () => whileResetting(async () => {
    setError(null);
    try {
      const done = await ok(session.api.POST('/api/v1/{applicationId}/gamers/{gamerId}/progress/reset', {
        params: { path: { applicationId: session.claims.app, gamerId } }, body: { scope },
      }));
      setResult(`Reset (${done.scope}): ${done.tasksRemoved} tasks and ${done.inventoryItemsRemoved} inventory items removed.`);
    } catch (e) {
      setError(e);
    } finally {
      setConfirming(false);
    }
  });
  return (
    <section aria-labelledby="reset-heading" class="card">
      <h2 id="reset-heading">Reset progress</h2>
      <ProblemView error={error} />
      <form class="inline" onSubmit={(e) => { e.preventDefault(); setResult(null); setConfirming(true); }}>
        <label>Scope{' '}
          <select value={scope} onChange={(e) => { setScope(e.currentTarget.value as ResetScope); setConfirming(false); }}>
            {RESET_SCOPES.map((s) => <option key={s.scope} value={s.scope}>{s.label}</option>)}
          </select>
        </label>
        {!confirming && <button type="submit">Reset…</button>}
      </form>
      <p class="muted">Removes {chosen.what}.</p>
      {confirming && (
        <p role="alert">
          Reset {chosen.label.toLowerCase()} of this gamer? This cannot be undone.{' '}
          <button type="button" class="danger" onClick={() => void reset()} disabled={resetting}>Confirm reset</button>{' '}
          <button type="button" onClick={() => setConfirming(false)} disabled={resetting}>Cancel</button>
        </p>
      )}
      {result && <p role="status">{result}</p>}
    </section>
  );
}

function GamerView({ session, gamerId }: { session: Session; gamerId: string }) {
  const { api } = session;
  const [relations, setRelations] = useState<GamerRelations | null | undefined>(undefined);
  const [progress, setProgress] = useState<GamerProgress | null>(null);
  const [error, setError] = useState<unknown>(null);
  // progress moves with every stat event: the view follows it
  usePoll(async (live) => {
    try {
      const [rel, prog] = await Promise.all([
        ok(api.GET('/api/v1/friendship/admin/gamers/{gamerId}', { params: { path: { gamerId }, query: { limit: LIST_LIMIT } } })).catch((e) => {
          // a gamer who never used friendship still has tasks
          if (e instanceof ApiProblem && e.status === 404) return null;
          throw e;
        }),
        ok(api.GET('/api/v1/admin/gamers/{gamerId}', { params: { path: { gamerId } } })),
      ]);
      if (!live()) return;
      setRelations(rel);
      setProgress(prog);
      setError(null);
    } catch (e) {
      if (live()) setError(e);
      throw e;
    }
  }, REFRESH_MS, [gamerId]);

  const unknown = relations === null && progress && progress.tasks.length === 0 && progress.achievements.length === 0 && progress.inventory.length === 0;
  return (
    <div>
      <ProblemView error={error} />
      <section aria-labelledby="profile-heading" class="card">
        <h2 id="profile-heading">{relations?.profile.displayName || 'Gamer'}</h2>
        <dl>
          <dt>Gamer id</dt><dd><code>{gamerId}</code></dd>
          {relations && <><dt>Avatar</dt><dd>{relations.profile.avatar || <span class="muted">none</span>}</dd></>}
        </dl>
        {unknown && <p class="muted">Neither service knows this gamer in your application.</p>}
      </section>
      {relations && (
        <div class="grid">
          <People title="Friends" people={relations.friends.map((f) => ({ key: f.id, user: f.user }))} limit={LIST_LIMIT} />
          <People title="Incoming requests" people={relations.incoming.map((f) => ({ key: f.id, user: f.user }))} limit={LIST_LIMIT} />
          <People title="Outgoing requests" people={relations.outgoing.map((f) => ({ key: f.id, user: f.user }))} limit={LIST_LIMIT} />
          <People title="Blocks" people={relations.blocked.map((b) => ({ key: b.id, user: b.toGamer }))} limit={LIST_LIMIT} />
          <People title="Blocked by" people={relations.blockedBy.map((u) => ({ key: u.id, user: u }))} limit={LIST_LIMIT} />
        </div>
      )}
      {progress && (
        <>
          <section aria-labelledby="tasks-heading">
            <h2 id="tasks-heading">Current tasks</h2>
            <TaskTable caption="Tasks" tasks={progress.tasks} />
          </section>
          <section aria-labelledby="achievements-heading">
            <h2 id="achievements-heading">Achievements</h2>
            <TaskTable caption="Achievements" tasks={progress.achievements} />
          </section>
          <section aria-labelledby="inventory-heading">
            <h2 id="inventory-heading">Inventory</h2>
            {progress.inventory.length === 0 ? <p class="muted">Empty.</p> : (
              <table>
                <caption>Inventory items</caption>
                <thead><tr><th scope="col">Item</th><th scope="col">Quantity</th></tr></thead>
                <tbody>{progress.inventory.map((i) => <tr key={i.inventoryItemId}><th scope="row"><code>{i.inventoryItemId}</code></th><td>{i.quantity}</td></tr>)}</tbody>
              </table>
            )}
          </section>
          <ResetProgress session={session} gamerId={gamerId} />
        </>
      )}
    </div>
  );
}

/** Gamer: find by display-name prefix or id, then everything both services hold of them. */
export function GamerPage({ session, gamerId }: { session: Session; gamerId: string | undefined }) {
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<UserSummary[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [calls] = useState(latestCalls);
  const search = async (event: Event) => {
    event.preventDefault();
    setError(null);
    const isLatest = calls.begin();
    const text = query.trim();
    if (isGamerId(text)) {
      location.hash = `#/gamer/${text.toLowerCase()}`;
      return;
    }
    try {
      const answer = await ok(session.api.GET('/api/v1/friendship/admin/gamers', { params: { query: { displayName: text, limit: SEARCH_LIMIT } } }));
      if (isLatest()) setFound(answer);
    } catch (e) {
      if (isLatest()) setError(e);
    }
  };
  return (
    <div class="page">
      <h1>Gamer</h1>
      <form class="inline" role="search" onSubmit={search}>
        <label>Display-name prefix or gamer id <input value={query} onInput={(e) => setQuery(e.currentTarget.value)} /></label>
        <button type="submit" class="primary">Find</button>
      </form>
      <ProblemView error={error} />
      {found && (
        <section aria-label="Search results">
          {found.length === 0 ? <p class="muted">Nobody found.</p> : (
            <ul class="results">{found.map((g) => <li key={g.id}><a href={`#/gamer/${g.id}`}>{g.displayName}</a> <code class="muted">{g.id}</code></li>)}</ul>
          )}
          {found.length >= SEARCH_LIMIT && <p class="muted">The first {SEARCH_LIMIT} matches only: type more of the name to narrow the search.</p>}
        </section>
      )}
      {gamerId && (isGamerId(gamerId)
        ? <GamerView key={gamerId} session={session} gamerId={gamerId} />
        : <p role="status">“{gamerId}” is not a gamer id (a UUID): nothing to show.</p>)}
    </div>
  );
}
