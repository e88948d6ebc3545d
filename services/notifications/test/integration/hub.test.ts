import { natsNames, NotificationCloseCode } from '@gfts/contracts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { infra, natsPrefix, startConfiguredNats, tcpHop, type ConfiguredNats } from '@gfts/testkit';
import { startNats } from '@gfts/testkit/containers';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hub } from '../../src/live/hub.ts';
import { Registry } from 'prom-client';
import { liveMetrics, type LiveMetrics } from '../../src/live/metrics.ts';
import { Session } from '../../src/live/session.ts';
import { FakeSocket } from '../support/fake-socket.ts';
import { monotonicUuidv7 } from '../../src/domain/ids.ts';

const metrics: LiveMetrics = { closed: () => {}, sent: () => {} };
const limits = { sendBufferBytes: 1_000_000, progressIntervalMs: 1000, replayPage: 10 };
const gamer = { applicationId: '0193a000-0000-7000-8000-000000000001', gamerId: '0193a000-0000-7000-8000-000000000002' };
const log = { warn: () => {}, info: () => {} };
const inbox = { after: async () => [] };
const session = (of = gamer) => {
  const socket = new FakeSocket();
  return { socket, session: new Session(socket as unknown as WebSocket, of, limits, metrics, false) };
};

/**
 * The release grace on a NATS connection of its own (a server this test stops): a gamer
 * back within the grace takes over the kept subscription, and after NATS was away its
 * attach asks NATS to confirm the subscription again rather than trusting the old answer.
 */
describe('the hub keeps a closed gamer for the grace', () => {
  let nats: { url: string; stop: () => Promise<void> };
  let nc: NatsConnection;
  let hub: Hub;
  const prefix = 'hubtest';

  beforeAll(async () => {
    nats = await startNats();
    nc = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 200 });
    hub = new Hub({ nc, prefix, heartbeatMs: 60_000, maxSocketsPerGamer: 10, releaseGraceMs: 60_000, inbox, log });
  });
  afterAll(async () => {
    await hub?.drain(0);
    await nc?.close().catch(() => undefined);
  });

  it('delivers to the socket that took over a kept subscription, then does not answer while NATS is away', async () => {
    const first = session();
    await hub.attach(first.session);
    first.socket.close();
    expect(hub.lingeringCount).toBe(1);

    // back within the grace: the same subscription carries the gamer's notifications
    const second = session();
    await hub.attach(second.session);
    expect(hub.lingeringCount).toBe(0);
    const publisher = await connect({ servers: nats.url });
    const notification = { id: '0193a000-0000-7000-8000-0000000000aa', type: 'task.completed', at: new Date().toISOString(), data: { gamerTaskId: 'g', taskId: 't' } };
    publisher.publish(natsNames(prefix).notifyGamer(gamer.applicationId, gamer.gamerId), JSON.stringify(notification));
    await publisher.flush();
    await publisher.close();
    await expect.poll(() => second.socket.sent.length).toBe(1);
    second.socket.close();

    // NATS goes away: the kept subscription's old confirmation proves nothing any more
    const statuses = nc.status();
    await nats.stop();
    // the disconnect, then a reconnect attempt after a failed one: the hub (listening since
    // before this test did) has seen the disconnect by then
    let attempts = 0;
    for await (const status of statuses) if (status.type === 'reconnecting' && ++attempts === 2) break;
    const third = session();
    // the attach asks NATS to confirm the subscription again, and fails when the next
    // reconnect attempt drops the unanswered flush, instead of answering at once: its resume
    // must not read the inbox before NATS delivers to this replica again
    await expect(hub.attach(third.session)).rejects.toThrow(/disconnected/);
  }, 60_000);
});

/** A socket whose client reads nothing: its send buffer stays full. */
class UnreadSocket extends FakeSocket {
  override readonly bufferedAmount = 10_000_000;
}

