import { isStoredNotificationType, NotificationCloseCode, NotificationType, type Notification } from '@gfts/contracts';
import type { WebSocket } from 'ws';
import { uuidv7Floor } from '../domain/ids.ts';
import { PongPacer, pongFrame } from '../domain/live-ping.ts';
import { ProgressThrottle } from '../domain/progress-throttle.ts';
import type { GamerRef, InboxRepository } from '../repository/inbox.ts';
import type { LiveMetrics } from './metrics.ts';

/**
 * How old a replayed notification can be and still arrive live after the replay: one stored
 * before the inbox read and published after it (the ingest publishes right after its inbox
 * write; a write retried through a store outage publishes later, and is then sent twice at
 * worst). Older replayed ids are not kept for the live check.
 */
const LIVE_AFTER_REPLAY_MS = 60_000;
/**
 * How long a replay waits for its client to read what it was sent before sending more, and
 * how often it looks: a client that reads nothing for this long is cut as slow (4008).
 */
const REPLAY_DRAIN_WAIT_MS = 10_000;
const REPLAY_DRAIN_POLL_MS = 20;
/** ws's error for a client frame over its maxPayload, which it answers with 1009 */
const WS_MESSAGE_TOO_BIG = 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH';

/** Ids a replay sent, for the live check after it: a live copy of one is not sent again. */
interface Replayed {
  ids: Set<string>;
  /** Date.now() past which none of them can still arrive live (LIVE_AFTER_REPLAY_MS after the replay) */
  until: number;
}

/** A notification as it travels: parsed, and the JSON text every socket sends as is. */
export interface Outgoing {
  notification: Notification;
  text: string;
}

export interface SessionLimits {
  sendBufferBytes: number;
  progressIntervalMs: number;
  replayPage: number;
}

/**
 * One client socket of one gamer. While it replays a resume it holds what arrives live;
 * then it sends the held ones it has not replayed (no gap, no duplicate) and goes live.
 * Every write first checks the socket's send buffer: a client that lets more than
 * NOTIFY_SEND_BUFFER_BYTES pile up is closed (4008) rather than slowing anyone else.
 */
export class Session {
  readonly gamer: GamerRef;
  readonly socket: WebSocket;
  readonly openedAt = Date.now();
  /** false from a heartbeat's ping until its pong */
  alive = true;
  private held: Outgoing[] | undefined;
  /** bytes of `held`: bounded by NOTIFY_SEND_BUFFER_BYTES, as what waits in the socket is */
  private heldBytes = 0;
  /** after a replay: its ids, for LIVE_AFTER_REPLAY_MS */
  private replayed: Replayed | undefined;
  /** the ids of a replay that ended with a gap open: they join the live check of the gap's catch-up */
  private carried: Replayed | undefined;
  private closed = false;
  /** the greatest id of a stored notification this socket was sent */
  private lastStored: string | undefined;
  /** where a resume began (`since`) */
  private resumedFrom: string | undefined;
  /** the replay in flight, a resume's or a catch-up's */
  private replaying: Promise<void> = Promise.resolve();
  /**
   * Set while NATS is away (markGap) until the catch-up reads the inbox: where to read from,
   * and the stored ids sent meanwhile (live ones that came before the catch-up began), which
   * the catch-up must not send again.
   */
  private gap: { from: string; sent: Set<string> } | undefined;
  private readonly limits: SessionLimits;
  private readonly metrics: LiveMetrics;
  private readonly throttle: ProgressThrottle<string>;
  private readonly pongs = new PongPacer();

  /** `resuming`: live notifications are held from the start, until replay() has run */
  constructor(socket: WebSocket, gamer: GamerRef, limits: SessionLimits, metrics: LiveMetrics, resuming: boolean) {
    this.socket = socket;
    this.metrics = metrics;
    if (resuming) this.held = [];
    this.gamer = gamer;
    this.limits = limits;
    this.throttle = new ProgressThrottle(limits.progressIntervalMs, (text) => this.write(text));
    socket.on('pong', () => {
      this.alive = true;
    });
    socket.on('close', () => this.stop());
  }

