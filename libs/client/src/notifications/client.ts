// The live notifications client: one WebSocket to GET /api/v1/notifications/live, kept up
// across drops (exponential backoff with jitter) and resumed after the last notification
// seen (`?since=<id>`), so the application sees every notification once, in order.
// Runs on Node 24 (global WebSocket, bearer header) and in browsers (single-use ticket).
import { createApiClient, type ApiClient, type Problem } from '../api.ts';
import { currentToken, type TokenSource } from '../token.ts';
import { backoffDelay, backoffOptions, type BackoffOptions } from './backoff.ts';
import { ConnectionHeartbeat, heartbeatOptions, PING_FRAME, type HeartbeatOptions } from './heartbeat.ts';
import { liveUrl } from './live-url.ts';
import { parseFrame, type Notification, type UnknownNotification } from './messages.ts';

/** The part of the WHATWG WebSocket this client uses (the global one in Node 24 and browsers). */
export interface WebSocketLike {
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  /** sends the heartbeat ping, the only frame a client sends */
  send(data: string): void;
  close(code?: number, reason?: string): void;
}
/** Node's WebSocket takes `{ headers }` as its second argument; browsers get no second argument. */
export type WebSocketConstructor = new (url: string, init?: { headers: Record<string, string> }) => WebSocketLike;

export type AuthMode = 'header' | 'ticket';

export interface NotificationsClientOptions {
  /** the gateway, e.g. `http://localhost:8080` */
  baseUrl: string | URL;
  /** the gamer's bearer token, or a function answering a fresh one: asked before every connect */
  token: TokenSource;
  /**
   * `header`: the token in `Authorization` on the upgrade (Node; default there).
   * `ticket`: a single-use ticket from POST /api/v1/notifications/ticket in `?ticket=`
   * (browsers, which cannot set headers on a WebSocket; default there).
   */
  auth?: AuthMode;
  /** resume after this notification id on the first connect (e.g. one persisted last session) */
  since?: string;
  /** reconnect schedule; see DEFAULT_BACKOFF */
  backoff?: Partial<BackoffOptions>;
  /**
   * Pings the service every `intervalMs` (15 s) of an open connection; a ping that gets no
   * frame back within `timeoutMs` (10 s) ends the connection as dead (disconnect code 1006)
   * and the client reconnects and resumes. `false`: no pings (a service from before
   * 2026-11-28 does not answer them, and every connection would be ended).
   */
  heartbeat?: Partial<HeartbeatOptions> | false;
  /**
   * How long a connect may take to open, ms (default 10000): past it the attempt is given up
   * as failed (disconnect code 1006) and the next one scheduled. A handshake sent into a dead
   * path (a kept-alive connection whose NAT entry is gone) otherwise never ends. Each HTTP
   * call before a connect (its starting point, a ticket, the credentials probe) has as long.
   */
  openTimeoutMs?: number;
  /**
   * The longest `Retry-After` taken, ms (default 300000): a 429 or 503 that asks for longer
   * (a maintenance page's day) is taken as this, then spread as any Retry-After is (up to
   * half of `backoff.jitter` above it).
   */
  retryAfterMaxMs?: number;
  /** close codes after which the client stops instead of reconnecting (default: 4029, 4410) */
  stopOnCloseCodes?: readonly number[];
  /**
   * How far before the greatest id received a resume starts (ms, by the ids' UUIDv7 time):
   * a notification made just before it by another replica, or stored slowly, may reach the
   * channel after it; the overlap replays it, and what was delivered already is dropped by
   * id. Default 5000; 0 resumes exactly after the greatest id.
   */
  resumeOverlapMs?: number;
  /** overrides for other runtimes and tests */
  WebSocket?: WebSocketConstructor;
  fetch?: typeof fetch;
  random?: () => number;
}

export type StopReason =
  /** close() was called */
  | 'closed'
  /** the gateway refused the token (401/403): sign in again and start a new client */
  | 'unauthorized'
  /** backoff.maxAttempts connects in a row failed */
  | 'gave-up'
  /** the service closed with one of stopOnCloseCodes */
  | 'close-code'
  /**
   * a call before the connect answered what no retry changes (400, 404, 405: a gateway
   * without the notifications service answers 404); the `error` event before it has the problem
   */
  | 'refused';

