import { natsNames, NotificationCloseCode, type Notification } from '@gfts/contracts';
import { headers, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { FastifyBaseLogger } from 'fastify';
import type { GamerRef } from '../repository/inbox.ts';
import { Heartbeat } from './heartbeat.ts';
import type { Session } from './session.ts';

type Logger = Pick<FastifyBaseLogger, 'warn' | 'info'>;

/** A message on a gamer's subject with this header closes their sockets with its code (not a notification). */
const CLOSE_HEADER = 'Gfts-Close';

interface GamerSockets {
  sessions: Set<Session>;
  subscription: Subscription;
}

export interface HubOptions {
  nc: NatsConnection;
  prefix: string;
  heartbeatMs: number;
  maxSocketsPerGamer: number;
  log: Logger;
  /** the gamer's first socket on this replica opened, and their last one closed (presence) */
  presence?: { held(gamer: GamerRef): void; released(gamer: GamerRef): void };
}

/**
 * The sockets of this replica, by gamer. A gamer's first socket here subscribes this
 * replica to the gamer's NATS subject (`<prefix>.notify.<applicationId>.<gamerId>`), the
 * last one to close unsubscribes, so a notification reaches exactly the replicas that hold
 * a socket of its gamer, whichever replica made it (docs/notifications.md, "Fan-out").
 */
export class Hub {
  private readonly gamers = new Map<string, GamerSockets>();
  private readonly opts: HubOptions;
  private readonly heartbeat: Heartbeat;
  private readonly heartbeatTimer: NodeJS.Timeout;

  constructor(opts: HubOptions) {
    this.opts = opts;
    this.heartbeat = new Heartbeat(() => this.sessions());
    this.heartbeatTimer = setInterval(() => {
      if (!this.heartbeat.beat()) opts.log.warn({ sockets: this.socketCount }, 'heartbeat skipped: the previous one is still pinging');
    }, opts.heartbeatMs);
    this.heartbeatTimer.unref();
  }

  get socketCount(): number {
    let count = 0;
    for (const { sessions } of this.gamers.values()) count += sessions.size;
    return count;
  }

  /**
   * Adds a socket and resolves once NATS has its gamer's subscription: from then on every
   * notification published for the gamer reaches it, which a resume's replay counts on.
   */
  async attach(session: Session): Promise<void> {
    const key = `${session.gamer.applicationId}.${session.gamer.gamerId}`;
    let gamer = this.gamers.get(key);
    if (!gamer) {
      const subject = natsNames(this.opts.prefix).notifyGamer(session.gamer.applicationId, session.gamer.gamerId);
      const entry: GamerSockets = { sessions: new Set(), subscription: this.opts.nc.subscribe(subject, { callback: (error, msg) => {
        if (error) return this.opts.log.warn({ err: error }, 'gamer subscription error');
        const control = Number(msg.headers?.get(CLOSE_HEADER));
        if (control) {
          for (const s of [...entry.sessions]) s.close(control, 'closed by the service');
          return;
        }
        const text = msg.string();
        let notification: Notification;
        try {
          notification = JSON.parse(text) as Notification;
        } catch {
          return;
        }
        for (const s of entry.sessions) s.deliver({ notification, text });
      } }) };
      gamer = entry;
      this.gamers.set(key, gamer);
      this.opts.presence?.held(session.gamer);
    }
    gamer.sessions.add(session);
    session.socket.once('close', () => this.detach(key, session));
    if (gamer.sessions.size > this.opts.maxSocketsPerGamer) {
      const oldest = [...gamer.sessions].reduce((a, b) => (a.openedAt <= b.openedAt ? a : b));
      oldest.close(NotificationCloseCode.TOO_MANY_SOCKETS, 'too many sockets');
    }
    await this.opts.nc.flush();
  }

  /**
   * Shutdown: every socket gets 1001 "going away" and `graceMs` to finish the close
   * handshake; the clients reconnect (to another replica) and resume with `since`.
   */
  async drain(graceMs: number): Promise<void> {
    clearInterval(this.heartbeatTimer);
    this.heartbeat.stop();
    const sessions = [...this.sessions()];
    const closed = sessions.map((s) => new Promise<void>((resolve) => {
      if (s.socket.readyState === s.socket.CLOSED) return resolve();
      s.socket.once('close', () => resolve());
    }));
    for (const s of sessions) s.close(NotificationCloseCode.GOING_AWAY, 'going away');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(closed), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    for (const s of sessions) s.terminate();
    for (const [key, { subscription }] of this.gamers) {
      subscription.unsubscribe();
      this.release(key);
    }
    this.gamers.clear();
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
    if (gamer.sessions.size === 0) {
      gamer.subscription.unsubscribe();
      this.gamers.delete(key);
      this.release(key);
    }
  }

  private release(key: string): void {
    const dot = key.indexOf('.');
    this.opts.presence?.released({ applicationId: key.slice(0, dot), gamerId: key.slice(dot + 1) });
  }
}