  /** Replays the stored notifications after `since`, oldest first, then releases what came live meanwhile. */
  replay(inbox: Pick<InboxRepository, 'after'>, since: string): Promise<void> {
    this.resumedFrom = since;
    return (this.replaying = this.replayAfter(inbox, since, new Set()));
  }

  /**
   * NATS went away: what is published for the gamer until this replica is back reaches no
   * socket here (core NATS keeps nothing). Notes where this socket stands, for catchUp, and
   * holds what arrives live from now until the catch-up has sent what the inbox got: sent at
   * once after the reconnect (while the socket waits its catch-up turn), a newer notification
   * would reach the client before the older ones stored during the gap, and a client that
   * dropped between the two would resume after the newer one and never get them.
   */
  markGap(): void {
    if (this.closed || this.gap) return;
    this.gap = { from: this.lastStored ?? this.resumedFrom ?? uuidv7Floor(this.openedAt), sent: new Set() };
    this.held ??= [];
  }

  /**
   * NATS is back (and has the gamer's subscription again): sends what the inbox got during
   * the gap, as a resume would, without the live ones already sent; live ones are held
   * meanwhile and deduplicated the same way. Rejects when the inbox read fails.
   * `connected`: whether the connection this catch-up was started for is still the one. A
   * socket whose turn comes after NATS left again keeps its gap for the next reconnect:
   * taken now, what is published during the second absence would be lost to it.
   */
  async catchUp(inbox: Pick<InboxRepository, 'after'>, connected: () => boolean = () => true): Promise<void> {
    // a resume's replay in flight ends first: it may have been reading when NATS left
    await this.replaying.catch(() => undefined);
    const gap = this.gap;
    if (!gap || this.closed || !connected()) return;
    this.held ??= [];
    const caughtUp = this.replayAfter(inbox, gap.from, gap.sent);
    // taken now: a gap that opens during this read is caught up by the next reconnect
    this.gap = undefined;
    await (this.replaying = caughtUp);
  }

  private async replayAfter(inbox: Pick<InboxRepository, 'after'>, since: string, alreadySent: Set<string>): Promise<void> {
    // only the ids that may still come live are kept: a resume from far back (a month of
    // inbox) would otherwise keep every id it replayed for the socket's life
    const recent = uuidv7Floor(Date.now() - LIVE_AFTER_REPLAY_MS);
    const replayed = new Set<string>();
    let after = since;
    for (;;) {
      const page = await inbox.after(this.gamer, after, this.limits.replayPage);
      for (const notification of page) {
        // a socket closed or closing (its client left) is read no further
        if (!(await this.paced())) return;
        this.forgetCompleted(notification);
        if (!alreadySent.has(notification.id)) this.sendStored(notification.id, JSON.stringify(notification));
        if (notification.id >= recent) replayed.add(notification.id);
      }
      const last = page.at(-1);
      if (!last || page.length < this.limits.replayPage) break;
      after = last.id;
    }
    // A notification stored before the inbox read but published after the replay ended
    // arrives live once more (bench, storm): the replayed ids stay for as long as that can
    // happen. Until 2026-11-29 they went as soon as a newer id arrived live, which holds for
    // one ingest replica only: another replica's newer notification could come first, and
    // the late one was sent twice.
    const sent = joinReplayed(this.carried, replayed.size > 0 ? { ids: replayed, until: Date.now() + LIVE_AFTER_REPLAY_MS } : undefined);
    if (this.gap) {
      // NATS left during this read: what arrives live stays held until the gap's catch-up has
      // sent what the inbox got (until 2026-11-28 a resume's replay ending released it, and a
      // newer notification could reach the client before those stored during the gap)
      this.carried = sent;
      return;
    }
    this.carried = undefined;
    // joined with an earlier replay's ids still live: a catch-up that sent nothing replaced a
    // resume's (until 2026-11-29), and a live copy of one it replayed went out twice
    this.replayed = joinReplayed(this.replayedStill(), sent);
    // The held ones in order, paced as the replay was (released at once, up to the whole send
    // buffer's worth on top of what the replay left waiting, they cut healthy clients as slow);
    // what arrives meanwhile joins the end of the queue.
    const held = (this.held ??= []);
    while (held.length > 0) {
      if (!(await this.paced())) return;
      if (this.gap) {
        // NATS left meanwhile: the rest waits for the gap's catch-up, as above
        this.carried = sent;
        return;
      }
      const next = held.shift()!;
      this.heldBytes -= Buffer.byteLength(next.text);
      this.send(next);
    }
    this.held = undefined;
    this.heldBytes = 0;
  }