/**
 * A call the client makes before it connects (its starting point, a ticket) that the gateway
 * answered with an error: the status, the problem+json body (`code`, `detail`, `requestId`)
 * when there is one, and `Retry-After` in ms (the next try waits at least that long).
 */
export class NotificationsCallError extends Error {
  readonly status: number;
  readonly problem: Problem | undefined;
  readonly retryAfterMs: number | undefined;
  /** the gateway answered it (problem+json), not a component in front of it */
  readonly fromGateway: boolean;
  constructor(call: string, status: number, problem: Problem | undefined, retryAfterMs: number | undefined, fromGateway = true) {
    super(`${call} answered ${status}${problem ? `: ${problem.code} ${problem.detail ?? problem.title}` : ''}`);
    this.name = 'NotificationsCallError';
    this.status = status;
    this.problem = problem;
    this.retryAfterMs = retryAfterMs;
    this.fromGateway = fromGateway;
  }
}

/**
 * The gateway refused the token (401, 403 as its problem+json): the client stops. The same
 * statuses from something in front of it (a WAF's HTML 403, a CDN's challenge) may be gone
 * at the next try, which signing in again would not change: retried (until 2026-11-28 they
 * stopped the client as `unauthorized` for good).
 */
const credentialsRefused = (response: Response): boolean =>
  (response.status === 401 || response.status === 403) && (response.headers.get('content-type') ?? '').includes('application/problem+json');

/**
 * Answers to a call before the connect that a retry would get again: the request as built
 * is refused (headers too large: a token over 16 KB; a body or media type refused). Until
 * 2026-11-29 only 400, 404 and 405, and a 431 was tried again for ever.
 */
const REFUSED_STATUSES = [400, 404, 405, 413, 415, 431];

/**
 * A refusal no retry changes: one of REFUSED_STATUSES, answered by the gateway itself (a
 * problem+json). Another component's (an ingress's HTML 404 while the gateway's pods are
 * replaced) may be gone at the next try.
 */
const isFinalRefusal = (error: NotificationsCallError): boolean => REFUSED_STATUSES.includes(error.status) && error.fromGateway;

function callError(call: string, response: Response, error: unknown): NotificationsCallError {
  const seconds = Number(response.headers.get('retry-after'));
  const problem = typeof error === 'object' && error !== null && 'code' in error ? (error as Problem) : undefined;
  const fromGateway = (response.headers.get('content-type') ?? '').includes('application/problem+json');
  return new NotificationsCallError(call, response.status, problem, Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined, fromGateway);
}

export interface NotificationsEvents {
  notification: (notification: Notification) => void;
  /** a well-formed frame of a type this client does not know */
  unknown: (notification: UnknownNotification) => void;
  /** connected; `since` is the id the service replays after, if any */
  open: (info: { since: string | undefined }) => void;
  /** the connection ended; `retryInMs` when the client will try again */
  disconnect: (info: { code: number; reason: string; retryInMs: number | undefined }) => void;
  /** something went wrong that the client survives (a bad frame, a failed ticket request) */
  error: (error: Error) => void;
  /** the client stopped for good */
  stop: (info: { reason: StopReason; code?: number }) => void;
}

export type ConnectionState = 'idle' | 'connecting' | 'open' | 'waiting' | 'stopped';

/** The service's close codes (docs/notifications.md, "Close codes"). */
export const CloseCode = {
  NORMAL: 1000,
  /** a replica shutting down: reconnect, resume (a gateway shutting down cuts the socket: 1006) */
  GOING_AWAY: 1001,
  /** no close frame: the connection died (also what `disconnect` says when a heartbeat ping got no answer) */
  ABNORMAL: 1006,
  /** the replica failed on its side: reconnect, resume */
  INTERNAL_ERROR: 1011,
  /** the replica held too much behind a slow inbox read: reconnect, resume */
  TRY_AGAIN_LATER: 1013,
  /** the client read too slowly: reconnect, resume */
  SLOW_CONSUMER: 4008,
  /**
   * The gamer opened too many sockets and this, the oldest, was closed. Reconnecting would
   * close the newest in turn, so the client stops by default.
   */
  TOO_MANY_SOCKETS: 4029,
  /** the gamer was erased: nothing of them is left to notify, so the client stops */
  GAMER_ERASED: 4410,
} as const;

