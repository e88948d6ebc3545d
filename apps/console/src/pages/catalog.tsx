import { useEffect, useState } from 'preact/hooks';
import { ok } from '../api/client.ts';
import { ProblemView } from '../components/problem.tsx';
import { useSingleFlight } from '../hooks.ts';
import { FAMILIES, type ApplicationTask, type Family, type Season, type Session } from '../session.ts';
import { utcDateTime } from '../time.ts';
import { seasonEndChange, seasonInput } from './season-form.ts';
import { byFamily, createBody, emptyChild, emptyForm, formOf, patchBody, type TaskForm } from './task-form.ts';

function TaskRow({ task, onEdit, onDelete, busy }: { task: ApplicationTask; onEdit: (t: ApplicationTask) => void; onDelete: (t: ApplicationTask) => void; busy: boolean }) {
  return (
    <li class="task">
      <div class="task-head">
        <strong>{task.name}</strong>
        {task.isAchievement && <span class="tag">achievement</span>}
        {task.children.length > 0 && <span class="tag">composite</span>}
        <span class="muted">
          {task.applicationStatsId} ≥ {task.targetValue}{task.numberOfGames > 0 ? ` within ${task.numberOfGames} games` : ''}
          {task.rewards.length > 0 ? ` · rewards: ${task.rewards.map((r) => `${r.quantity}× ${r.inventoryItemId.slice(0, 8)}`).join(', ')}` : ''}
        </span>
        <span class="actions">
          {/* not while a save runs: its success empties the form, and an edit chosen meanwhile was lost */}
          <button type="button" onClick={() => onEdit(task)} disabled={busy} aria-label={`Edit ${task.name}`}>Edit</button>
          <button type="button" class="danger" onClick={() => onDelete(task)} disabled={busy} aria-label={`Delete ${task.name}`}>Delete</button>
        </span>
      </div>
      {task.description && <p class="muted">{task.description}</p>}
      {task.children.length > 0 && (
        <ul class="children">
          {task.children.map((c) => (
            <li key={c.id}>{c.name} <span class="muted">{c.applicationStatsId} ≥ {c.targetValue}</span></li>
          ))}
        </ul>
      )}
    </li>
  );
}

function SeasonSettings({ session }: { session: Session }) {
  const { api, claims } = session;
  const [season, setSeason] = useState<Season | null>(null);
  const [endsAt, setEndsAt] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState('');
  // one save at a time: a double click sent two PUTs
  const [saving, whileSaving] = useSingleFlight();
  useEffect(() => {
    ok(api.GET('/api/v1/{applicationId}/season', { params: { path: { applicationId: claims.app } } })).then((s) => {
      setSeason(s);
      setEndsAt(seasonInput(s.endsAt));
    }, setError);
  }, [claims.app]);
  const save = (event: Event) => {
    event.preventDefault();
    return whileSaving(async () => {
      setError(null);
      setSaved('');
      const change = seasonEndChange(season?.endsAt ?? null, endsAt);
      if (change.kind === 'unchanged') return setSaved('Nothing changed.');
      try {
        const stored = await ok(api.PUT('/api/v1/{applicationId}/season', { params: { path: { applicationId: claims.app } }, body: { endsAt: change.endsAt } }));
        setSeason(stored);
        setEndsAt(seasonInput(stored.endsAt));
        setSaved('Saved.');
      } catch (e) {
        setError(e);
      }
    });
  };
  return (
    <section aria-labelledby="season-heading">
      <h2 id="season-heading">Season</h2>
      <p class="muted">Seasonal tasks assigned from now on expire at the season end{season ? ` (now ${utcDateTime(season.endsAt)}, ${season.source === 'admin' ? 'set by an admin' : 'end of the quarter until set'})` : ''}.</p>
      <form class="inline" onSubmit={save}>
        <label>Season ends (UTC) <input type="datetime-local" step={1} value={endsAt} onInput={(e) => setEndsAt(e.currentTarget.value)} /></label>
        <button type="submit" disabled={saving}>Save season</button>
        {saved && <span role="status">{saved}</span>}
      </form>
      <ProblemView error={error} />
    </section>
  );
}

