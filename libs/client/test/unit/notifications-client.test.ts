// The reconnect-and-resume loop, with a scripted socket standing in for the network; the
// real service is exercised by test/integration.
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BEFORE_EVERY_ID, connectNotifications, NotificationsCallError, NotificationsClient, resumePoint, retryAfterDelay, type NotificationsClientOptions, type WebSocketLike } from '../../src/notifications/client.ts';
import type { Notification } from '../../src/notifications/messages.ts';

class ScriptedSocket implements WebSocketLike {
  static made: ScriptedSocket[] = [];
  onopen: WebSocketLike['onopen'] = null;
  onmessage: WebSocketLike['onmessage'] = null;
  onclose: WebSocketLike['onclose'] = null;
  onerror: WebSocketLike['onerror'] = null;
  closedWith: number | undefined;
  readonly url: string;
  readonly init: { headers: Record<string, string> } | undefined;
  constructor(url: string, init?: { headers: Record<string, string> }) {
    this.url = url;
    this.init = init;
    ScriptedSocket.made.push(this);
  }
  close(code?: number): void {
    this.closedWith = code;
  }
  open() {
    this.onopen?.({});
  }
  /** what the client sent */
  readonly sent: string[] = [];
  send(data: string): void {
    this.sent.push(data);
  }
  /** a frame from the service */
  deliver(frame: unknown) {
    this.onmessage?.({ data: typeof frame === 'string' ? frame : JSON.stringify(frame) });
  }
  drop(code = 1006, reason = '') {
    this.onclose?.({ code, reason });
  }
}

const at = '2026-11-23T12:00:00.000Z';
const completed = (id: string): Notification => ({ id, type: 'task.completed', at, data: { gamerTaskId: 'g', taskId: 't' } });
// ids as the service makes them: UUIDv7, sorting by creation
const id = (n: number) => `0190a000-0000-7000-8000-${String(n).padStart(12, '0')}`;
const latest = () => ScriptedSocket.made.at(-1)!;
const query = (socket: ScriptedSocket) => Object.fromEntries(new URL(socket.url).searchParams);

/** A fetch answering every request with `status`; openapi-fetch hands it a Request. An error is the gateway's problem+json. */
function answering(status: number, body: unknown = {}) {
  return vi.fn(async (_request: Request) => new Response(JSON.stringify(body), { status, headers: { 'content-type': status < 400 ? 'application/json' : 'application/problem+json' } }));
}

function client(options: Partial<NotificationsClientOptions> = {}) {
  const live = new NotificationsClient({
    baseUrl: 'http://gw.test',
    token: 'tok',
    auth: 'header',
    WebSocket: ScriptedSocket,
    fetch: answering(200, []) as unknown as typeof fetch,
    backoff: { initialDelayMs: 100, maxDelayMs: 1_000, jitter: 0 },
    ...options,
  });
  const seen = { notifications: [] as Notification[], errors: [] as string[], stops: [] as unknown[], retries: [] as (number | undefined)[] };
  live.on('notification', (n) => seen.notifications.push(n));
  live.on('error', (e) => seen.errors.push(e.message));
  live.on('stop', (s) => seen.stops.push(s));
  live.on('disconnect', (d) => seen.retries.push(d.retryInMs));
  return { live, seen };
}

/** Lets the client's awaited steps (token, ticket, probe) run. */
const settle = () => vi.advanceTimersByTimeAsync(0);