/** Closes for the server's own trouble (an internal error, a store too slow for the replay): back off across them. */
const SERVER_TROUBLE_CODES: readonly number[] = [CloseCode.INTERNAL_ERROR, CloseCode.TRY_AGAIN_LATER];
/** How long a connection must have been open for its trouble close to start the back-off over. */
const TROUBLE_FORGOTTEN_AFTER_MS = 5 * 60_000;
const DEFAULT_STOP_CODES: readonly number[] = [CloseCode.TOO_MANY_SOCKETS, CloseCode.GAMER_ERASED];

/**
 * The resume point of a client whose gamer's inbox is empty: below every id (ids are UUIDv7,
 * sorting by creation), so a resume replays whatever was stored since.
 */
export const BEFORE_EVERY_ID = '00000000-0000-7000-8000-000000000000';
/**
 * A notification id: a UUIDv7. Another UUID (a friendship id saved by mistake, a newer
 * service's frame of a new kind) sorts by no time: a v4 starting with `e` or `f` was taken as
 * the resume point and sorted after every id of this era, so no later notification moved it
 * and every reconnect replayed nothing (until 2026-11-28).
 */
const NOTIFICATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DEFAULT_RESUME_OVERLAP_MS = 5_000;
const DEFAULT_OPEN_TIMEOUT_MS = 10_000;
const DEFAULT_RETRY_AFTER_MAX_MS = 300_000;

