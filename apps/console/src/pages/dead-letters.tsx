import { useEffect, useState } from 'preact/hooks';
import { answerLost, ApiProblem, ok } from '../api/client.ts';
import { nextAfter } from '../api/next-page.ts';
import { countPerBucket } from '../charts/series.ts';
import { Chart } from '../components/chart.tsx';
import { ProblemView } from '../components/problem.tsx';
import { isGamerId } from '../gamer-id.ts';
import { useSingleFlight } from '../hooks.ts';
import type { DeadLetter, Session } from '../session.ts';
import { utcDateTime } from '../time.ts';

const HOUR = 3_600_000;
const PAGE = 200;

function pretty(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}

/** Dead letters: what the stat consumer gave up on; replay (same eventId) or delete. */
export function DeadLettersPage({ session }: { session: Session }) {
  const { api } = session;
  const [letters, setLetters] = useState<DeadLetter[] | null>(null);
  // where the next page starts; undefined: every letter is shown
  const [after, setAfter] = useState<number | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  // where the next Replay all goes on (the last call's `after` while more remain): letters
  // whose replay failed stay, and a call from the oldest would try them again first
  const [replayFrom, setReplayFrom] = useState<number | undefined>(undefined);
  // one thing at a time (a page load, a replay, a delete): Show more must not append a page
  // to a list being replaced, and a letter is not acted on twice
  const [busy, run] = useSingleFlight();

  /** A page of letters, oldest first: the first, or the one after `from`. */
  const page = async (from?: number) => {
    const { data, error: problem, response } = await api.GET('/api/v1/admin/dead-letters', { params: { query: { limit: PAGE, ...(from !== undefined ? { after: from } : {}) } } });
    if (!response.ok || !data) throw new ApiProblem(response.status, (problem as object | undefined) ?? { title: response.statusText });
    return { letters: data, after: nextAfter(response.headers.get('link')) };
  };
  const firstPage = async () => {
    try {
      const first = await page();
      setLetters(first.letters);
      setAfter(first.after);
      setError(null);
    } catch (e) {
      setError(e);
    }
  };
  const load = () => run(firstPage);
  const more = () => run(async () => {
    try {
      const next = await page(after);
      setLetters((shown) => [...(shown ?? []), ...next.letters]);
      setAfter(next.after);
      setError(null);
    } catch (e) {
      setError(e);
    }
  });
  useEffect(() => void load(), []);

  /** Acts on one letter; done, the letter leaves the list in place, so what Show more loaded stays. */
  const act = (letter: DeadLetter, work: () => Promise<string>) => run(async () => {
    setNotice('');
    try {
      setNotice(await work());
      setError(null);
      setLetters((shown) => shown && shown.filter((l) => l.sequence !== letter.sequence));
    } catch (e) {
      setError(e);
    }
  });
  const replay = (letter: DeadLetter) => act(letter, async () => {
    const result = await ok(api.POST('/api/v1/admin/dead-letters/{sequence}/replay', { params: { path: { sequence: letter.sequence } } }));
    return `Replayed dead letter ${result.sequence}${result.eventId ? ` (event ${result.eventId})` : ''}.`;
  });
  /**
   * How many Replay all would replay: the application's count now (null: unknown), never the
   * loaded list's length, which may be long out of date (until 2026-11-28 it was asked "1
   * dead letter?" and then replayed the hundreds that came since).
   */
  const letterCount = async (): Promise<number | null> => (await ok(api.GET('/api/v1/admin/health'))).deadLetters;
  const replayAll = () => run(async () => {
    setNotice('');
    let count: number | null;
    try {
      count = await letterCount();
    } catch (e) {
      // nothing was asked or sent: a plain failure, whatever its kind
      setError(e);
      return;
    }
    const held = count === null ? null : `${count} dead letter${count === 1 ? '' : 's'}`;
    // a run going on after the last one: it skips what that one tried (its failures stay), so
    // it is not "all, oldest first" (until 2026-11-29 it said so)
    const what = replayFrom !== undefined
      ? `the dead letters after number ${replayFrom}, where the last Replay all stopped${held === null ? '' : ` (the application holds ${held} now, those it could not replay included, which stay)`}`
      : held === null ? 'every dead letter of the application, oldest first' : `the ${held} the application holds now, oldest first`;
    if (!confirm(`Replay ${what}? Each event is published again, with its eventId. One call replays up to its limit; if more remain you will be told.`)) return;
    try {
      const result = await ok(api.POST('/api/v1/admin/dead-letters/replay', { params: { query: replayFrom !== undefined ? { after: replayFrom } : {} } }));
      // at most DEAD_LETTER_REPLAY_ALL_MAX per call, within its time budget: the rest waits
      // for another click, which goes on after the last letter this one tried
      setReplayFrom(result.more ? result.after : undefined);
      setNotice(`Replayed ${result.replayed.length} dead letter(s)${result.failed.length ? `, ${result.failed.length} failed (kept)` : ''}.${result.more ? ' More remain: Replay all again goes on after them.' : ''}`);
      setError(null);
    } catch (e) {
      // the service replays one by one; past the gateway's upstream timeout the gateway
      // answers 504 while the replays go on: clicking again would only start another run
      if (answerLost(e)) {
        setNotice('The answer did not come in time: the replay may still be running. The list below is reloaded; refresh again in a moment.');
        setError(null);
        // the letters shown may be being replayed: acting on them would answer 404
        await firstPage();
      } else {
        setError(e);
      }
      return;
    }
    await firstPage();
  });
  const remove = async (letter: DeadLetter) => {
    // cancelled, nothing changes
    if (!confirm(`Delete dead letter ${letter.sequence}? Its game will never count.`)) return;
    await act(letter, async () => {
      await ok(api.DELETE('/api/v1/admin/dead-letters/{sequence}', { params: { path: { sequence: letter.sequence } } }));
      return `Deleted dead letter ${letter.sequence}.`;
    });
  };

  return (
    <div class="page">
      <h1>Dead letters</h1>
      <p class="muted">Stat events the consumer gave up on. A replay publishes the event again unchanged: same eventId, so a game never counts twice.</p>
      <ProblemView error={error} />
      {notice && <p role="status" class="notice">{notice}</p>}
      {/* the list comes oldest first: until the last page is in, the newest letters may be missing, and a current flood would show as empty hours */}
      {letters && (after === undefined
        ? <Chart title="Dead letters per hour, last 24 hours" kind="bars" points={countPerBucket(letters.map((l) => l.deadLetteredAt), Date.now(), HOUR, 24)} />
        : <p class="muted">Dead letters per hour: the chart appears once every letter is loaded (Show more), as the list comes oldest first.</p>)}
      <div class="row">
        <button type="button" onClick={() => void load()} disabled={busy}>Refresh</button>
        <button type="button" class="primary" onClick={() => void replayAll()} disabled={busy || (!letters?.length && after === undefined)}>Replay all</button>
      </div>
      {letters && letters.length === 0 && (after === undefined
        ? <p class="muted">No dead letters.</p>
        : <p class="muted">Every letter shown was replayed or deleted; more are waiting (Show more).</p>)}
      {letters && letters.length > 0 && (
        <table class="letters">
          <caption>{letters.length} dead letter(s), oldest first{after !== undefined ? '; more with Show more' : ''}</caption>
          <thead><tr><th scope="col">#</th><th scope="col">When</th><th scope="col">Reason</th><th scope="col">Event</th><th scope="col">Deliveries</th><th scope="col">Actions</th></tr></thead>
          <tbody>
            {letters.map((l) => (
              <tr key={l.sequence} data-sequence={l.sequence}>
                <th scope="row">{l.sequence}</th>
                <td>{utcDateTime(l.deadLetteredAt)}</td>
                <td>
                  {l.reason}
                  {l.errors.length > 0 && <ul class="errors">{l.errors.map((e) => <li key={e}>{e}</li>)}</ul>}
                  <details>
                    <summary>Payload</summary>
                    <pre>{pretty(l.payload)}</pre>
                  </details>
                </td>
                <td>
                  {l.eventId ? <code>{l.eventId}</code> : <span class="muted">no eventId</span>}
                  {l.gamerId && isGamerId(l.gamerId) && <div><a href={`#/gamer/${l.gamerId}`}>gamer</a></div>}
                  {l.requestId && <div class="muted">request <code>{l.requestId}</code></div>}
                </td>
                <td>{l.deliveryCount}</td>
                <td class="actions">
                  <button type="button" onClick={() => void replay(l)} disabled={busy} aria-label={`Replay dead letter ${l.sequence}`}>Replay</button>
                  <button type="button" class="danger" onClick={() => void remove(l)} disabled={busy} aria-label={`Delete dead letter ${l.sequence}`}>Delete</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {after !== undefined && (
        <div class="row">
          <button type="button" onClick={() => void more()} disabled={busy}>Show more</button>
        </div>
      )}
    </div>
  );
}