describe('notifications client', () => {
  beforeEach(() => {
    ScriptedSocket.made = [];
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it('connects with the bearer header, delivers frames and resumes after the last id', async () => {
    const { live, seen } = client({ resumeOverlapMs: 0 });
    live.start();
    await settle();
    // an empty inbox: the first connect resumes before every id
    expect(latest().url).toBe(`ws://gw.test/api/v1/notifications/live?since=${BEFORE_EVERY_ID}`);
    expect(latest().init).toEqual({ headers: { authorization: 'Bearer tok' } });
    latest().open();
    latest().deliver(completed(id(1)));
    latest().deliver(completed(id(2)));
    latest().drop(1001, 'going away');
    expect(seen.retries).toEqual([100]);
    await vi.advanceTimersByTimeAsync(100);
    expect(ScriptedSocket.made).toHaveLength(2);
    expect(query(latest())).toEqual({ since: id(2) });
    latest().open();
    latest().deliver(completed(id(3)));
    expect(seen.notifications.map((n) => n.id)).toEqual([id(1), id(2), id(3)]);
    expect(live.lastId).toBe(id(3));
    live.close();
  });

  it('starts from a given id, and refuses one that is not an id', async () => {
    const fetch = answering(200, []);
    const { live } = client({ since: id(7), fetch: fetch as unknown as typeof globalThis.fetch });
    live.start();
    await settle();
    expect(query(latest())).toEqual({ since: id(7) });
    expect(fetch).not.toHaveBeenCalled();
    live.close();
    expect(() => client({ since: 'persisted-7' })).toThrow(RangeError);

    // saved in capitals somewhere on the way: compared with the service's lower-case ids
    const shouted = client({ since: id(7).toUpperCase() });
    shouted.live.start();
    await settle();
    expect(query(latest())).toEqual({ since: id(7) });
    shouted.live.close();
  });

  it('says so to a listener added after connectNotifications() started it', async () => {
    const live = connectNotifications({
      baseUrl: 'http://gw.test', token: 'tok', auth: 'header', WebSocket: ScriptedSocket, since: 'e3b0c442-98fc-4c14-9afb-f4c8996fb924',
      fetch: answering(200, [completed(id(5))]) as unknown as typeof fetch,
    });
    const errors: string[] = [];
    live.on('error', (e) => errors.push(e.message));
    await settle();
    expect(errors).toEqual(['since e3b0c442-98fc-4c14-9afb-f4c8996fb924 is not a notification id (a UUIDv7): starting after the inbox\'s newest notification instead']);
    live.close();
  });

  it('starts after the inbox\'s newest, and says so, given a since that is a UUID but no notification id (a v4 sorts by no time)', async () => {
    const fetch = answering(200, [completed(id(5))]);
    const { live, seen } = client({ since: 'e3b0c442-98fc-4c14-9afb-f4c8996fb924', fetch: fetch as unknown as typeof globalThis.fetch });
    live.start();
    await settle();
    expect(seen.errors).toEqual(['since e3b0c442-98fc-4c14-9afb-f4c8996fb924 is not a notification id (a UUIDv7): starting after the inbox\'s newest notification instead']);
    expect(query(latest())).toEqual({ since: id(5) });
    live.close();
  });

  it('resumes after the greatest notification id, not after a newer service\'s frame whose id is another kind of UUID', async () => {
    const { live } = client({ since: id(1), resumeOverlapMs: 0 });
    live.start();
    await settle();
    latest().open();
    latest().deliver({ id: 'ffffffff-ffff-4fff-bfff-ffffffffffff', type: 'party.invite', at, data: {} });
    latest().deliver(completed(id(3)));
    latest().drop(1006);
    await vi.advanceTimersByTimeAsync(100);
    expect(query(latest())).toEqual({ since: id(3) });
    live.close();
  });

  it('without a given id, starts after the inbox\'s newest notification: a drop before the first frame loses nothing', async () => {
    const fetch = answering(200, [completed(id(5))]);
    const { live } = client({ fetch: fetch as unknown as typeof globalThis.fetch });
    live.start();
    await settle();
    const asked = fetch.mock.calls[0]![0];
    expect([asked.method, asked.url]).toEqual(['GET', 'http://gw.test/api/v1/notifications?limit=1']);
    expect(query(latest())).toEqual({ since: id(5) });
    latest().open();
    latest().drop(1006);
    await vi.advanceTimersByTimeAsync(100);
    expect(query(latest())).toEqual({ since: id(5) });
    expect(fetch).toHaveBeenCalledTimes(1);
    live.close();
  });

  it('backs off while connects fail and starts over once one opens', async () => {
    const { live, seen } = client();
    live.start();
    for (const wait of [100, 200, 400, 800, 1_000]) {
      await settle();
      latest().drop();
      await settle(); // the credentials probe
      await vi.advanceTimersByTimeAsync(wait);
    }
    expect(seen.retries).toEqual([100, 200, 400, 800, 1_000]);
    await settle();
    latest().open();
    await vi.advanceTimersByTimeAsync(5_000);
    latest().drop(1001);
    expect(seen.retries.at(-1)).toBe(100);
    live.close();
  });

  it('counts a connection closed soon after it opened as a failed attempt: the delays grow through an outage', async () => {
    const { live, seen } = client();
    live.start();
    for (const wait of [100, 200, 400]) {
      await settle();
      latest().open();
      await vi.advanceTimersByTimeAsync(4_000);
      latest().drop(1011, 'internal error');
      await vi.advanceTimersByTimeAsync(wait);
    }
    expect(seen.retries).toEqual([100, 200, 400]);
    live.close();
  });

  it('waits longer each time the server closes a connection that lasted for its own trouble (1011, 1013), and starts over after another close', async () => {
    // no heartbeat: the scripted socket answers no ping, and one test step keeps a connection 5 minutes
    const { live, seen } = client({ since: id(1), heartbeat: false });
    live.start();
    await settle();
    const lastingThenClosed = async (code: number) => {
      latest().open();
      await vi.advanceTimersByTimeAsync(6_000);
      latest().drop(code, 'try again later');
      await vi.advanceTimersByTimeAsync(seen.retries.at(-1)!);
    };
    for (const code of [1013, 1011, 1013]) await lastingThenClosed(code);
    // a store too slow for the replays is not asked again every 100 ms by every client (before: 100, 100, 100)
    expect(seen.retries).toEqual([100, 200, 400]);
    // a replica's shutdown after that: the schedule starts over
    await lastingThenClosed(1001);
    await lastingThenClosed(1013);
    expect(seen.retries.slice(3)).toEqual([100, 100]);
    // troubles far apart are not in a row: one after a connection healthy for 5 minutes starts over
    await lastingThenClosed(1013);
    latest().open();
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    latest().drop(1011, 'internal error');
    expect(seen.retries.slice(5)).toEqual([200, 100]);
    live.close();
  });

  it('says nothing of an ignored since once closed in the same tick', async () => {
    const live = connectNotifications({
      baseUrl: 'http://gw.test', token: 'tok', auth: 'header', WebSocket: ScriptedSocket, since: 'e3b0c442-98fc-4c14-9afb-f4c8996fb924',
      fetch: answering(200, []) as unknown as typeof fetch,
    });
    const errors: string[] = [];
    live.on('error', (e) => errors.push(e.message));
    live.close();
    await settle();
    expect(errors).toEqual([]);
  });

  it('stops when the token is refused instead of hammering the gateway, saying why', async () => {
    const fetch = answering(401, { code: 'UNAUTHORIZED', title: 'Unauthorized', status: 401, detail: 'token expired' });
    const first = client({ fetch: fetch as unknown as typeof globalThis.fetch });
    const refusals: unknown[] = [];
    first.live.on('error', (e) => refusals.push(e));
    first.live.start();
    await settle();
    // refused when asked where to start: no socket at all, and the problem told (its detail is the developer's aid)
    expect(first.seen.stops).toEqual([{ reason: 'unauthorized' }]);
    expect(refusals).toEqual([expect.objectContaining({ status: 401, problem: expect.objectContaining({ detail: 'token expired' }) })]);
    expect(ScriptedSocket.made).toHaveLength(0);
    fetch.mockClear();
    // refused later (a resume point given): the failed upgrade is followed by a credentials probe
    const { live, seen } = client({ since: id(1), fetch: fetch as unknown as typeof globalThis.fetch });
    live.start();
    await settle();
    latest().drop();
    await settle();
    const probe = fetch.mock.calls[0]![0];
    expect([probe.method, probe.url, probe.headers.get('authorization')]).toEqual(['GET', 'http://gw.test/api/v1/notifications?limit=1', 'Bearer tok']);
    expect(seen.stops).toEqual([{ reason: 'unauthorized' }]);
    expect(seen.errors).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ScriptedSocket.made).toHaveLength(1);
    expect(live.state).toBe('stopped');
  });

  it('in ticket mode, fetches a fresh single-use ticket for every connect', async () => {
    let n = 0;
    const fetch = vi.fn(async (request: Request) => {
      if (request.method === 'GET') return new Response('[]', { status: 200, headers: { 'content-type': 'application/json' } });
      expect([request.method, request.url, request.headers.get('authorization')]).toEqual(['POST', 'http://gw.test/api/v1/notifications/ticket', 'Bearer tok']);
      return new Response(JSON.stringify({ ticket: `t${++n}`, expiresAt: at }), { status: 200, headers: { 'content-type': 'application/json' } });
    });
    const { live } = client({ auth: 'ticket', fetch: fetch as unknown as typeof globalThis.fetch, resumeOverlapMs: 0 });
    live.start();
    await settle();
    expect(query(latest())).toEqual({ since: BEFORE_EVERY_ID, ticket: 't1' });
    expect(latest().init).toBeUndefined();
    latest().open();
    latest().deliver(completed(id(4)));
    latest().drop(1001);
    await vi.advanceTimersByTimeAsync(100);
    expect(query(latest())).toEqual({ since: id(4), ticket: 't2' });
    live.close();
  });

  it('in ticket mode, stops when the ticket is refused', async () => {
    const { live, seen } = client({ auth: 'ticket', since: id(1), fetch: answering(401) as unknown as typeof fetch });
    live.start();
    await settle();
    expect(ScriptedSocket.made).toHaveLength(0);
    expect(seen.stops).toEqual([{ reason: 'unauthorized' }]);
    expect(seen.errors).toHaveLength(1);
  });

  it('asks the token function before every connect', async () => {
    let version = 0;
    const { live } = client({ token: async () => `tok${++version}`, since: id(1) });
    live.start();
    await settle();
    latest().open();
    latest().drop(1001);
    await vi.advanceTimersByTimeAsync(100);
    expect(ScriptedSocket.made.map((s) => s.init?.headers.authorization)).toEqual(['Bearer tok1', 'Bearer tok2']);
    live.close();
  });

  it('close() closes the socket normally and never reconnects', async () => {
    const { live, seen } = client();
    live.start();
    await settle();
    latest().open();
    live.close();
    expect(latest().closedWith).toBe(1000);
    latest().drop(1000);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ScriptedSocket.made).toHaveLength(1);
    expect(seen.stops).toEqual([{ reason: 'closed' }]);
  });

  it('gives up after maxAttempts failed connects in a row, and stops on a configured close code', async () => {
    const { live, seen } = client({ backoff: { initialDelayMs: 10, maxDelayMs: 10, jitter: 0, maxAttempts: 2 } });
    live.start();
    for (let i = 0; i < 3; i++) {
      await settle();
      latest().drop();
      await settle();
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(seen.stops).toEqual([{ reason: 'gave-up' }]);
    expect(ScriptedSocket.made).toHaveLength(2);

    // maxAttempts 1: the first failed connect stops it, with no retry announced
    ScriptedSocket.made.length = 0;
    const once = client({ backoff: { initialDelayMs: 10, maxDelayMs: 10, jitter: 0, maxAttempts: 1 } });
    once.live.start();
    await settle();
    latest().drop();
    await settle();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(once.seen.stops).toEqual([{ reason: 'gave-up' }]);
    expect(ScriptedSocket.made).toHaveLength(1);

    const coded = client({ stopOnCloseCodes: [4000] });
    coded.live.start();
    await settle();
    latest().open();
    latest().drop(4000, 'replaced');
    expect(coded.seen.stops).toEqual([{ reason: 'close-code', code: 4000 }]);
  });

  it('does not count the drop of a connection that lasted toward maxAttempts', async () => {
    const { live, seen } = client({ backoff: { initialDelayMs: 10, maxDelayMs: 10, jitter: 0, maxAttempts: 2, resetAfterMs: 5_000 } });
    live.start();
    await settle();
    latest().open();
    await vi.advanceTimersByTimeAsync(5_000);
    // a deploy closes it after it lasted: a reconnect, which fails, then one more try
    latest().drop(1001);
    await vi.advanceTimersByTimeAsync(10);
    latest().drop();
    await settle();
    await vi.advanceTimersByTimeAsync(10);
    expect(seen.stops).toEqual([]);
    expect(ScriptedSocket.made).toHaveLength(3);
    latest().drop();
    await settle();
    await vi.advanceTimersByTimeAsync(10);
    // two failed connects in a row: given up
    expect(seen.stops).toEqual([{ reason: 'gave-up' }]);

    // maxAttempts 1: a connection that lasted and dropped is still connected again
    ScriptedSocket.made.length = 0;
    const once = client({ backoff: { initialDelayMs: 10, maxDelayMs: 10, jitter: 0, maxAttempts: 1, resetAfterMs: 5_000 } });
    once.live.start();
    await settle();
    latest().open();
    await vi.advanceTimersByTimeAsync(5_000);
    latest().drop(1001);
    await vi.advanceTimersByTimeAsync(10);
    expect(once.seen.stops).toEqual([]);
    expect(ScriptedSocket.made).toHaveLength(2);
    once.live.close();
  });

  it('keeps the problem of a failed call before the connect, waits its Retry-After, and stops on an answer no retry changes', async () => {
    const limited = { type: 'about:blank', title: 'Too Many Requests', status: 429, code: 'RATE_LIMITED', detail: 'slow down', requestId: 'req-1' };
    let answers = 0;
    const fetch429 = vi.fn(async (_request: Request) => {
      answers++;
      return answers === 1
        ? new Response(JSON.stringify(limited), { status: 429, headers: { 'content-type': 'application/problem+json', 'retry-after': '10' } })
        : new Response('[]', { status: 200, headers: { 'content-type': 'application/json' } });
    });
    const errors: unknown[] = [];
    const { live, seen } = client({ fetch: fetch429 as unknown as typeof fetch, backoff: { initialDelayMs: 100, maxDelayMs: 1_000, jitter: 0 } });
    live.on('error', (e) => errors.push(e));
    live.start();
    await settle();
    expect(errors[0]).toBeInstanceOf(NotificationsCallError);
    expect(errors[0]).toMatchObject({ status: 429, retryAfterMs: 10_000, problem: { code: 'RATE_LIMITED', requestId: 'req-1' } });
    // not before Retry-After, whatever the backoff would draw
    expect(seen.retries).toEqual([10_000]);
    await vi.advanceTimersByTimeAsync(9_000);
    expect(answers).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(answers).toBe(2);
    live.close();

    // a gateway without the notifications service: 404, no retry
    ScriptedSocket.made.length = 0;
    const missing = client({ fetch: answering(404, { type: 'about:blank', title: 'Not Found', status: 404, code: 'NOT_FOUND', detail: 'no such route' }) as unknown as typeof fetch });
    missing.live.start();
    await settle();
    expect(missing.seen.stops).toEqual([{ reason: 'refused' }]);
    expect(ScriptedSocket.made).toHaveLength(0);
  });

  it('refuses at construction a base URL no connect could use, and a runtime without WebSocket', () => {
    expect(() => new NotificationsClient({ baseUrl: 'ftp://gw.test', token: 'tok', WebSocket: ScriptedSocket })).toThrow('baseUrl must be http(s) or ws(s), not ftp:');
    const runtime = globalThis as { WebSocket?: unknown };
    const saved = runtime.WebSocket;
    delete runtime.WebSocket;
    try {
      expect(() => new NotificationsClient({ baseUrl: 'http://gw.test', token: 'tok' })).toThrow('no WebSocket in this runtime');
    } finally {
      if (saved !== undefined) runtime.WebSocket = saved;
    }
  });

  it('stops when closed as a gamer\'s oldest socket (4029), resumes after a slow-consumer close (4008)', async () => {
    const { live, seen } = client({ resumeOverlapMs: 0 });
    live.start();
    await settle();
    latest().open();
    latest().deliver(completed(id(1)));
    latest().drop(4008, 'slow consumer');
    await vi.advanceTimersByTimeAsync(100);
    expect(query(latest())).toEqual({ since: id(1) });
    latest().open();
    latest().drop(4029, 'too many sockets');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ScriptedSocket.made).toHaveLength(2);
    expect(seen.stops).toEqual([{ reason: 'close-code', code: 4029 }]);
  });

  it('resumes after the greatest id seen, as ids from two replicas may cross on the way', async () => {
    const { live, seen } = client();
    live.start();
    await settle();
    latest().open();
    latest().deliver(completed(id(2)));
    latest().deliver(completed(id(1)));
    expect(seen.notifications.map((n) => n.id)).toEqual([id(2), id(1)]);
    expect(live.lastId).toBe(id(2));
    live.close();
  });

  it('reports a bad frame and goes on, keeping the resume point', async () => {
    const { live, seen } = client();
    live.start();
    await settle();
    latest().open();
    latest().deliver(completed(id(5)));
    latest().deliver('{"oops"');
    latest().deliver({ id: id(6), type: 'presence.changed', at, data: {} });
    expect(seen.errors).toEqual(['an invalid notification frame: not JSON']);
    // an unknown type is still a notification the service counted: resume after it
    expect(live.lastId).toBe(id(6));
    live.close();
  });

  it('pings an open connection every interval; any frame answers, and no answer in time ends it as dead and reconnects with a resume', async () => {
    const { live, seen } = client({ heartbeat: { intervalMs: 2_000, timeoutMs: 1_000 }, backoff: { initialDelayMs: 100, maxDelayMs: 100, jitter: 0, resetAfterMs: 3_000 } });
    live.start();
    await settle();
    const first = latest();
    first.open();
    await vi.advanceTimersByTimeAsync(1_999);
    expect(first.sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(first.sent).toEqual(['{"type":"ping"}']);
    // the pong answers: not a notification, no error, no new resume point
    first.deliver({ type: 'pong', at });
    await vi.advanceTimersByTimeAsync(1_500);
    expect(seen.retries).toEqual([]);
    expect(seen.errors).toEqual([]);
    // the next ping is answered by a notification instead
    await vi.advanceTimersByTimeAsync(500);
    expect(first.sent).toHaveLength(2);
    first.deliver(completed(id(1)));
    await vi.advanceTimersByTimeAsync(1_999);
    expect(first.sent).toHaveLength(2);
    expect(ScriptedSocket.made).toHaveLength(1);
    // the third gets nothing back within timeoutMs: the connection is dead, whatever its close event does
    await vi.advanceTimersByTimeAsync(1);
    expect(first.sent).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(999);
    expect(seen.retries).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(first.closedWith).toBe(1000);
    expect(seen.retries).toEqual([100]);
    expect(live.state).toBe('waiting');
    // its close event, late, changes nothing
    first.drop(1006);
    expect(seen.retries).toEqual([100]);
    await vi.advanceTimersByTimeAsync(100);
    await settle();
    expect(ScriptedSocket.made).toHaveLength(2);
    // resumed after the notification it had, with the overlap
    expect(query(latest()).since).toBe(resumePoint(id(1), BEFORE_EVERY_ID, 5_000));
    expect(seen.notifications.map((n) => n.id)).toEqual([id(1)]);
    live.close();
  });

  it('stops pinging when closed or dropped, and sends nothing with heartbeat: false', async () => {
    const { live } = client({ heartbeat: { intervalMs: 2_000, timeoutMs: 1_000 } });
    live.start();
    await settle();
    const socket = latest();
    socket.open();
    await vi.advanceTimersByTimeAsync(500);
    socket.drop(1001);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(socket.sent).toEqual([]);
    const next = latest();
    expect(next).not.toBe(socket);
    next.open();
    await vi.advanceTimersByTimeAsync(500);
    live.close();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(next.sent).toEqual([]);

    ScriptedSocket.made.length = 0;
    const silent = client({ heartbeat: false });
    silent.live.start();
    await settle();
    latest().open();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(latest().sent).toEqual([]);
    expect(silent.seen.retries).toEqual([]);
    silent.live.close();
  });

  it('gives up a connect that neither opens nor fails within openTimeoutMs, as a failed attempt', async () => {
    const { live, seen } = client({ openTimeoutMs: 3_000, backoff: { initialDelayMs: 100, maxDelayMs: 100, jitter: 0, maxAttempts: 2 } });
    const errors: string[] = [];
    live.on('disconnect', (d) => errors.push(d.reason));
    live.start();
    await settle();
    const hung = latest();
    await vi.advanceTimersByTimeAsync(2_999);
    expect(seen.retries).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(hung.closedWith).toBe(1000);
    expect(errors).toEqual(['no answer to the connect']);
    expect(seen.retries).toEqual([100]);
    // a late open of the given-up socket is nobody's
    hung.open();
    expect(live.state).toBe('waiting');
    await vi.advanceTimersByTimeAsync(100);
    await settle();
    // the second hangs as well: two failed attempts in a row, given up
    await vi.advanceTimersByTimeAsync(3_000);
    expect(seen.stops).toEqual([{ reason: 'gave-up' }]);
    expect(ScriptedSocket.made).toHaveLength(2);
  });

  it('keeps a connect that opens in time', async () => {
    const { live, seen } = client({ openTimeoutMs: 3_000, heartbeat: false });
    live.start();
    await settle();
    await vi.advanceTimersByTimeAsync(2_000);
    latest().open();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(seen.retries).toEqual([]);
    expect(live.state).toBe('open');
    live.close();
  });

  it('stays stopped when a disconnect listener closes it (a heartbeat or open timeout included)', async () => {
    const { live, seen } = client({ heartbeat: { intervalMs: 2_000, timeoutMs: 1_000 } });
    live.on('disconnect', () => live.close());
    live.start();
    await settle();
    latest().open();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(seen.stops).toEqual([{ reason: 'closed' }]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ScriptedSocket.made).toHaveLength(1);
    expect(live.state).toBe('stopped');
  });

  it('refuses a heartbeat faster than the service answers, or without a timeout', () => {
    // twice the service's pong pace at least
    expect(() => client({ heartbeat: { intervalMs: 1_999 } })).toThrow(RangeError);
    expect(() => client({ heartbeat: { intervalMs: 2_000 } })).not.toThrow();
    expect(() => client({ heartbeat: { timeoutMs: 0 } })).toThrow(RangeError);
    expect(() => client({ openTimeoutMs: Number.NaN })).toThrow(RangeError);
  });

  it('a throwing listener does not break the loop', async () => {
    const { live, seen } = client();
    live.on('notification', () => {
      throw new Error('app bug');
    });
    live.start();
    await settle();
    latest().open();
    latest().deliver(completed('d1'));
    latest().deliver(completed('d2'));
    expect(seen.notifications.map((n) => n.id)).toEqual(['d1', 'd2']);
    expect(seen.errors).toEqual(['app bug', 'app bug']);
    live.close();
  });

  /** A fetch that answers nothing until its request is aborted (a dead path); counts its calls. */
  function unanswered() {
    const calls: Request[] = [];
    const fetch = vi.fn((request: Request) => {
      calls.push(request);
      return new Promise<Response>((_resolve, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason)));
    });
    return { calls, fetch: fetch as unknown as typeof globalThis.fetch };
  }

  it('gives up a call before the connect that gets no answer within openTimeoutMs, and tries again', async () => {
    const dead = unanswered();
    const { live, seen } = client({ auth: 'ticket', since: id(1), fetch: dead.fetch, openTimeoutMs: 2_000 });
    live.start();
    await settle();
    expect(dead.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(seen.retries).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(seen.errors).toEqual(['no answer within openTimeoutMs (2000 ms)']);
    expect(seen.retries).toEqual([100]);
    expect(live.state).toBe('waiting');
    await vi.advanceTimersByTimeAsync(100);
    expect(dead.calls).toHaveLength(2);
    live.close();
  });

  it('gives up a call when the runtime has no AbortSignal.any (Safari before 17.4) as well', async () => {
    const any = AbortSignal.any;
    (AbortSignal as { any?: unknown }).any = undefined;
    try {
      const dead = unanswered();
      const { live, seen } = client({ auth: 'ticket', since: id(1), fetch: dead.fetch, openTimeoutMs: 2_000 });
      live.start();
      await settle();
      await vi.advanceTimersByTimeAsync(2_000);
      expect(seen.errors).toEqual(['no answer within openTimeoutMs (2000 ms)']);
      expect(dead.calls[0]!.signal.aborted).toBe(true);
      expect(seen.retries).toEqual([100]);
      live.close();
    } finally {
      AbortSignal.any = any;
    }
  });

  it('leaves no listener of its calls on its own lasting signal, however many calls it made', async () => {
    // What this pins is the design since 2026-11-28: each call's controller is tied to the
    // client's lasting one by a listener removed after the call. (The leak before it, Node
    // keeping each AbortSignal.any result alive with the fetch's listener on it, is not
    // observable from a test.) The client's own controller is the one its constructor makes.
    const made: AbortController[] = [];
    const Original = globalThis.AbortController;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        made.push(this);
      }
    };
    let live: NotificationsClient;
    try {
      ({ live } = client({ auth: 'ticket', since: id(1), fetch: answering(200, { ticket: 't', expiresAt: at }) as unknown as typeof fetch }));
    } finally {
      globalThis.AbortController = Original;
    }
    expect(made).toHaveLength(1);
    live.start();
    for (let connect = 0; connect < 3; connect++) {
      await settle();
      latest().open();
      latest().drop(1006);
      await vi.advanceTimersByTimeAsync(1_000);
    }
    expect(ScriptedSocket.made.length).toBeGreaterThanOrEqual(3);
    expect(getEventListeners(made[0]!.signal, 'abort')).toHaveLength(0);
    live.close();
  });

  it('gives up a token function that never answers within openTimeoutMs, and tries again', async () => {
    let asked = 0;
    const { live, seen } = client({ since: id(1), token: () => (asked++, new Promise<string>(() => undefined)), openTimeoutMs: 50 });
    live.start();
    await settle();
    await vi.advanceTimersByTimeAsync(50);
    expect(seen.errors).toEqual(['no answer within openTimeoutMs (50 ms)']);
    expect(seen.retries).toEqual([100]);
    expect(ScriptedSocket.made).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(100);
    expect(asked).toBe(2);
    live.close();
  });

  it('says why the credentials probe after a failed upgrade got no answer, and tries again', async () => {
    const dead = unanswered();
    const { live, seen } = client({ since: id(1), fetch: dead.fetch, openTimeoutMs: 2_000 });
    live.start();
    await settle();
    latest().drop(1006);
    await settle();
    expect(dead.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(seen.errors).toEqual(['no answer within openTimeoutMs (2000 ms)']);
    expect(seen.retries).toEqual([100]);
    live.close();
  });

  it('tries again on a 401 or 403 that is not the gateway\'s (a WAF\'s page), and stops on the gateway\'s', async () => {
    const page = (status: number) => vi.fn(async (_request: Request) => new Response('<html>Forbidden</html>', { status, headers: { 'content-type': 'text/html' } }));
    for (const status of [401, 403]) {
      const start = client({ fetch: page(status) as unknown as typeof fetch });
      start.live.start();
      await settle();
      expect({ status, stops: start.seen.stops, retries: start.seen.retries }).toEqual({ status, stops: [], retries: [100] });
      start.live.close();
      const probe = client({ since: id(1), fetch: page(status) as unknown as typeof fetch });
      probe.live.start();
      await settle();
      latest().drop(1006);
      await settle();
      expect({ status, stops: probe.seen.stops, retries: probe.seen.retries }).toEqual({ status, stops: [], retries: [100] });
      probe.live.close();
      const ticket = client({ auth: 'ticket', since: id(1), fetch: page(status) as unknown as typeof fetch });
      ticket.live.start();
      await settle();
      expect({ status, stops: ticket.seen.stops, retries: ticket.seen.retries }).toEqual({ status, stops: [], retries: [100] });
      ticket.live.close();
    }
  });

  it('takes ticket mode by default in a page that also has Node (Electron, NW.js): its WebSocket takes no headers', async () => {
    const runtime = globalThis as { window?: unknown };
    runtime.window = {};
    try {
      const fetch = answering(200, { ticket: 't1', expiresAt: at });
      const live = new NotificationsClient({ baseUrl: 'http://gw.test', token: 'tok', WebSocket: ScriptedSocket, since: id(1), fetch: fetch as unknown as typeof globalThis.fetch });
      live.start();
      await settle();
      expect(query(latest())).toEqual({ since: id(1), ticket: 't1' });
      expect(latest().init).toBeUndefined();
      live.close();
    } finally {
      delete runtime.window;
    }
    // Node alone: the header
    const live = new NotificationsClient({ baseUrl: 'http://gw.test', token: 'tok', WebSocket: ScriptedSocket, since: id(1), fetch: answering(200, []) as unknown as typeof globalThis.fetch });
    live.start();
    await settle();
    expect(latest().init).toEqual({ headers: { authorization: 'Bearer tok' } });
    live.close();
  });

  it('ends the call under way when closed, quietly', async () => {
    const dead = unanswered();
    const { live, seen } = client({ auth: 'ticket', fetch: dead.fetch });
    live.start();
    await settle();
    live.close();
    await settle();
    expect(dead.calls[0]!.signal.aborted).toBe(true);
    expect(seen).toMatchObject({ errors: [], retries: [], stops: [{ reason: 'closed' }] });
    expect(live.state).toBe('stopped');
  });

  it('stops on the probe\'s 404 after a failed upgrade, and waits a 429\'s Retry-After', async () => {
    const problem = (status: number, code: string) => ({ type: 'about:blank', title: code, status, code });
    const missing = client({ since: id(1), fetch: answering(404, problem(404, 'NOT_FOUND')) as unknown as typeof fetch });
    missing.live.start();
    await settle();
    latest().drop(1006);
    await settle();
    expect(missing.seen.stops).toEqual([{ reason: 'refused' }]);
    expect(missing.seen.errors).toEqual(['GET /api/v1/notifications answered 404: NOT_FOUND NOT_FOUND']);

    // an ingress's own 404 page (the gateway's pods being replaced) may be gone at the next try
    const page = vi.fn(async (_request: Request) => new Response('<html>404 Not Found</html>', { status: 404, headers: { 'content-type': 'text/html' } }));
    const passing = client({ since: id(1), fetch: page as unknown as typeof fetch });
    passing.live.start();
    await settle();
    latest().drop(1006);
    await settle();
    expect(passing.seen.stops).toEqual([]);
    expect(passing.seen.retries).toEqual([100]);
    passing.live.close();

    const limited = vi.fn(async (_request: Request) => new Response(JSON.stringify(problem(429, 'RATE_LIMITED')), { status: 429, headers: { 'content-type': 'application/problem+json', 'retry-after': '7' } }));
    const busy = client({ since: id(1), fetch: limited as unknown as typeof fetch });
    busy.live.start();
    await settle();
    latest().drop(1006);
    await settle();
    expect(busy.seen.retries).toEqual([7_000]);
    busy.live.close();
  });

  it.each([
    [431, 'HEADERS_TOO_LARGE'],
    [413, 'PAYLOAD_TOO_LARGE'],
    [415, 'UNSUPPORTED_MEDIA_TYPE'],
  ])('stops on the probe\'s %i (%s): no retry changes the request as built', async (status, code) => {
    const problem = { type: 'about:blank', title: code, status, code };
    const { live, seen } = client({ since: id(1), fetch: answering(status, problem) as unknown as typeof fetch });
    live.start();
    await settle();
    latest().drop(1006);
    await settle();
    // before: an error, then a retry every 30 s for ever
    expect(seen.stops).toEqual([{ reason: 'refused' }]);
    const sockets = ScriptedSocket.made.length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ScriptedSocket.made.length).toBe(sockets);
  });

  it('resumes from a whole-millisecond id with a fractional resumeOverlapMs', async () => {
    const { live } = client({ resumeOverlapMs: 1500.5 });
    live.start();
    await settle();
    latest().open();
    latest().deliver(completed('0193a6c2-5f00-7000-8000-000000000001'));
    latest().drop(1006);
    await vi.advanceTimersByTimeAsync(200);
    // before: '…-15a.-7000-…', refused by the service at every reconnect
    expect(query(latest()).since).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7000-8000-000000000000$/);
    live.close();
  });

  it('waits a Retry-After at most retryAfterMaxMs', async () => {
    const day = vi.fn(async (_request: Request) => new Response('maintenance', { status: 503, headers: { 'retry-after': '86400' } }));
    const { live, seen } = client({ fetch: day as unknown as typeof fetch, retryAfterMaxMs: 60_000 });
    live.start();
    await settle();
    expect(seen.retries).toEqual([60_000]);
    live.close();
  });

  it('stops when closed although the socket throws on close', async () => {
    class Stubborn extends ScriptedSocket {
      override close(): void {
        throw new Error('not now');
      }
    }
    const { live, seen } = client({ WebSocket: Stubborn });
    live.start();
    await settle();
    expect(() => live.close()).not.toThrow();
    expect(live.state).toBe('stopped');
    expect(seen.stops).toEqual([{ reason: 'closed' }]);
  });

  it('never takes an id that is not a notification id (a UUID) for its resume point', async () => {
    const { live } = client({ resumeOverlapMs: 0 });
    live.start();
    await settle();
    latest().open();
    latest().deliver(completed(id(3)));
    latest().deliver({ id: 'zzz-not-a-uuid', type: 'x.new', at, data: {} });
    expect(live.lastId).toBe(id(3));
    latest().drop(1001);
    await vi.advanceTimersByTimeAsync(100);
    expect(query(latest())).toEqual({ since: id(3) });
    live.close();
  });

  it('resumes a few seconds before the greatest id: one made earlier but published later is replayed, none delivered twice', async () => {
    // UUIDv7 ids of known moments (ms)
    const at = (ms: number, n: number) => { const hex = ms.toString(16).padStart(12, '0'); return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-${String(n).padStart(12, '0')}`; };
    const t = 1_790_000_000_000;
    const { live, seen } = client({ resumeOverlapMs: 5_000 });
    live.start();
    await settle();
    latest().open();
    latest().deliver(completed(at(t - 3_000, 1)));
    latest().deliver(completed(at(t, 2)));
    latest().drop(1006);
    await vi.advanceTimersByTimeAsync(100);
    expect(query(latest())).toEqual({ since: at(t - 5_000, 0) });
    latest().open();
    // the replay: both delivered already, and one made at t - 1 s that reached no socket before the drop
    for (const id of [at(t - 3_000, 1), at(t - 1_000, 3), at(t, 2)]) latest().deliver(completed(id));
    expect(seen.notifications.map((n) => n.id)).toEqual([at(t - 3_000, 1), at(t, 2), at(t - 1_000, 3)]);
    expect(live.lastId).toBe(at(t, 2));
    live.close();
  });
});

describe('retryAfterDelay', () => {
  it('waits the Retry-After, spread up to half the jitter above it, never more than the bound', () => {
    expect(retryAfterDelay(10_000, 300_000, 0, () => 1)).toBe(10_000);
    expect(retryAfterDelay(10_000, 300_000, 0.5, () => 0)).toBe(10_000);
    expect(retryAfterDelay(10_000, 300_000, 0.5, () => 1)).toBe(12_500);
    expect(retryAfterDelay(86_400_000, 300_000, 0.5, () => 0)).toBe(300_000);
    // the bound cuts the wait, not its spread
    expect(retryAfterDelay(86_400_000, 300_000, 0.5, () => 1)).toBe(375_000);
    expect(retryAfterDelay(0, 300_000, 0.5, () => 1)).toBe(0);
  });
});

describe('resumePoint', () => {
  const floor = '0190a000-0000-7000-8000-000000000000';
  it('goes back the overlap from the greatest id, by its time', () => {
    expect(resumePoint('0190a000-2710-7abc-9def-0123456789ab', floor, 5_000)).toBe('0190a000-1388-7000-8000-000000000000');
  });
  it('never goes back before where the client started', () => {
    expect(resumePoint('0190a000-0100-7abc-9def-0123456789ab', floor, 5_000)).toBe(floor);
  });
  it('resumes exactly after an id that is not a UUIDv7, or with no overlap', () => {
    expect(resumePoint('a2', floor, 5_000)).toBe('a2');
    expect(resumePoint('0190a000-2710-7abc-9def-0123456789ab', floor, 0)).toBe('0190a000-2710-7abc-9def-0123456789ab');
  });
});