/** The creation time (ms) of a UUIDv7 id; undefined for another kind of id. */
function idTime(id: string): number | undefined {
  if (!NOTIFICATION_ID.test(id)) return undefined;
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

/** The smallest UUIDv7 of a moment: every id made from then on sorts after it. */
function firstIdAt(ms: number): string {
  // whole milliseconds: a fraction (a resumeOverlapMs of 1500.5) wrote a '.' into the id,
  // which the service refused at every reconnect (until 2026-11-29)
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}

/**
 * Where a resume starts: `overlapMs` before the greatest id delivered (so one made earlier
 * but published later is replayed), never before `floor`, where this client started (what
 * came before was never its to deliver).
 */
export function resumePoint(greatest: string, floor: string, overlapMs: number): string {
  const at = idTime(greatest);
  if (at === undefined || overlapMs === 0) return greatest;
  const start = firstIdAt(at - overlapMs);
  return start > floor ? start : floor;
}

export class NotificationsClient {
  readonly #options: NotificationsClientOptions;
  readonly #backoff: BackoffOptions;
  readonly #auth: AuthMode;
  readonly #api: ApiClient;
  readonly #Socket: WebSocketConstructor;
  readonly #stopCodes: readonly number[];
  readonly #listeners: { [E in keyof NotificationsEvents]: Set<NotificationsEvents[E]> } = {
    notification: new Set(), unknown: new Set(), open: new Set(), disconnect: new Set(), error: new Set(), stop: new Set(),
  };
  #state: ConnectionState = 'idle';
  #lastId: string | undefined;
  /** a `since` that is a UUID but no notification id: not resumed after (said at start) */
  #ignoredSince: string | undefined;
  /** where this client started: resumes never replay from before it */
  #floor: string | undefined;
  /** ids delivered within the resume overlap, so a replayed one is not delivered twice */
  readonly #delivered = new Map<string, number>();
  readonly #overlapMs: number;
  #failures = 0;
  /** lasting connections the server closed for its own trouble, in a row (SERVER_TROUBLE_CODES) */
  #troubledInARow = 0;
  #socket: WebSocketLike | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #stableTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #heartbeatOptions: HeartbeatOptions | undefined;
  readonly #openTimeoutMs: number;
  #openTimer: ReturnType<typeof setTimeout> | undefined;
  #heartbeat: ConnectionHeartbeat | undefined;
  readonly #retryAfterMaxMs: number;
  /** ends the HTTP calls of the connect under way when the client closes */
  #calls = new AbortController();

  constructor(options: NotificationsClientOptions) {
    this.#options = options;
    this.#backoff = backoffOptions(options.backoff);
    this.#auth = options.auth ?? defaultAuthMode();
    this.#stopCodes = options.stopOnCloseCodes ?? DEFAULT_STOP_CODES;
    // a corrupted saved id would be refused (400) on every connect, for ever
    if (options.since !== undefined && !UUID.test(options.since)) throw new RangeError('since must be a notification id (a UUIDv7), e.g. a saved lastId');
    // Another UUID is no resume point (NOTIFICATION_ID), but may be one an earlier version of
    // this client saved: the client starts as without one (after the inbox's newest), and
    // says so at start, rather than fail an app that passes back what it stored.
    const since = options.since !== undefined && NOTIFICATION_ID.test(options.since) ? options.since : undefined;
    if (since === undefined && options.since !== undefined) this.#ignoredSince = options.since;
    // ids are compared as text with the service's, which are lower case
    this.#lastId = since?.toLowerCase();
    this.#floor = this.#lastId;
    this.#heartbeatOptions = options.heartbeat === false ? undefined : heartbeatOptions(options.heartbeat);
    this.#openTimeoutMs = options.openTimeoutMs ?? DEFAULT_OPEN_TIMEOUT_MS;
    if (!(Number.isFinite(this.#openTimeoutMs) && this.#openTimeoutMs > 0)) throw new RangeError('openTimeoutMs must be a finite number > 0');
    this.#retryAfterMaxMs = options.retryAfterMaxMs ?? DEFAULT_RETRY_AFTER_MAX_MS;
    if (!(Number.isFinite(this.#retryAfterMaxMs) && this.#retryAfterMaxMs >= 0)) throw new RangeError('retryAfterMaxMs must be a finite number >= 0');
    this.#overlapMs = options.resumeOverlapMs ?? DEFAULT_RESUME_OVERLAP_MS;
    if (!(this.#overlapMs >= 0 && Number.isFinite(this.#overlapMs))) throw new RangeError('resumeOverlapMs must be a finite number >= 0');
    this.#api = createApiClient({ baseUrl: httpBase(options.baseUrl), token: options.token, ...(options.fetch ? { fetch: options.fetch } : {}) });
    // what every connect would fail on, said once, here: found in the connect loop, a bad
    // scheme was retried for ever and a missing WebSocket was a rejection nobody handled
    liveUrl(options.baseUrl);
    const Socket = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!Socket) throw new TypeError('no WebSocket in this runtime: pass options.WebSocket');
    this.#Socket = Socket;
  }

  /**
   * The greatest id received (ids sort by creation): what the next connect resumes after.
   * Persist it to resume a later session.
   */
  get lastId(): string | undefined {
    return this.#lastId;
  }

  get state(): ConnectionState {
    return this.#state;
  }

  /** Adds a listener; answers a function that removes it. */
  on<E extends keyof NotificationsEvents>(event: E, listener: NotificationsEvents[E]): () => void {
    this.#listeners[event].add(listener);
    return () => void this.#listeners[event].delete(listener);
  }

  /** Connects (and keeps reconnecting until close()). */
  start(): this {
    if (this.#state !== 'idle') throw new Error(`start() on a ${this.#state} client`);
    // on the next tick: connectNotifications() starts the client before its caller can add a listener
    const ignored = this.#ignoredSince;
    if (ignored !== undefined) {
      queueMicrotask(() => {
        // closed in the same tick (a component mounted and unmounted at once): nothing more to say
        if (this.#state !== 'stopped') this.#emit('error', new RangeError(`since ${ignored} is not a notification id (a UUIDv7): starting after the inbox's newest notification instead`));
      });
    }
    void this.#connect();
    return this;
  }

  /** Closes the connection for good; no reconnect follows. */
  close(): void {
    if (this.#state === 'stopped') return;
    clearTimeout(this.#retryTimer);
    this.#heartbeat?.stop();
    const socket = this.#socket;
    this.#socket = undefined;
    try {
      socket?.close(CloseCode.NORMAL, 'client closed');
    } catch {
      // a socket that refuses the close (a custom WebSocketLike, one still connecting) is dropped all the same
    }
    this.#stop({ reason: 'closed' });
  }

  async #connect(): Promise<void> {
    this.#state = 'connecting';
    let url: string;
    let init: { headers: Record<string, string> } | undefined;
    try {
      // Without a resume point, a drop before the first frame would lose what was stored
      // meanwhile: the first connect already resumes, after the inbox's newest notification.
      if (this.#lastId === undefined) {
        const start = await this.#startingPoint();
        if (start === undefined || this.#state !== 'connecting') return;
        this.#lastId ??= start;
        this.#floor ??= start;
      }
      const since = this.#since();
      if (this.#auth === 'ticket') {
        // the JWT stays in a header of an HTTP call; only the single-use ticket goes in the URL
        const ticket = await this.#ticket();
        if (ticket === undefined || this.#state !== 'connecting') return;
        url = liveUrl(this.#options.baseUrl, { since, ticket });
      } else {
        const token = await this.#timed(() => currentToken(this.#options.token));
        if (this.#state !== 'connecting') return;
        url = liveUrl(this.#options.baseUrl, { since });
        init = { headers: { authorization: `Bearer ${token}` } };
      }
    } catch (error) {
      // closed meanwhile: the call was ended by close(), nothing to report
      if ((this.#state as ConnectionState) === 'stopped') return;
      this.#emit('error', asError(error));
      if (error instanceof NotificationsCallError && isFinalRefusal(error)) {
        this.#stop({ reason: 'refused' });
        return;
      }
      // a 429 or 503 says when to come back: not sooner (the gamer's own rate limit is spent
      // by every try, which the game's other calls share)
      this.#retry(0, 'no connection', true, error instanceof NotificationsCallError ? error.retryAfterMs : undefined);
      return;
    }
    const Socket = this.#Socket;
    const since = this.#since();
    let socket: WebSocketLike;
    try {
      socket = init ? new Socket(url, init) : new Socket(url);
    } catch (error) {
      this.#emit('error', asError(error));
      this.#retry(0, 'no connection');
      return;
    }
    this.#socket = socket;
    let opened = false;
    let lasted = false;
    let openedAt = 0;
    this.#openTimer = setTimeout(() => {
      if (this.#socket !== socket || opened) return;
      this.#abandon(socket, 'no answer to the connect');
      this.#retry(CloseCode.ABNORMAL, 'no answer to the connect');
    }, this.#openTimeoutMs);
    socket.onopen = () => {
      if (this.#socket !== socket) return;
      clearTimeout(this.#openTimer);
      opened = true;
      openedAt = performance.now();
      this.#state = 'open';
      // only a connection that lasts starts the schedule over (BackoffOptions.resetAfterMs)
      this.#stableTimer = setTimeout(() => {
        if (this.#socket !== socket) return;
        this.#failures = 0;
        lasted = true;
      }, this.#backoff.resetAfterMs);
      if (this.#heartbeatOptions) {
        this.#heartbeat = new ConnectionHeartbeat(this.#heartbeatOptions, () => socket.send(PING_FRAME), () => {
          if (this.#socket !== socket) return;
          this.#abandon(socket, 'no answer to the heartbeat');
          this.#retry(CloseCode.ABNORMAL, 'no answer to the heartbeat ping', !lasted);
        });
      }
      this.#emit('open', { since });
    };
    socket.onmessage = (event) => {
      if (this.#socket !== socket) return;
      this.#heartbeat?.heard();
      this.#receive(event.data);
    };
    socket.onerror = () => {
      // a close event always follows; the reason is decided there
    };
    socket.onclose = (event) => {
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      clearTimeout(this.#stableTimer);
      clearTimeout(this.#openTimer);
      this.#heartbeat?.stop();
      if (this.#stopCodes.includes(event.code)) {
        this.#emit('disconnect', { code: event.code, reason: event.reason, retryInMs: undefined });
        this.#stop({ reason: 'close-code', code: event.code });
        return;
      }
      // A refused upgrade looks like any network failure to a WebSocket (1006, no status):
      // in header mode, ask the API whether the token is the reason before retrying.
      if (!opened && this.#auth === 'header') void this.#probeThenRetry(event.code, event.reason);
      // a connection that lasted is no failed connect: its drop neither counts nor gives up;
      // but one the server closed for its own trouble (1011, 1013: a store too slow for the
      // replay) waits longer each time in a row, as a fleet reconnecting every 250–500 ms
      // would only start another replay on that store (until 2026-11-29 it did)
      else if (lasted && SERVER_TROUBLE_CODES.includes(event.code)) {
        // a connection healthy for long ends the run: troubles hours apart are not in a row
        if (performance.now() - openedAt >= TROUBLE_FORGOTTEN_AFTER_MS) this.#troubledInARow = 0;
        this.#retry(event.code, event.reason, false, 0, this.#troubledInARow++);
      }
      else {
        if (lasted) this.#troubledInARow = 0;
        this.#retry(event.code, event.reason, !lasted);
      }
    };
  }

  /**
   * Lets go of a connection taken for dead. Its close event may come minutes later, or never
   * (a path that drops everything): the client stops listening to it, closes it for form's
   * sake, and the caller schedules the next connect.
   */
  #abandon(socket: WebSocketLike, reason: string): void {
    this.#socket = undefined;
    clearTimeout(this.#stableTimer);
    clearTimeout(this.#openTimer);
    this.#heartbeat?.stop();
    socket.onopen = null;
    socket.onclose = null;
    socket.onmessage = null;
    try {
      socket.close(CloseCode.NORMAL, reason);
    } catch {
      // a socket still connecting may refuse a close in some runtimes: it is dropped all the same
    }
  }

  /**
   * Where a client without a resume point starts: after the newest stored notification, or
   * BEFORE_EVERY_ID when there is none. `undefined` when the token was refused (stopped).
   */
  async #startingPoint(): Promise<string | undefined> {
    const { data, error, response } = await this.#timed((signal) => this.#api.GET('/api/v1/notifications', { params: { query: { limit: 1 } }, signal }));
    if (credentialsRefused(response)) {
      this.#emit('error', callError('GET /api/v1/notifications', response, error));
      this.#stop({ reason: 'unauthorized' });
      return undefined;
    }
    if (!data) throw callError('GET /api/v1/notifications', response, error);
    return data[0]?.id ?? BEFORE_EVERY_ID;
  }

  /** A ticket for the next connect; `undefined` when the client stopped or will retry. */
  async #ticket(): Promise<string | undefined> {
    const { data, error, response } = await this.#timed((signal) => this.#api.POST('/api/v1/notifications/ticket', { signal }));
    if (credentialsRefused(response)) {
      this.#emit('error', callError('POST /api/v1/notifications/ticket', response, error));
      this.#stop({ reason: 'unauthorized' });
      return undefined;
    }
    if (!data) throw callError('POST /api/v1/notifications/ticket', response, error);
    return data.ticket;
  }

  /**
   * After an upgrade that failed before opening (header mode): the same token on a plain call
   * tells why. 401/403 stop the client (`unauthorized`), an answer no retry changes (404: no
   * notifications service) stops it (`refused`), a 429 or 503 sets the wait; anything else,
   * or no answer within openTimeoutMs, is a plain retry.
   */
  async #probeThenRetry(code: number, reason: string): Promise<void> {
    let atLeastMs: number | undefined;
    try {
      const { error, response } = await this.#timed((signal) => this.#api.GET('/api/v1/notifications', { params: { query: { limit: 1 } }, signal }));
      if (this.#state === 'stopped') return;
      if (credentialsRefused(response)) {
        // the problem says why (an expired token, an audience not allowed), as for any other refusal
        this.#emit('error', callError('GET /api/v1/notifications', response, error));
        this.#emit('disconnect', { code, reason, retryInMs: undefined });
        this.#stop({ reason: 'unauthorized' });
        return;
      }
      if (!response.ok) {
        const refusal = callError('GET /api/v1/notifications', response, error);
        this.#emit('error', refusal);
        if (isFinalRefusal(refusal)) {
          this.#emit('disconnect', { code, reason, retryInMs: undefined });
          this.#stop({ reason: 'refused' });
          return;
        }
        atLeastMs = refusal.retryAfterMs;
      }
    } catch (error) {
      // unreachable as well, or no answer within openTimeoutMs: said, then a plain retry
      if (this.#state === 'stopped') return;
      this.#emit('error', asError(error));
    }
    this.#retry(code, reason, true, atLeastMs);
  }

  /**
   * A call before a connect, ended by close() or after openTimeoutMs: one sent on a kept-alive
   * connection of a dead path otherwise waits minutes (undici's 300 s, a browser's TCP).
   */
  async #timed<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    // A plain controller per call, told by the client's own when it closes, not
    // AbortSignal.any: Safari before 17.4 has none (every call threw), and Node keeps a
    // combined signal alive while a listener is on it (the fetch's own, for the client's life).
    const ends = new AbortController();
    const closed = this.#calls.signal;
    const onClose = () => ends.abort(closed.reason);
    const timer = setTimeout(() => ends.abort(new DOMException(`no answer within openTimeoutMs (${this.#openTimeoutMs} ms)`, 'TimeoutError')), this.#openTimeoutMs);
    if (closed.aborted) onClose();
    else closed.addEventListener('abort', onClose, { once: true });
    // the signal ends the fetch; a token function that never answers (it runs before the
    // fetch, and may itself wait on a dead connection) ends here (until 2026-11-28 the client
    // stayed connecting)
    const ended = new Promise<never>((_, reject) => {
      if (ends.signal.aborted) reject(ends.signal.reason);
      else ends.signal.addEventListener('abort', () => reject(ends.signal.reason), { once: true });
    });
    try {
      return await Promise.race([call(ends.signal), ended]);
    } finally {
      clearTimeout(timer);
      closed.removeEventListener('abort', onClose);
    }
  }


  #receive(data: unknown): void {
    if (typeof data !== 'string') {
      this.#emit('error', new Error('a binary frame on the notifications channel (only JSON text frames are sent)'));
      return;
    }
    const frame = parseFrame(data);
    if (frame.kind === 'pong') return;
    if (frame.kind === 'invalid') {
      this.#emit('error', new Error(`an invalid notification frame: ${frame.reason}`));
      return;
    }
    // the greatest, not the latest: ids made by different replicas may arrive out of order,
    // and resuming after an earlier one would replay what was already delivered
    const { id } = frame.notification;
    // a replay of the resume overlap brings back what was delivered already
    if (this.#delivered.has(id)) return;
    this.#remember(id);
    // only a notification id may become the resume point: another (a newer service's frame of
    // a new kind) would be refused as `since` on every connect, for ever
    if (NOTIFICATION_ID.test(id) && (this.#lastId === undefined || id.toLowerCase() > this.#lastId)) this.#lastId = id.toLowerCase();
    if (frame.kind === 'notification') this.#emit('notification', frame.notification);
    else this.#emit('unknown', frame.notification);
  }

  /** The id the next connect resumes after. */
  #since(): string | undefined {
    const { lastId, floor } = { lastId: this.#lastId, floor: this.#floor ?? BEFORE_EVERY_ID };
    return lastId === undefined || lastId === floor ? lastId : resumePoint(lastId, floor, this.#overlapMs);
  }

  /** Keeps a delivered id while a resume may replay it: within twice the overlap of the greatest. */
  #remember(id: string): void {
    const at = idTime(id);
    if (at === undefined || this.#overlapMs === 0) return;
    this.#delivered.set(id, at);
    const greatest = Math.max(at, idTime(this.#lastId ?? '') ?? 0);
    if (this.#delivered.size % 64 === 0) for (const [kept, time] of this.#delivered) if (time < greatest - 2 * this.#overlapMs) this.#delivered.delete(kept);
  }

  /**
   * Schedules the next connect. `failed`: this was a failed connect (refused, or closed before
   * it lasted `resetAfterMs`), which counts toward `maxAttempts`; the drop of a connection
   * that lasted starts the schedule over (until 2026-11-28 it counted too, so `maxAttempts: 1`
   * stopped the client at the first deploy's 1001).
   */
  #retry(code: number, reason: string, failed = true, atLeastMs = 0, attempt = this.#failures): void {
    if (this.#state === 'stopped') return;
    const drawn = backoffDelay(attempt, failed ? this.#backoff : { ...this.#backoff, maxAttempts: Infinity }, this.#options.random);
    const delay = drawn === undefined ? undefined : Math.max(drawn, retryAfterDelay(atLeastMs, this.#retryAfterMaxMs, this.#backoff.jitter, this.#options.random));
    this.#emit('disconnect', { code, reason, retryInMs: delay });
    // a listener may have closed the client
    if ((this.#state as ConnectionState) === 'stopped') return;
    if (delay === undefined) {
      this.#stop({ reason: 'gave-up' });
      return;
    }
    if (failed) this.#failures += 1;
    this.#state = 'waiting';
    this.#retryTimer = setTimeout(() => void this.#connect(), delay);
  }

  #stop(info: { reason: StopReason; code?: number }): void {
    if (this.#state === 'stopped') return;
    this.#state = 'stopped';
    this.#calls.abort();
    clearTimeout(this.#retryTimer);
    clearTimeout(this.#stableTimer);
    clearTimeout(this.#openTimer);
    this.#heartbeat?.stop();
    this.#emit('stop', info);
  }

  #emit<E extends keyof NotificationsEvents>(event: E, ...args: Parameters<NotificationsEvents[E]>): void {
    for (const listener of this.#listeners[event]) {
      try {
        (listener as (...a: Parameters<NotificationsEvents[E]>) => void)(...args);
      } catch (error) {
        // a listener's bug must not break the connection loop
        if (event !== 'error') this.#emit('error', asError(error));
      }
    }
  }
}

/**
 * The wait a `Retry-After` asks for, at most `maxMs`, spread by up to half of `jitter` above
 * that: a fleet refused at one moment (a drain's 503) does not come back in lockstep, also
 * when the bound cut the wait.
 */
export function retryAfterDelay(retryAfterMs: number, maxMs: number, jitter: number, random: () => number = Math.random): number {
  if (retryAfterMs <= 0) return 0;
  return Math.round(Math.min(maxMs, retryAfterMs) * (1 + (jitter / 2) * random()));
}

/** Starts a client: `connectNotifications({ baseUrl, token }).on('notification', …)`. */
export function connectNotifications(options: NotificationsClientOptions): NotificationsClient {
  return new NotificationsClient(options).start();
}

/** The gateway's http(s) URL, also when given as ws(s). */
function httpBase(baseUrl: string | URL): string {
  const url = new URL(baseUrl);
  if (url.protocol === 'ws:') url.protocol = 'http:';
  if (url.protocol === 'wss:') url.protocol = 'https:';
  return url.toString().replace(/\/+$/, '');
}

/**
 * Node (and Deno, Bun) let a WebSocket carry headers; a browser does not. A page that also has
 * Node (Electron with nodeIntegration, NW.js) has the browser's WebSocket, which took the
 * headers for subprotocols and threw on every connect (until 2026-11-28): a `window` says page.
 */
function defaultAuthMode(): AuthMode {
  const runtime = globalThis as { process?: { versions?: { node?: string } }; window?: unknown; document?: unknown };
  return runtime.process?.versions?.node && runtime.window === undefined && runtime.document === undefined ? 'header' : 'ticket';
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