  /**
   * Before a replayed or released notification: waits while half the send buffer is taken.
   * False when the socket is closed or its client is closing it: nothing more goes to it.
   */
  private async paced(): Promise<boolean> {
    if (this.socket.bufferedAmount > this.limits.sendBufferBytes / 2) await this.drained();
    return this.isOpen;
  }

  /**
   * Until the client has read half of what may wait in its socket. A replay writes pages as
   * fast as the store reads them, faster than a client on a real network reads: without this
   * a resume after a long absence (2,000 notifications of 400 B) cut a healthy client as slow.
   * One that reads nothing for REPLAY_DRAIN_WAIT_MS is cut as slow (4008).
   */
  private async drained(): Promise<void> {
    const until = Date.now() + REPLAY_DRAIN_WAIT_MS;
    while (this.isOpen && this.socket.bufferedAmount > this.limits.sendBufferBytes / 2) {
      if (Date.now() >= until) {
        this.close(NotificationCloseCode.SLOW_CONSUMER, 'slow consumer');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, REPLAY_DRAIN_POLL_MS));
    }
  }

  deliver(outgoing: Outgoing): void {
    // a socket its client is closing takes nothing more, held or sent
    if (!this.isOpen) return;
    if (this.held) {
      // what waits behind a slow inbox read is bounded as what waits in the socket is: past
      // it the client comes back and resumes from the inbox (until 2026-11-28 unbounded: a
      // catch-up's turn may come minutes after NATS was back, the store slow)
      // at least one held whatever its size, as an empty send buffer takes one (write)
      this.heldBytes += Buffer.byteLength(outgoing.text);
      if (this.held.length > 0 && this.heldBytes > this.limits.sendBufferBytes) {
        this.close(NotificationCloseCode.TRY_AGAIN_LATER, 'catching up');
        return;
      }
      this.held.push(outgoing);
      return;
    }
    this.send(outgoing);
  }

  /** A notification live, past what is held: deduplicated against the last replay, progress throttled. */
  private send(outgoing: Outgoing): void {
    const { notification, text } = outgoing;
    // before the replayed-id check: the live copy of a replayed completion still ends its task's progress
    this.forgetCompleted(notification);
    if (isStoredNotificationType(notification.type) && this.replayedStill()?.ids.has(notification.id)) return;
    if (notification.type === NotificationType.TASK_PROGRESS) {
      this.throttle.offer(notification.data.gamerTaskId, text);
      return;
    }
    if (isStoredNotificationType(notification.type)) this.sendStored(notification.id, text);
    else this.write(text);
  }

  /** The last replays' ids while one of them can still arrive live; forgotten after. */
  private replayedStill(): Replayed | undefined {
    if (this.replayed && Date.now() > this.replayed.until) this.replayed = undefined;
    return this.replayed;
  }

  /** Writes a stored notification and notes it: a catch-up after a NATS gap starts after it. */
  private sendStored(id: string, text: string): void {
    this.write(text);
    if (this.lastStored === undefined || id > this.lastStored) this.lastStored = id;
    this.gap?.sent.add(id);
  }

  /** A completion, replayed or live, drops its task's held and later progress (docs, "Coalescing"). */
  private forgetCompleted(notification: Notification): void {
    if (notification.type === NotificationType.TASK_COMPLETED || notification.type === NotificationType.ACHIEVEMENT_COMPLETED) {
      this.throttle.forget(notification.data.gamerTaskId);
    }
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.stop();
    this.metrics.closed(code);
    this.socket.close(code, reason);
  }

  /**
   * The socket's error: ws refused what the client sent (a frame over NOTIFY's 4 KiB, a
   * malformed one) and is closing it itself, with the code that says why (1009, 1002, 1007):
   * its close handshake runs to its end (ws cuts a peer that does not answer it in 30 s).
   * Until 2026-11-29 the socket was cut at once, mid-handshake, and no 1009 was counted.
   * Any other error cuts the socket.
   */
  failed(error: Error & { code?: string }): void {
    if (this.socket.readyState === this.socket.CLOSING) {
      if (!this.closed && error.code === WS_MESSAGE_TOO_BIG) this.metrics.closed(NotificationCloseCode.MESSAGE_TOO_BIG);
      this.stop();
      return;
    }
    this.stop();
    this.socket.terminate();
  }

  /** The heartbeat's ping; the pong marks the socket alive again. */
  ping(): void {
    this.alive = false;
    this.socket.ping();
  }

  /** Cuts a dead peer's socket (it missed a heartbeat): no close handshake, the client sees 1006. */
  terminate(): void {
    if (!this.closed) this.metrics.closed(1006);
    this.stop();
    this.socket.terminate();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Open for notifications: neither closed here nor closing by its client. A closing socket
   * stays in its gamer's set until the close handshake ends (up to ws's 30 s for a peer that
   * does not answer); the per-gamer cap and the sockets gauge count only the open ones.
   */
  get isOpen(): boolean {
    return !this.closed && this.socket.readyState === this.socket.OPEN;
  }

  /**
   * The client's heartbeat ping: answered with a pong, at most one per PONG_MIN_INTERVAL_MS.
   * It goes out in order with the notifications, under the same send-buffer check, so a
   * client that stops reading is cut for its pongs as for anything else.
   */
  answerPing(now = new Date(), monotonicMs = performance.now()): void {
    // paced on a monotonic clock: a wall clock stepped back would answer no ping until it caught up
    if (this.pongs.answers(monotonicMs)) this.write(pongFrame(now), false);
  }

  /** `notification`: a notification, counted as sent (a pong is not one) */
  private write(text: string, notification = true): void {
    // a socket its client is closing takes nothing more: ws would count the text as buffered,
    // and the send-buffer check would record a slow consumer that is only leaving
    if (!this.isOpen) return;
    // what must not pile up is what waits: a frame on an empty buffer goes whatever its size
    // (until 2026-11-28 one larger than a small NOTIFY_SEND_BUFFER_BYTES closed the socket 4008
    // on every resume, its replay sending the same frame again)
    const waiting = this.socket.bufferedAmount;
    if (waiting > 0 && waiting + Buffer.byteLength(text) > this.limits.sendBufferBytes) {
      this.close(NotificationCloseCode.SLOW_CONSUMER, 'slow consumer');
      return;
    }
    this.socket.send(text);
    if (notification) this.metrics.sent();
  }

  private stop(): void {
    this.closed = true;
    this.held = undefined;
    this.heldBytes = 0;
    this.replayed = undefined;
    this.carried = undefined;
    this.throttle.stop();
  }
}

/**
 * The ids of two replays, for one live check: those that can still arrive live (a socket
 * whose catch-ups follow each other within the minute would otherwise keep every id).
 */
function joinReplayed(a: Replayed | undefined, b: Replayed | undefined): Replayed | undefined {
  if (!a || !b) return a ?? b;
  const recent = uuidv7Floor(Date.now() - LIVE_AFTER_REPLAY_MS);
  return { ids: new Set([...a.ids, ...b.ids].filter((id) => id >= recent)), until: Math.max(a.until, b.until) };
}
