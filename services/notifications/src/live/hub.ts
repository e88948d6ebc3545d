import { natsNames, NotificationCloseCode, type Notification } from '@gfts/contracts';
import { headers, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { FastifyBaseLogger } from 'fastify';
import type { GamerRef, InboxRepository } from '../repository/inbox.ts';
import { Heartbeat } from './heartbeat.ts';
import type { Session } from './session.ts';
import { ReadSlots } from './read-slots.ts';

type Logger = Pick<FastifyBaseLogger, 'warn' | 'info'>;

/** Inbox reads at once of the catch-up after NATS came back (every socket of the replica has some). */
const CATCH_UP_CONCURRENCY = 32;

/** A message on a gamer's subject with this header closes their sockets with its code (not a notification). */
const CLOSE_HEADER = 'Gfts-Close';

interface GamerSockets {
  sessions: Set<Session>;
  subscription: Subscription;
  /** settles once NATS has the subscription */
  subscribed: Promise<void>;
  /** the connection's epoch `subscribed` was asked in: after a disconnect it proves nothing */
  subscribedIn: number;
  /** set while the gamer has no socket here: when it fires, the subscription and the presence go */
  lingering?: NodeJS.Timeout;
  /** the service closed the gamer's sockets (erasure): no grace once they are gone */
  ended?: boolean;
}

export interface HubOptions {
  nc: NatsConnection;
  prefix: string;
  heartbeatMs: number;
  maxSocketsPerGamer: number;
  /**
   * LIVE_RELEASE_GRACE_MS: how long a gamer whose last socket here closed keeps this
   * replica's subscription and presence, so that a reconnect within it (a network blip, a
   * storm after a load balancer's restart) costs no NATS write and no presence change; 0
   * releases at once.
   */
  releaseGraceMs: number;
  /** what the sockets catch up from after NATS was away */
  inbox: Pick<InboxRepository, 'after'>;
  log: Logger;
  /** the gamer's first socket on this replica opened, and their last one closed (presence) */
  presence?: { held(gamer: GamerRef): void; released(gamer: GamerRef): void };
}

/**
 * The sockets of this replica, by gamer. A gamer's first socket here subscribes this
 * replica to the gamer's NATS subject (`<prefix>.notify.<applicationId>.<gamerId>`), the
 * last one to close unsubscribes (after `releaseGraceMs`, unless the gamer is back), so a
 * notification reaches the replicas that hold a socket of its gamer, whichever replica made
 * it (docs/notifications.md, "Fan-out"); within the grace it reaches no socket here, and the
 * gamer's resume replays it from the inbox.
 */
export class Hub {
  private readonly gamers = new Map<string, GamerSockets>();
  private readonly opts: HubOptions;
  private readonly heartbeat: Heartbeat;
  private readonly heartbeatTimer: NodeJS.Timeout;
  /** counts the connection's disconnects and reconnects: a confirmation from before one is stale */
  private connectionEpoch = 0;
  /** set by drain: the grace it gives a close handshake */
  private drainGraceMs: number | undefined;
  /** the inbox reads of the catch-ups after NATS was away, CATCH_UP_CONCURRENCY at a time */
  private readonly catchUpReads = new ReadSlots(CATCH_UP_CONCURRENCY);
  /** sockets closed for a lost subscription (out of the gamers' map) whose close handshake has not ended */
  private readonly closingLost = new Set<Session>();

  constructor(opts: HubOptions) {
    this.opts = opts;
    this.heartbeat = new Heartbeat(() => this.sessions());
    this.heartbeatTimer = setInterval(() => {
      if (!this.heartbeat.beat()) opts.log.warn({ sockets: this.socketCount }, 'heartbeat skipped: the previous one is still pinging');
    }, opts.heartbeatMs);
    this.heartbeatTimer.unref();
    void (async () => {
      for await (const status of opts.nc.status()) {
        if (status.type !== 'disconnect' && status.type !== 'reconnect') continue;
        this.connectionEpoch++;
        // Sockets stay open through a NATS gap (closing them all would be a reconnect storm),
        // so each catches up from the inbox once NATS is back (docs, "NATS away").
        if (status.type === 'disconnect') for (const s of this.sessions()) s.markGap();
        else void this.catchUp();
      }
    })().catch(() => undefined);
  }

  /** Open sockets (Session.isOpen): one the server closed is not counted while its handshake ends. */
  get socketCount(): number {
    let count = 0;
    for (const { sessions } of this.gamers.values()) for (const s of sessions) if (s.isOpen) count++;
    return count;
  }

  /**
   * Adds a socket and resolves once NATS has its gamer's subscription: from then on every
   * notification published for the gamer reaches it, which a resume's replay counts on.
   */
  async attach(session: Session): Promise<void> {
    if (this.drainGraceMs !== undefined) return this.turnAway(session, this.drainGraceMs);
    const key = `${session.gamer.applicationId}.${session.gamer.gamerId}`;
    let gamer = this.gamers.get(key);
    if (!gamer) {
      gamer = this.subscribe(key, session.gamer);
      this.gamers.set(key, gamer);
      this.opts.presence?.held(session.gamer);
    } else if (gamer.lingering) {
      // back within the grace: the subscription and the presence were never released
      clearTimeout(gamer.lingering);
      gamer.lingering = undefined;
    }
    // NATS may have been away since the subscription was confirmed: confirm it again (a flush
    // that fails on the reconnect fails this attach, and the client resumes again)
    if (gamer.subscribedIn !== this.connectionEpoch) this.reconfirm(gamer);
    gamer.sessions.add(session);
    session.socket.once('close', () => this.detach(key, session));
    // Counted among the open ones (Session.isOpen): closing a closing socket again does nothing.
    const open = [...gamer.sessions].filter((s) => s.isOpen).sort((a, b) => a.openedAt - b.openedAt);
    for (const oldest of open.slice(0, Math.max(0, open.length - this.opts.maxSocketsPerGamer))) {
      oldest.close(NotificationCloseCode.TOO_MANY_SOCKETS, 'too many sockets');
    }
    try {
      await gamer.subscribed;
    } catch (error) {
      // NATS did not confirm it: the gamer's next socket asks again instead of this answer
      this.reconfirm(gamer);
      throw error;
    }
  }

  /** Gamers whose subscription is kept for the grace after their last socket here closed. */
  get lingeringCount(): number {
    let count = 0;
    for (const gamer of this.gamers.values()) if (gamer.lingering) count++;
    return count;
  }

  private subscribe(key: string, gamer: GamerRef): GamerSockets {
    const subject = natsNames(this.opts.prefix).notifyGamer(gamer.applicationId, gamer.gamerId);
    const entry: GamerSockets = {
      sessions: new Set(),
      subscription: this.opts.nc.subscribe(subject, { callback: (error, msg) => this.receive(key, entry, error, msg) }),
      // one flush per subscription: the gamer's later sockets (and a reconnect within the grace) wait for the same one
      subscribed: this.confirm(),
      subscribedIn: this.connectionEpoch,
    };
    return entry;
  }

  private reconfirm(gamer: GamerSockets): void {
    gamer.subscribed = this.confirm();
    gamer.subscribedIn = this.connectionEpoch;
  }

  private receive(key: string, gamer: GamerSockets, error: Error | null, msg: Msg): void {
    if (error) return this.lost(key, gamer, error);
    const control = Number(msg.headers?.get(CLOSE_HEADER));
    if (control) {
      gamer.ended = true;
      if (gamer.lingering) this.unsubscribe(key, gamer);
      const reason = control === NotificationCloseCode.GAMER_ERASED ? 'gamer erased' : 'closed by the service';
      for (const s of [...gamer.sessions]) s.close(control, reason);
      return;
    }
    if (gamer.sessions.size === 0) return;
    const text = msg.string();
    let notification: Notification;
    try {
      notification = JSON.parse(text) as Notification;
    } catch {
      return;
    }
    for (const s of gamer.sessions) s.deliver({ notification, text });
  }

  /**
   * NATS ended the gamer's subscription (it refused it: a permissions violation, after a
   * permissions reload, say); nats.js has closed it, so nothing more would reach their sockets
   * here. They are closed 1011, their clients resume with `since` (a replay from the inbox)
   * and subscribe again; the entry goes with its presence hold. Until 2026-11-28 the sockets
   * stayed open and silent, with one warning in the log.
   */
  private lost(key: string, gamer: GamerSockets, error: Error): void {
    this.opts.log.warn({ err: error, sockets: gamer.sessions.size }, 'NATS ended a gamer subscription: their sockets here are closed for their clients to resume');
    if (this.gamers.get(key) === gamer) {
      clearTimeout(gamer.lingering);
      this.gamers.delete(key);
      this.release(key);
    }
    for (const s of [...gamer.sessions]) {
      s.close(NotificationCloseCode.INTERNAL_ERROR, 'internal error');
      // out of the map, a client that never answers the close would be cut by nobody but ws
      // (30 s), holding the replica's shutdown past its grace (until 2026-11-29): the drain cuts it
      if (s.socket.readyState === s.socket.CLOSED) continue;
      this.closingLost.add(s);
      s.socket.once('close', () => this.closingLost.delete(s));
    }
  }

  /**
   * After a reconnect: once NATS has the subscriptions again (the client sends them on
   * reconnecting; a flush confirms), every socket marked at the disconnect reads what it
   * missed, all at once with at most CATCH_UP_CONCURRENCY inbox reads at a time. A socket
   * whose read fails is closed 1011, and its client resumes with `since`. A flush that fails,
   * or NATS leaving again before a socket starts its catch-up (the epoch moved; one waits for
   * its resume's replay first), leaves the marks for the next reconnect, whose own catch-up
   * takes them.
   */
  private async catchUp(): Promise<void> {
    const epoch = this.connectionEpoch;
    try {
      await this.opts.nc.flush();
    } catch {
      return;
    }
    const connected = () => this.connectionEpoch === epoch;
    // the inbox reads are bounded, not the sockets: each socket's catch-up also waits for its
    // client to read what it was sent, and 32 slow clients held every turn of the replica's
    // other sockets, their live notifications held meanwhile (until 2026-11-29). The bound is
    // the replica's, across catch-ups (NATS back, away, back again); a socket closed while its
    // read waited its turn reads nothing.
    await Promise.all([...this.sessions()].map(async (s) => {
      const inbox: Pick<InboxRepository, 'after'> = { after: (...args) => this.catchUpReads.run(async () => (s.isOpen ? this.opts.inbox.after(...args) : [])) };
      try {
        await s.catchUp(inbox, connected);
      } catch (error) {
        this.opts.log.warn({ err: error }, 'live socket could not catch up after NATS was away: closed for its client to resume');
        s.close(NotificationCloseCode.INTERNAL_ERROR, 'internal error');
      }
    }));
  }

  /** A flush: NATS has every subscription made before it. Its failure is for the attach that awaits it. */
  private confirm(): Promise<void> {
    const flushed = this.opts.nc.flush();
    flushed.catch(() => undefined);
    return flushed;
  }

  /**
   * Shutdown: every socket gets 1001 "going away" and `graceMs` to finish the close
   * handshake; the clients reconnect (to another replica) and resume with `since`.
   */
  async drain(graceMs: number): Promise<void> {
    this.drainGraceMs = graceMs;
    clearInterval(this.heartbeatTimer);
    this.heartbeat.stop();
    const sessions = [...this.sessions(), ...this.closingLost];
    const closed = sessions.map((s) => new Promise<void>((resolve) => {
      if (s.socket.readyState === s.socket.CLOSED) return resolve();
      s.socket.once('close', () => resolve());
    }));
    for (const s of sessions) s.close(NotificationCloseCode.GOING_AWAY, 'going away');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(closed), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    for (const s of sessions) s.terminate();
    for (const [key, { subscription, lingering }] of this.gamers) {
      clearTimeout(lingering);
      subscription.unsubscribe();
      this.release(key);
    }
    this.gamers.clear();
  }

  /**
   * A socket that opens after the drain began (its upgrade was still being authorized, a
   * ticket claim in flight) gets the same 1001 and grace at once: the drain's snapshot
   * missed it, and left open it would hold the server's close, and so the exit, until
   * SHUTDOWN_GRACE_MS (exit 1).
   */
  private turnAway(session: Session, graceMs: number): void {
    session.close(NotificationCloseCode.GOING_AWAY, 'going away');
    setTimeout(() => session.terminate(), graceMs).unref();
  }

  /**
   * Closes every socket of the gamer on every replica with `code` (gamer erasure: 4410): a
   * control message on the gamer's subject, which exactly the replicas holding the gamer's
   * sockets receive. Resolves once NATS has it.
   */
  async closeEverywhere(gamer: GamerRef, code: number): Promise<void> {
    const h = headers();
    h.set(CLOSE_HEADER, String(code));
    this.opts.nc.publish(natsNames(this.opts.prefix).notifyGamer(gamer.applicationId, gamer.gamerId), '', { headers: h });
    await this.opts.nc.flush();
  }

  private *sessions(): Generator<Session> {
    for (const { sessions } of this.gamers.values()) yield* sessions;
  }

  private detach(key: string, session: Session): void {
    const gamer = this.gamers.get(key);
    if (!gamer) return;
    gamer.sessions.delete(session);
    if (gamer.sessions.size > 0 || gamer.lingering) return;
    if (this.opts.releaseGraceMs === 0 || gamer.ended) return this.unsubscribe(key, gamer);
    gamer.lingering = setTimeout(() => this.unsubscribe(key, gamer), this.opts.releaseGraceMs);
    gamer.lingering.unref();
  }

  private unsubscribe(key: string, gamer: GamerSockets): void {
    clearTimeout(gamer.lingering);
    // the entry may have been replaced meanwhile (drain cleared the map)
    if (this.gamers.get(key) !== gamer) return;
    gamer.subscription.unsubscribe();
    this.gamers.delete(key);
    this.release(key);
  }

  private release(key: string): void {
    const dot = key.indexOf('.');
    this.opts.presence?.released({ applicationId: key.slice(0, dot), gamerId: key.slice(dot + 1) });
  }
}