describe('the catch-up after NATS was away', () => {
  it('sends a healthy socket what it missed at once, however many sockets wait for slow clients', async () => {
    const url = new URL(infra().natsUrl.replace(/^nats:/, 'http:'));
    const hop = await tcpHop(url.hostname, Number(url.port));
    const nc = await connect({ servers: `nats://${hop.host}:${hop.port}`, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    const nextId = monotonicUuidv7();
    const missed = new Map<string, ReturnType<typeof nextId>>();
    // each gamer's one notification stored while NATS was away
    const gapInbox = { after: async (of: { gamerId: string }, after: string) => {
      const id = missed.get(of.gamerId);
      return id && id > after ? [{ id, type: 'task.completed', at: new Date().toISOString(), data: { gamerTaskId: 'g', taskId: 't' } }] : [];
    } };
    const hub = new Hub({ nc, prefix: natsPrefix(), heartbeatMs: 60_000, maxSocketsPerGamer: 10, releaseGraceMs: 0, inbox: gapInbox as never, log });
    const gamerOf = (i: number) => ({ applicationId: gamer.applicationId, gamerId: `0193a000-0000-7000-8000-${String(i).padStart(12, '0')}` });
    try {
      // 33 sockets of clients that read nothing (more than the 32 reads at once), then a healthy one
      const sockets: FakeSocket[] = [];
      for (let i = 0; i < 34; i++) {
        const socket = i < 33 ? new UnreadSocket() : new FakeSocket();
        sockets.push(socket);
        await hub.attach(new Session(socket as unknown as WebSocket, gamerOf(i), limits, metrics, false));
      }
      const statuses = nc.status();
      hop.cut();
      for await (const status of statuses) if (status.type === 'disconnect') break;
      for (let i = 0; i < 34; i++) missed.set(gamerOf(i).gamerId, nextId());
      hop.restore();
      const healthy = sockets[33]!;
      // before: each of the 32 catch-up turns waited 10 s on a slow client first
      await expect.poll(() => healthy.sent.length, { timeout: 3_000 }).toBe(1);
      expect(JSON.parse(healthy.sent[0]!)).toMatchObject({ id: missed.get(gamerOf(33).gamerId) });
    } finally {
      await hub.drain(0);
      await nc.close().catch(() => undefined);
      await hop.close();
    }
  }, 30_000);

  it('reads nothing for a socket closed while its read waited its turn', async () => {
    const url = new URL(infra().natsUrl.replace(/^nats:/, 'http:'));
    const hop = await tcpHop(url.hostname, Number(url.port));
    const nc = await connect({ servers: `nats://${hop.host}:${hop.port}`, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    // every read waits until the test lets them all go
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const read: string[] = [];
    const waitingInbox = { after: async (of: { gamerId: string }) => {
      read.push(of.gamerId);
      await released;
      return [];
    } };
    const hub = new Hub({ nc, prefix: natsPrefix(), heartbeatMs: 60_000, maxSocketsPerGamer: 10, releaseGraceMs: 0, inbox: waitingInbox as never, log });
    const gamerOf = (i: number) => ({ applicationId: gamer.applicationId, gamerId: `0193a000-0000-7000-8001-${String(i).padStart(12, '0')}` });
    try {
      const sockets: FakeSocket[] = [];
      for (let i = 0; i < 34; i++) {
        const socket = new FakeSocket();
        sockets.push(socket);
        await hub.attach(new Session(socket as unknown as WebSocket, gamerOf(i), limits, metrics, false));
      }
      const statuses = nc.status();
      hop.cut();
      for await (const status of statuses) if (status.type === 'disconnect') break;
      hop.restore();
      // 32 reads at once; the two sockets left waiting are closed by their clients meanwhile
      await expect.poll(() => read.length, { timeout: 5_000 }).toBe(32);
      sockets[32]!.close();
      sockets[33]!.close();
      release();
      await new Promise((resolve) => setTimeout(resolve, 300));
      // before: both still read the inbox when their turn came
      expect(read).toHaveLength(32);
      expect(read).not.toContain(gamerOf(32).gamerId);
    } finally {
      release();
      await hub.drain(0);
      await nc.close().catch(() => undefined);
      await hop.close();
    }
  }, 30_000);
});

/** A socket whose close handshake does not end until the test says so (a peer that does not answer the close frame). */
class HandshakingSocket extends FakeSocket {
  override close(): void {
    this.readyState = 2;
  }
  /** the handshake ends (or ws's 30 s run out): the socket is closed and leaves its gamer's set */
  closed(): void {
    super.close();
  }
}

describe('the sockets gauge', () => {
  let nc: NatsConnection;
  let hub: Hub;

  beforeAll(async () => {
    nc = await connect({ servers: infra().natsUrl });
    hub = new Hub({ nc, prefix: natsPrefix(), heartbeatMs: 60_000, maxSocketsPerGamer: 10, releaseGraceMs: 0, inbox, log });
  });
  afterAll(async () => {
    await hub?.drain(0);
    await nc?.close();
  });

  it('counts a socket the server closed no more, while its close handshake is still going on', async () => {
    const registry = new Registry();
    liveMetrics(registry, () => hub.socketCount, () => hub.lingeringCount);
    const gauge = async () => (await registry.getSingleMetric('gfts_notifications_sockets')!.get()).values[0]?.value;
    const sockets = [new HandshakingSocket(), new HandshakingSocket()];
    const sessions = sockets.map((socket) => new Session(socket as unknown as WebSocket, gamer, limits, metrics, false));
    for (const s of sessions) await hub.attach(s);
    expect(await gauge()).toBe(2);
    // a slow consumer closed by the server: still in the gamer's set until the handshake ends
    sessions[0]!.close(NotificationCloseCode.SLOW_CONSUMER, 'slow consumer');
    expect(await gauge()).toBe(1);
    sockets[0]!.closed();
    expect(await gauge()).toBe(1);
    sockets[1]!.closed();
    expect(await gauge()).toBe(0);
  });
});

/**
 * NATS refusing a gamer's subscription (a permissions violation: nats.js closes the
 * subscription) ends that gamer's sockets on the replica, for their clients to resume, instead
 * of leaving them open and silent; the replica's other gamers are not touched. Its own NATS,
 * whose user may not subscribe to one gamer's subject.
 */
describe('the hub when NATS ends a gamer subscription', () => {
  const prefix = 'hubperm';
  const refused = { applicationId: gamer.applicationId, gamerId: '0193a000-0000-7000-8000-0000000000ff' };
  let nats: ConfiguredNats;
  let nc: NatsConnection;
  let hub: Hub;
  const warnings: string[] = [];
  const released: string[] = [];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hub-nats-'));
    const denied = natsNames(prefix).notifyGamer(refused.applicationId, refused.gamerId);
    writeFileSync(join(dir, 'nats.conf'), `authorization {\n  users = [ { user: hub, password: hubpw, permissions: { publish: ">", subscribe: { allow: ">", deny: "${denied}" } } } ]\n}\n`);
    nats = await startConfiguredNats([{ source: join(dir, 'nats.conf'), name: 'nats.conf' }], {});
    nc = await connect({ servers: nats.url, user: 'hub', pass: 'hubpw' });
    const log = { warn: (o: unknown, message?: string) => void warnings.push(`${message} ${JSON.stringify(o)}`), info: () => {} };
    const presence = { held: () => {}, released: (g: { gamerId: string }) => void released.push(g.gamerId) };
    hub = new Hub({ nc, prefix, heartbeatMs: 60_000, maxSocketsPerGamer: 10, releaseGraceMs: 60_000, inbox, log, presence });
  }, 120_000);
  afterAll(async () => {
    await hub?.drain(0);
    await nc?.close().catch(() => undefined);
    await nats?.stop();
  });

  it('closes the refused gamer\'s sockets 1011 and lets go of them, while another gamer keeps receiving', async () => {
    const kept = session();
    await hub.attach(kept.session);
    const lost = session(refused);
    await hub.attach(lost.session).catch(() => undefined);
    await expect.poll(() => lost.socket.closeCode, { timeout: 10_000 }).toBe(NotificationCloseCode.INTERNAL_ERROR);
    expect(warnings.some((w) => w.startsWith('NATS ended a gamer subscription'))).toBe(true);
    expect(released).toEqual([refused.gamerId]);
    expect(hub.socketCount).toBe(1);
    expect(hub.lingeringCount).toBe(0);

    // the other gamer's subscription works on
    const notification = { id: '0193a000-0000-7000-8000-0000000000bb', type: 'task.completed', at: new Date().toISOString(), data: { gamerTaskId: 'g', taskId: 't' } };
    nc.publish(natsNames(prefix).notifyGamer(gamer.applicationId, gamer.gamerId), JSON.stringify(notification));
    await expect.poll(() => kept.socket.sent.length).toBe(1);
    expect(kept.socket.closeCode).toBeUndefined();

    // the refused gamer's next socket subscribes anew (and is refused anew), not left on the dead subscription
    const again = session(refused);
    await hub.attach(again.session).catch(() => undefined);
    await expect.poll(() => again.socket.closeCode, { timeout: 10_000 }).toBe(NotificationCloseCode.INTERNAL_ERROR);
    expect(released).toEqual([refused.gamerId, refused.gamerId]);
  }, 60_000);

  it('cuts at its drain a socket it closed for the lost subscription whose client never answered the close', async () => {
    const socket = new HandshakingSocket();
    let cut = false;
    socket.terminate = () => {
      cut = true;
      socket.closed();
    };
    await hub.attach(new Session(socket as unknown as WebSocket, refused, limits, metrics, false)).catch(() => undefined);
    // closed by the hub (1011), the handshake left hanging by the client
    await expect.poll(() => socket.readyState, { timeout: 10_000 }).toBe(2);
    await hub.drain(0);
    // before: out of the hub's map, the drain never cut it, and it held the shutdown for ws's 30 s
    expect(cut).toBe(true);
  }, 60_000);
});
