import { randomUUID } from 'node:crypto';
import { natsNames, NotificationCloseCode, NotificationType, type ErasureJob, type Notification } from '@gfts/contracts';
import { eventually, gamer, natsPrefix, type Gamer } from '@gfts/testkit';
import { jetstreamManager } from '@nats-io/jetstream';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followErasureReports } from '../../src/gamer-erasure.ts';
import { monotonicUuidv7 } from '../../src/domain/ids.ts';
import { inboxRepository } from '../../src/repository/inbox.ts';
import { openStore } from '../../src/repository/store.ts';
import { LiveClient } from '../support/live-client.ts';
import { startNotificationsStack, type NotificationsStack } from '../support/stack.ts';

const LIVE = '/api/v1/notifications/live';
const quietLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Gamer erasure reaches notifications (docs/gamer-erasure.md): the tasks service's job
 * waits for this service too; the gamer's inbox, and what other inboxes said of them, is
 * deleted; their sockets on every replica are closed with 4410.
 */
describe('gamer erasure in the notifications service', () => {
  let stack: NotificationsStack;
  const app = randomUUID();
  const admin = gamer(app, 'Admin', { roles: ['admin'] });
  beforeAll(async () => {
    stack = await startNotificationsStack();
    await stack.addReplica();
  });
  afterAll(async () => {
    await stack?.close();
  });

  const join = async (name: string) => {
    const who = gamer(app, name);
    expect((await stack.api('GET', '/api/v1/friendship', { headers: who.auth })).status).toBe(200);
    return who;
  };
  const request = async (from: Gamer, to: Gamer) =>
    expect((await stack.api('POST', '/api/v1/friendship', { headers: from.auth, body: { target: to.id } })).status).toBe(200);
  const inbox = async (who: Gamer) => (await stack.api<Notification[]>('GET', '/api/v1/notifications?limit=200', { headers: who.auth })).body;
  const erase = async (who: Gamer) => {
    const response = await stack.api<ErasureJob>('DELETE', `/api/v1/${app}/gamers/${who.id}`, { headers: admin.auth });
    expect(response.status, JSON.stringify(response.body)).toBe(202);
    expect(response.body.services.map((s) => s.service)).toContain('notifications');
    return eventually(async () => {
      const job = (await stack.api<ErasureJob>('GET', `/api/v1/${app}/gamers/erasures/${response.body.jobId}`, { headers: admin.auth })).body;
      return job.status === 'completed' ? job : undefined;
    }, 30_000);
  };

  it('empties the gamer\'s inbox and what others were told of them, closes their sockets on every replica, and completes the job', async () => {
    const [ann, bob, cat] = [await join('Ann'), await join('Bob'), await join('Cat')];
    // Ann's inbox: a request from Bob; Cat's inbox: a request from Ann (it names her)
    await request(bob, ann);
    await request(ann, cat);
    await eventually(async () => (await inbox(ann)).length === 1 && (await inbox(cat)).length === 1);
    const [onA, onB] = await Promise.all(stack.replicas.map((r) => LiveClient.open(`${r.wsUrl}${LIVE}`, { headers: ann.auth })));

    const job = await erase(ann);
    expect(job.services.find((s) => s.service === 'notifications')?.status).toBe('completed');
    for (const live of [onA!, onB!]) expect(await live.closed).toEqual({ code: NotificationCloseCode.GAMER_ERASED, reason: 'gamer erased' });
    const db = await stack.db();
    expect(await db.collection('notifications').countDocuments({ applicationId: app, gamerId: ann.id })).toBe(0);
    expect(await inbox(cat)).toEqual([]);
    expect(JSON.stringify(await db.collection('notifications').find({ applicationId: app }).toArray())).not.toContain(ann.id);
    // both stored notifications were Ann's or about her: none is left in the application
    expect(await db.collection('notifications').countDocuments({ applicationId: app })).toBe(0);

    // idempotent: erasing again is a new job that finds nothing and completes
    const again = await erase(ann);
    expect(again.services.map((s) => [s.service, s.status])).toContainEqual(['notifications', 'completed']);
  });

  it('deletes again what another service\'s late events stored of the gamer, when that service reports its part done', async () => {
    const [gil, hal] = [await join('Gil'), await join('Hal')];
    await erase(gil);
    // the friendship service, lagging, still sends an event of Gil's, which becomes a
    // notification naming Gil in Hal's inbox after this service's part was done
    const nc = await stack.nats();
    const friendshipId = randomUUID();
    nc.publish(stack.names.friendshipEvent('requested'), JSON.stringify({
      type: 'requested', applicationId: app, friendshipId, actorId: gil.id, targetId: hal.id, occurredAt: new Date().toISOString(), actor: { id: gil.id, displayName: 'Gil', avatar: '' },
    }));
    await eventually(async () => (await inbox(hal)).length === 1);
    // then it reports its part done (before the fix the notification stayed its 30 days)
    nc.publish(stack.names.gamerErasureCompleted, JSON.stringify({ jobId: randomUUID(), applicationId: app, gamerId: gil.id, service: 'friendship', completedAt: new Date().toISOString() }));
    await eventually(async () => (await inbox(hal)).length === 0, 10_000);
  });

  it('deletes once more a while after each report: an event published just before it may still be in an ingest batch', async () => {
    const nc = await stack.nats();
    // the service's inbox on the real store, its deletes seen as they happen
    const real = inboxRepository(openStore({ db: await stack.db() } as unknown as Connection), 60_000);
    const gamerId = randomUUID();
    const late = { applicationId: app, gamerId, id: monotonicUuidv7()(), type: NotificationType.TASK_COMPLETED, at: new Date().toISOString(), data: { gamerTaskId: randomUUID(), taskId: randomUUID() } } as const;
    const erased: string[] = [];
    const inbox = {
      eraseGamer: async (applicationId: string, gamer: string) => {
        const done = await real.eraseGamer(applicationId, gamer);
        erased.push(`${applicationId}:${gamer}`);
        // an ingest batch that was under way stores the gamer's notification after the first delete
        if (erased.length === 1) await real.add([late]);
        return done;
      },
    };
    // a prefix of its own: the stack's replicas are not in its queue group
    const prefix = natsPrefix();
    const followUp = followErasureReports(nc, prefix, inbox, quietLog as never, { againAfterMs: 300, windowMs: 86_400_000 });
    try {
      await nc.flush();
      const report = (service: string, requestedAt = new Date(Date.now() - 60_000)) => nc.publish(natsNames(prefix).gamerErasureCompleted, JSON.stringify({ jobId: randomUUID(), applicationId: app, gamerId, service, completedAt: new Date().toISOString(), requestedAt: requestedAt.toISOString() }));
      // its own report is not another service's: nothing to delete again
      report('notifications');
      report('tasks');
      await eventually(async () => erased.length === 2, 5_000);
      expect(erased).toEqual([`${app}:${gamerId}`, `${app}:${gamerId}`]);
      // the second delete, a while later, took what the late batch stored
      expect(await real.newestFirst({ applicationId: app, gamerId }, undefined, 10)).toEqual([]);
      // a report of a republished event's erasure (the gamer may be back): no delete on it
      nc.publish(natsNames(prefix).gamerErasureCompleted, JSON.stringify({ jobId: randomUUID(), applicationId: app, gamerId, service: 'tasks', completedAt: new Date().toISOString(), republished: true }));
      await nc.flush();
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(erased).toHaveLength(2);
      // a report of a service that lagged 8 days (down, its durable replaying the original event):
      // the gamer may be back, her inbox is hers (before: deleted again)
      report('friendship', new Date(Date.now() - 8 * 86_400_000));
      await nc.flush();
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(erased).toHaveLength(2);
    } finally {
      await followUp.stop();
    }
  });

  it('tries a follow-up delete again while the inbox store is away, and deletes once more a while after it went through', async () => {
    const nc = await stack.nats();
    const real = inboxRepository(openStore({ db: await stack.db() } as unknown as Connection), 60_000);
    const gamerId = randomUUID();
    const held = { applicationId: app, gamerId, id: monotonicUuidv7()(), type: NotificationType.TASK_COMPLETED, at: new Date().toISOString(), data: { gamerTaskId: randomUUID(), taskId: randomUUID() } } as const;
    let failuresLeft = 3;
    let deleted = 0;
    const inbox = {
      eraseGamer: async (applicationId: string, gamer: string) => {
        // the store is away for the first three tries
        if (failuresLeft-- > 0) throw new Error('injected: the inbox store is away');
        const done = await real.eraseGamer(applicationId, gamer);
        // back: the ingest writes the notification it held through the outage, after this delete
        if (++deleted === 1) await real.add([held]);
        return done;
      },
    };
    const prefix = natsPrefix();
    const followUp = followErasureReports(nc, prefix, inbox, quietLog as never, { againAfterMs: 300, retryBaseMs: 50, windowMs: 86_400_000 });
    try {
      await nc.flush();
      nc.publish(natsNames(prefix).gamerErasureCompleted, JSON.stringify({ jobId: randomUUID(), applicationId: app, gamerId, service: 'tasks', completedAt: new Date().toISOString(), requestedAt: new Date().toISOString() }));
      // before: one failed try and one more a minute later (failed too), then nothing: the held notification stayed
      await eventually(async () => deleted === 2, 5_000);
      expect(await real.newestFirst({ applicationId: app, gamerId }, undefined, 10)).toEqual([]);
    } finally {
      await followUp.stop();
    }
  });

  it('leaves other gamers\' inboxes alone', async () => {
    const [dan, eve, fay] = [await join('Dan'), await join('Eve'), await join('Fay')];
    await request(eve, fay);
    await request(dan, fay);
    await eventually(async () => (await inbox(fay)).length === 2);
    await erase(dan);
    const left = await inbox(fay);
    expect(left.map((n) => n.type === 'friend.request.received' && n.data.user.id)).toEqual([eve.id]);
  });

  it('a replica that stops leaves no erasure it was sent waiting for ack_wait', async () => {
    // ack_wait far longer than the test: an event the stopping replica was sent and dropped would stay pending
    const slow = { ERASURE_ACK_WAIT_MS: '60000' };
    const leaving = await stack.addReplica(slow);
    // the leaving replica is the only one pulling
    for (const replica of stack.replicas) if (replica !== leaving) await replica.close();
    const nc = await stack.nats();
    const jsm = await jetstreamManager(nc);
    const durable = stack.names.gamerErasedConsumer('notifications');
    const state = () => jsm.consumers.info(stack.names.gamersStream, durable);
    const before = await eventually(async () => {
      const info = await state();
      return info.num_pending === 0 && info.num_ack_pending === 0 ? info : undefined;
    });
    // Erasures of gamers nobody knows (each finds nothing), published at once; while this
    // process is busy, the server sends them to the replica's open pull, and they wait unread
    // in its socket when its stop begins.
    const erased = Array.from({ length: 200 }, () => ({ jobId: randomUUID(), applicationId: app, gamerId: randomUUID(), requestedAt: new Date().toISOString() }));
    for (const event of erased) nc.publish(stack.names.gamerErased, JSON.stringify(event));
    await Promise.resolve();
    const until = Date.now() + 300;
    while (Date.now() < until);
    await leaving.close();
    // the stopping replica was sent some of them (nobody else pulls)...
    const atStop = await state();
    expect(atStop.delivered.consumer_seq).toBeGreaterThan(before.delivered.consumer_seq);
    // ...and what it was sent and did not finish went back at once: a new replica erases it
    // all within ack_wait (60 s). The bound leaves a busy CI machine time for 200 erasures
    // (about 3 s on an idle one) and still fails on an event left waiting for ack_wait.
    await stack.addReplica(slow);
    const after = await eventually(async () => {
      const info = await state();
      return info.num_pending === 0 && info.num_ack_pending === 0 ? info : undefined;
    }, 40_000);
    // more deliveries than events: some were delivered again after the stop, so the test
    // exercised the stop's giving back, not a replica that had finished everything
    expect(after.delivered.consumer_seq - before.delivered.consumer_seq).toBeGreaterThan(erased.length);
  }, 90_000);
});