/** Catalog: tasks and achievements by family; create, edit, delete through the catalog API. */
export function CatalogPage({ session }: { session: Session }) {
  const { api, claims } = session;
  // null until the first load answered: "No tasks yet." only when known
  const [tasks, setTasks] = useState<ApplicationTask[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [form, setForm] = useState<TaskForm>(emptyForm());
  const [editing, setEditing] = useState<ApplicationTask | null>(null);
  const [formError, setFormError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  const [saving, whileSaving] = useSingleFlight();
  const path = { params: { path: { applicationId: claims.app } } };

  const load = async () => {
    try {
      const [plain, achievements] = await Promise.all([
        ok(api.GET('/api/v1/{applicationId}/tasks', path)),
        ok(api.GET('/api/v1/{applicationId}/tasks', { params: { ...path.params, query: { isAchievement: true } } })),
      ]);
      setTasks([...plain, ...achievements]);
      setLoadError(null);
    } catch (e) {
      setLoadError(e);
    }
  };
  useEffect(() => void load(), [claims.app]);

  const update = (patch: Partial<TaskForm>) => setForm((f) => ({ ...f, ...patch }));
  // one save at a time: a double click must not create the task twice
  const submit = (event: Event) => {
    event.preventDefault();
    return whileSaving(async () => {
      setFormError(null);
      setNotice('');
      try {
        if (editing) {
          const body = patchBody(editing, form);
          // the contract's patch names at least one field: an empty one was a 400 that kept
          // the form open on a save that had nothing to do
          if (Object.keys(body).length === 0) {
            setNotice(`Nothing changed in “${editing.name}”.`);
            setForm(emptyForm());
            setEditing(null);
            return;
          }
          const saved = await ok(api.PATCH('/api/v1/{applicationId}/tasks/{taskId}', { params: { path: { applicationId: claims.app, taskId: editing.id } }, body }));
          setNotice(`Saved “${saved.name}”.`);
        } else {
          const created = await ok(api.POST('/api/v1/{applicationId}/tasks', { ...path, body: createBody(form) as never /* openapi-fetch narrows parentTaskId: null to undefined; the body is the contract's */ }));
          setNotice(`Created “${created.name}”.`);
        }
        setForm(emptyForm());
        setEditing(null);
        await load();
      } catch (e) {
        setFormError(e);
      }
    });
  };
  const edit = (task: ApplicationTask) => {
    setEditing(task);
    setForm(formOf(task));
    setFormError(null);
    setNotice('');
  };
  // one save or delete at a time: a second click on Delete before the list reloaded sent a
  // second DELETE, whose 404 showed as an error for a delete that worked
  const remove = (task: ApplicationTask) => whileSaving(async () => {
    if (!confirm(`Delete “${task.name}”${task.children.length ? ' and its children' : ''}? Gamers holding it keep it.`)) return;
    try {
      await ok(api.DELETE('/api/v1/{applicationId}/tasks/{taskId}', { params: { path: { applicationId: claims.app, taskId: task.id } } }));
      setNotice(`Deleted “${task.name}”.`);
      await load();
    } catch (e) {
      setLoadError(e);
    }
  });

  const groups = byFamily(tasks ?? []);
  return (
    <div class="page">
      <h1>Catalog</h1>
      <ProblemView error={loadError} />
      {notice && <p role="status" class="notice">{notice}</p>}
      <div class="columns">
        <section aria-labelledby="list-heading">
          <h2 id="list-heading">Tasks and achievements</h2>
          {tasks === null && !loadError && <p class="muted">Loading…</p>}
          {tasks !== null && groups.length === 0 && <p class="muted">No tasks yet.</p>}
          {groups.map(([family, list]) => (
            <section key={family} aria-label={`${family} tasks`}>
              <h3>{family}</h3>
              <ul class="tasks">{list.map((t) => <TaskRow key={t.id} task={t} onEdit={edit} onDelete={(task) => void remove(task)} busy={saving} />)}</ul>
            </section>
          ))}
        </section>
        <section aria-labelledby="form-heading">
          <h2 id="form-heading">{editing ? `Edit “${editing.name}”` : 'New task'}</h2>
          <form class="task-form" onSubmit={submit}>
            {/* read-only while a save runs: its success empties the form, and what was typed meanwhile was lost */}
            <fieldset class="fields" disabled={saving}>
            <label>Name <input value={form.name} onInput={(e) => update({ name: e.currentTarget.value })} /></label>
            <label>Description <textarea value={form.description} onInput={(e) => update({ description: e.currentTarget.value })} /></label>
            <label>Family
              <select value={form.family} onChange={(e) => update({ family: e.currentTarget.value as Family })}>
                {FAMILIES.map((f) => <option key={f} value={f}>{f}</option>)}
              </select>
            </label>
            <label class="check"><input type="checkbox" checked={form.isAchievement} disabled={editing !== null} onChange={(e) => update({ isAchievement: e.currentTarget.checked })} /> Achievement (always lifetime{editing ? '; fixed once created' : ''})</label>
            <label>Stat <input value={form.applicationStatsId} onInput={(e) => update({ applicationStatsId: e.currentTarget.value })} /></label>
            <label>Target value <input inputMode="numeric" value={form.targetValue} onInput={(e) => update({ targetValue: e.currentTarget.value })} /></label>
            <label>Within games (0: no limit) <input inputMode="numeric" value={form.numberOfGames} onInput={(e) => update({ numberOfGames: e.currentTarget.value })} /></label>
            <fieldset>
              <legend>Rewards</legend>
              {form.rewards.map((r, i) => (
                <div class="row" key={i}>
                  <label>Item id <input value={r.inventoryItemId} onInput={(e) => update({ rewards: form.rewards.map((x, j) => (j === i ? { ...x, inventoryItemId: e.currentTarget.value } : x)) })} /></label>
                  <label>Quantity <input inputMode="numeric" value={r.quantity} onInput={(e) => update({ rewards: form.rewards.map((x, j) => (j === i ? { ...x, quantity: e.currentTarget.value } : x)) })} /></label>
                  <button type="button" onClick={() => update({ rewards: form.rewards.filter((_, j) => j !== i) })}>Remove reward {i + 1}</button>
                </div>
              ))}
              <button type="button" onClick={() => update({ rewards: [...form.rewards, { inventoryItemId: crypto.randomUUID(), quantity: '1' }] })}>Add reward</button>
            </fieldset>
            {!editing && (
              <fieldset>
                <legend>Child tasks (two or more make a composite)</legend>
                {form.children.map((c, i) => (
                  <div class="row" key={i}>
                    <label>Child {i + 1} name <input value={c.name} onInput={(e) => update({ children: form.children.map((x, j) => (j === i ? { ...x, name: e.currentTarget.value } : x)) })} /></label>
                    <label>Child {i + 1} stat <input value={c.applicationStatsId} onInput={(e) => update({ children: form.children.map((x, j) => (j === i ? { ...x, applicationStatsId: e.currentTarget.value } : x)) })} /></label>
                    <label>Child {i + 1} target <input inputMode="numeric" value={c.targetValue} onInput={(e) => update({ children: form.children.map((x, j) => (j === i ? { ...x, targetValue: e.currentTarget.value } : x)) })} /></label>
                    <button type="button" onClick={() => update({ children: form.children.filter((_, j) => j !== i) })}>Remove child {i + 1}</button>
                  </div>
                ))}
                <button type="button" onClick={() => update({ children: [...form.children, emptyChild()] })}>Add child task</button>
              </fieldset>
            )}
            </fieldset>
            <div class="row">
              <button type="submit" class="primary" disabled={saving}>{editing ? 'Save changes' : 'Create task'}</button>
              {editing && <button type="button" onClick={() => { setEditing(null); setForm(emptyForm()); setFormError(null); }}>Cancel</button>}
            </div>
            <ProblemView error={formError} />
          </form>
        </section>
      </div>
      <SeasonSettings session={session} />
    </div>
  );
}
