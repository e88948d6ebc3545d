import { randomUUID } from 'node:crypto';
import type { Notification } from '@gfts/contracts';
import { eventually, gamer, type Gamer } from '@gfts/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClient } from '../support/live-client.ts';
import { startNotificationsStack, type NotificationsStack } from '../support/stack.ts';

const LIVE = '/api/v1/notifications/live';
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('what each event tells whom', () => {
  let stack: NotificationsStack;
  const app = randomUUID();
  beforeAll(async () => {
    stack = await startNotificationsStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  const open = (who: Gamer) => LiveClient.open(`${stack.replicas[0]!.wsUrl}${LIVE}`, { headers: who.auth });
  const register = async (...who: Gamer[]) => {
    for (const g of who) expect((await stack.api('GET', '/api/v1/friendship', { headers: g.auth })).status).toBe(200);
  };
  const friendship = async (method: string, path: string, who: Gamer, body?: unknown) => {
    const response = await stack.api(method, `/api/v1/friendship${path}`, { headers: who.auth, ...(body ? { body } : {}) });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  };
  const requestId = async (from: Gamer, to: Gamer) => {
    const response = await stack.api<{ id: string }[]>('GET', '/api/v1/friendship/requests/outgoing', { headers: from.auth });
    return response.body.find((r) => (r as unknown as { user: { id: string } }).user.id === to.id)!.id;
  };
  const inbox = async (who: Gamer) => (await stack.api<Notification[]>('GET', '/api/v1/notifications', { headers: who.auth })).body;
  /** A marker sent after the act under test: once it arrived, anything the act caused has too. */
  const marker = async (to: Gamer, live: LiveClient) => {
    const stranger = gamer(app, 'Marker');
    await register(stranger);
    await friendship('POST', '', stranger, { target: to.id });
    await live.next('friend.request.received', (n) => n.data.user.id === stranger.id);
  };

  it('friend requests: received with the sender, accepted with the accepter, cancelled, removed', async () => {
    const ann = gamer(app, 'Ann', { picture: 'https://cdn.example/ann.png' });
    const bob = gamer(app, 'Bob');
    await register(ann, bob);
    const [annLive, bobLive] = await Promise.all([open(ann), open(bob)]);

    await friendship('POST', '', ann, { target: bob.id });
    const received = await bobLive.next('friend.request.received');
    const friendshipId = await requestId(ann, bob);
    expect(received).toEqual({
      id: expect.stringMatching(UUID_V7), type: 'friend.request.received', at: expect.any(String),
      data: { friendshipId, user: { id: ann.id, displayName: 'Ann', avatar: 'https://cdn.example/ann.png' } },
    });
    expect(new Date(received.at).toISOString()).toBe(received.at);

    await friendship('POST', `/${friendshipId}/accept`, bob);
    const accepted = await annLive.next('friend.request.accepted');
    expect(accepted.data).toEqual({ friendshipId, user: { id: bob.id, displayName: 'Bob', avatar: '' } });

    await friendship('DELETE', `/${friendshipId}`, ann);
    expect((await bobLive.next('friend.removed')).data).toEqual({ friendshipId, userId: ann.id });

    await friendship('POST', '', bob, { target: ann.id });
    const second = await requestId(bob, ann);
    await friendship('DELETE', `/requests/outgoing/${second}`, bob);
    expect((await annLive.next('friend.request.cancelled')).data).toEqual({ friendshipId: second, userId: bob.id });

    // Only about the gamer connected: Ann heard nothing of her own acts.
    await marker(ann, annLive);
    expect(annLive.messages.map((n) => n.type)).toEqual(['friend.request.accepted', 'friend.request.received', 'friend.request.cancelled', 'friend.request.received']);
    expect(bobLive.messages.map((n) => n.type)).toEqual(['friend.request.received', 'friend.removed']);
    annLive.close();
    bobLive.close();
  });

  it('a rejected request tells its sender nothing', async () => {
    const ann = gamer(app, 'Ann');
    const bob = gamer(app, 'Bob');
    await register(ann, bob);
    const annLive = await open(ann);
    await friendship('POST', '', ann, { target: bob.id });
    await friendship('DELETE', `/requests/incoming/${await requestId(ann, bob)}`, bob);
    await marker(ann, annLive);
    expect(annLive.messages.map((n) => n.type)).toEqual(['friend.request.received']);
    annLive.close();
  });

  it('a block looks like an unfriend to the blocked gamer, and tells nothing else of the blocker', async () => {
    const ann = gamer(app, 'Ann');
    const bob = gamer(app, 'Bob');
    const cat = gamer(app, 'Cat');
    await register(ann, bob, cat);
    const bobLive = await open(bob);

    // Friends: Ann unfriends Cat, Ann blocks Bob. Cat's and Bob's notifications are alike.
    const befriend = async (a: Gamer, b: Gamer) => {
      await friendship('POST', '', a, { target: b.id });
      const id = await requestId(a, b);
      await friendship('POST', `/${id}/accept`, b);
      return id;
    };
    const annBob = await befriend(ann, bob);
    const annCat = await befriend(ann, cat);
    const catLive = await open(cat);
    await friendship('DELETE', `/${annCat}`, ann);
    const unfriended = await catLive.next('friend.removed');

    await friendship('POST', '/block', ann, { target: bob.id });
    const removed = await bobLive.next('friend.removed');
    expect(removed.data).toEqual({ friendshipId: annBob, userId: ann.id });
    expect(Object.keys(removed).sort()).toEqual(Object.keys(unfriended).sort());
    expect(Object.keys(removed.data).sort()).toEqual(Object.keys(unfriended.data).sort());
    const blockId = (await stack.api<{ id: string }[]>('GET', '/api/v1/friendship/blocked', { headers: ann.auth })).body[0]!.id;
    expect(JSON.stringify(bobLive.messages)).not.toContain(blockId);
    expect(JSON.stringify(bobLive.messages)).not.toMatch(/block/i);

    // While blocked, Bob's attempts reach Ann as nothing; her unblock reaches him as nothing.
    const annLive = await open(ann);
    expect((await stack.api('POST', '/api/v1/friendship', { headers: bob.auth, body: { target: ann.id } })).status).toBe(403);
    await friendship('DELETE', `/blocked/${blockId}`, ann);
    await marker(bob, bobLive);
    await marker(ann, annLive);
    // the request Bob accepted, the block as a removal, the marker
    expect(bobLive.messages.map((n) => n.type)).toEqual(['friend.request.received', 'friend.removed', 'friend.request.received']);
    expect(annLive.ofType('friend.request.received').map((n) => n.data.user.id)).not.toContain(bob.id);
    for (const live of [annLive, bobLive, catLive]) live.close();
  });

  it('a block withdraws the blocker\'s request as a cancel, and drops the blocked gamer\'s request silently', async () => {
    const ann = gamer(app, 'Ann');
    const bob = gamer(app, 'Bob');
    const dan = gamer(app, 'Dan');
    await register(ann, bob, dan);
    const [bobLive, danLive] = await Promise.all([open(bob), open(dan)]);

    await friendship('POST', '', ann, { target: bob.id });
    const pending = await requestId(ann, bob);
    await bobLive.next('friend.request.received');
    await friendship('POST', '/block', ann, { target: bob.id });
    expect((await bobLive.next('friend.request.cancelled')).data).toEqual({ friendshipId: pending, userId: ann.id });

    await friendship('POST', '', dan, { target: ann.id });
    await friendship('POST', '/block', ann, { target: dan.id });
    await marker(dan, danLive);
    expect(danLive.messages.map((n) => n.type)).toEqual(['friend.request.received']);
    expect((await inbox(dan)).map((n) => n.type)).toEqual(['friend.request.received']);
    bobLive.close();
    danLive.close();
  });

  it('tasks: progress, completion, the reward granted, an achievement', async () => {
    const admin = gamer(app, 'Admin', { roles: ['admin'] });
    const server = gamer(app, 'Server', { roles: ['server'] });
    const ann = gamer(app, 'Ann');
    const item = randomUUID();
    const task = await stack.api<{ id: string }>('POST', `/api/v1/${app}/tasks`, {
      headers: admin.auth,
      body: { name: 'Win 3', description: 'win three', targetValue: 3, numberOfGames: 0, family: 'weekly', applicationStatsId: 'wins', isAchievement: false, rewards: [{ inventoryItemId: item, quantity: 2 }] },
    });
    expect(task.status, JSON.stringify(task.body)).toBe(201);
    const achievement = await stack.api<{ id: string }>('POST', `/api/v1/${app}/tasks`, {
      headers: admin.auth,
      body: { name: 'First kill', description: 'one kill', targetValue: 1, numberOfGames: 0, family: 'lifetime', applicationStatsId: 'kills', isAchievement: true, rewards: [] },
    });
    expect(achievement.status).toBe(201);
    const assigned = await stack.api<{ id: string }[]>('POST', '/api/v1/tasks/assign', { headers: ann.auth, body: { family: 'weekly', numberOfTasks: 1 } });
    expect(assigned.status).toBe(200);
    const gamerTaskId = assigned.body[0]!.id;
    const live = await open(ann);
    const play = async (stats: Record<string, number>) => {
      const event = {
        eventId: randomUUID(), applicationId: app, gamerId: ann.id, gameId: 'g1', occurredAt: new Date().toISOString(),
        stats: Object.entries(stats).map(([applicationStatsId, value]) => ({ applicationStatsId, value })),
      };
      expect((await stack.api('POST', '/api/v1/stats', { headers: server.auth, body: event })).status).toBe(202);
    };

    await play({ wins: 1 });
    expect((await live.next('task.progress')).data).toEqual({ gamerTaskId, taskId: task.body.id, progress: 1, targetValue: 3 });
    await play({ wins: 2 });
    expect((await live.next('task.completed')).data).toEqual({ gamerTaskId, taskId: task.body.id });

    await play({ kills: 1 });
    const done = await live.next('achievement.completed');
    expect(done.data).toEqual({ gamerTaskId: expect.any(String), taskId: achievement.body.id });

    expect((await stack.api('POST', `/api/v1/tasks/${gamerTaskId}/claim`, { headers: ann.auth })).status).toBe(200);
    expect((await live.next('inventory.granted')).data).toEqual({ gamerTaskId, items: [{ inventoryItemId: item, quantity: 2 }] });

    // Progress is live only; everything else is in the inbox, newest first.
    const kept = await eventually(async () => {
      const list = await inbox(ann);
      return list.length === 3 ? list : undefined;
    });
    expect(kept.map((n) => n.type)).toEqual(['inventory.granted', 'achievement.completed', 'task.completed']);
    expect(live.ofType('task.progress').every((n) => n.data.gamerTaskId === gamerTaskId)).toBe(true);
    live.close();
  });

  it('coalesces a burst of progress of one task, ending on the latest value', async () => {
    const ann = gamer(app, 'Ann');
    const live = await open(ann);
    const nc = await stack.nats();
    const gamerTaskId = randomUUID();
    const taskId = randomUUID();
    const burst = 30;
    for (let progress = 1; progress <= burst; progress++) {
      nc.publish(stack.names.taskProgress, JSON.stringify({
        applicationId: app, gamerId: ann.id, gamerTaskId, taskId, isAchievement: false, progress, targetValue: 100, occurredAt: new Date().toISOString(),
      }));
    }
    await live.next('task.progress', (n) => n.data.progress === burst);
    const seen = live.ofType('task.progress').map((n) => n.data.progress);
    expect(seen.length).toBeLessThan(burst);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    live.close();
  });
});
