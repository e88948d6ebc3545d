import { check, FriendshipEvent, natsNames, type CanMessageReply } from '@gfts/contracts';
import { eventually, mintToken } from '@gfts/testkit';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFriendshipStack, type FriendshipStack } from '../support/stack.ts';
import { expectOk, world, expectRequested } from '../support/world.ts';

describe('NATS', () => {
  let stack: FriendshipStack;
  let w: ReturnType<typeof world>;
  let nc: NatsConnection;
  let received: { subject: string; event: FriendshipEvent; requestId: string | undefined }[];
  beforeAll(async () => {
    stack = await startFriendshipStack();
    w = world(stack);
    nc = await connect({ servers: stack.natsUrl });
    nc.subscribe(`${stack.natsPrefix}.friendship.*`, {
      callback: (error, msg) => {
        if (!error) received.push({ subject: msg.subject, event: msg.json<FriendshipEvent>(), requestId: msg.headers?.get('x-request-id') });
      },
    });
    await nc.flush();
  });
  beforeEach(() => {
    received = [];
  });
  afterAll(async () => {
    await nc?.close();
    await stack?.close();
  });

  /** Waits for the events of one application, in order of arrival. */
  const eventsOf = (app: string, count: number) =>
    eventually(async () => {
      const mine = received.filter((r) => r.event.applicationId === app);
      return mine.length >= count ? mine : undefined;
    }, 5_000);

  describe('friendship events', () => {
    it('publishes requested, accepted and removed, valid against the contract', async () => {
      const [a, b] = await w.gamers(2);
      expectRequested(await w.request(a!, b!.id));
      const friendshipId = await w.incomingId(b!, a!);
      expectOk(await w.accept(b!, friendshipId));
      expect(await w.friendshipId(a!, b!)).toBe(friendshipId);
      expectOk(await w.unfriend(a!, friendshipId));
      const events = await eventsOf(a!.app, 3);
      expect(events.map((e) => e.subject)).toEqual(['requested', 'accepted', 'removed'].map((t) => `${stack.natsPrefix}.friendship.${t}`));
      const base = { applicationId: a!.app, occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) };
      expect(events.map((e) => e.event)).toEqual([
        // the actor's summary, as the directory shows it, for the other side's notification
        { ...base, type: 'requested', friendshipId, actorId: a!.id, targetId: b!.id, actor: { id: a!.id, displayName: a!.name, avatar: '' } },
        { ...base, type: 'accepted', friendshipId, actorId: b!.id, targetId: a!.id, actor: { id: b!.id, displayName: b!.name, avatar: '' } },
        { ...base, type: 'removed', friendshipId, actorId: a!.id, targetId: b!.id },
      ]);
      for (const { event } of events) expect(check(FriendshipEvent, event)).toEqual({ ok: true, value: event });
    });

    it('names the actor by the avatar stored earlier when the token carries none', async () => {
      const app = randomUUID();
      const withPicture = await w.join(app, 'Pia', { picture: 'https://cdn.example/pia.png' });
      // the same gamer, a later token without the picture claim: the stored avatar stays
      const token = mintToken({ sub: withPicture.id, app, name: 'Pia' });
      const pia = { ...withPicture, token, auth: { authorization: `Bearer ${token}` } };
      const bo = await w.join(app, 'Bo');
      expectRequested(await w.request(pia, bo.id));
      const [requested] = await eventsOf(app, 1);
      expect(requested!.event).toMatchObject({ type: 'requested', actorId: pia.id, actor: { id: pia.id, displayName: 'Pia', avatar: 'https://cdn.example/pia.png' } });
    });

    it('publishes accepted with the request\'s id when crossed requests make the friendship', async () => {
      const [a, b] = await w.gamers(2);
      expectRequested(await w.request(a!, b!.id));
      expectRequested(await w.request(b!, a!.id));
      const friendshipId = await w.friendshipId(a!, b!);
      const events = await eventsOf(a!.app, 2);
      expect(events.map((e) => [e.event.type, e.event.friendshipId, e.event.actorId, e.event.targetId])).toEqual([
        ['requested', friendshipId, a!.id, b!.id],
        ['accepted', friendshipId, b!.id, a!.id],
      ]);
    });

    it('publishes rejected, cancelled, blocked and unblocked', async () => {
      const [a, b, c] = await w.gamers(3);
      expectRequested(await w.request(a!, b!.id));
      const rejected = await w.incomingId(b!, a!);
      expectOk(await w.reject(b!, rejected));
      expectRequested(await w.request(a!, c!.id));
      const cancelled = await w.incomingId(c!, a!);
      expectOk(await w.cancel(a!, cancelled));
      expectOk(await w.block(c!, a!.id));
      const blockId = (await w.blocked(c!)).body[0]!.id;
      expectOk(await w.unblock(c!, blockId));
      const events = await eventsOf(a!.app, 6);
      expect(events.map((e) => [e.event.type, e.event.friendshipId, e.event.actorId, e.event.targetId])).toEqual([
        ['requested', rejected, a!.id, b!.id],
        ['rejected', rejected, b!.id, a!.id],
        ['requested', cancelled, a!.id, c!.id],
        ['cancelled', cancelled, a!.id, c!.id],
        ['blocked', blockId, c!.id, a!.id],
        ['unblocked', blockId, c!.id, a!.id],
      ]);
    });

    it('publishes one requested event for 10 identical concurrent requests, and none for refused calls', async () => {
      const [a, b] = await w.gamers(2);
      await Promise.all(Array.from({ length: 10 }, () => w.request(a!, b!.id)));
      expect((await w.request(a!, a!.id)).status).toBe(400);
      expect((await w.accept(b!, randomUUID())).status).toBe(404);
      expectOk(await w.block(a!, b!.id));
      expectOk(await w.block(a!, b!.id));
      // refused after their write (docs/friendship.md, "Requests"): withdrawn, never announced
      expect((await w.request(b!, a!.id)).status).toBe(403);
      expect((await w.request(a!, randomUUID())).status).toBe(404);
      await eventsOf(a!.app, 2);
      // give any duplicate time to arrive before asserting there is none
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(received.filter((r) => r.event.applicationId === a!.app).map((r) => r.event.type)).toEqual(['requested', 'blocked']);
    });
  });

  describe('request ids', () => {
    it('carries the client request id from the gateway into the event headers', async () => {
      const [a, b] = await w.gamers(2);
      const response = await stack.api('POST', '/api/v1/friendship', { headers: { ...a!.auth, 'x-request-id': 'client-req-7' }, body: { target: b!.id } });
      expect(response.status).toBe(200);
      const [requested] = await eventsOf(a!.app, 1);
      expect(requested!.requestId).toBe('client-req-7');
    });
  });

  describe('can-message request-reply', () => {
    const ask = async (payload: unknown): Promise<CanMessageReply> => {
      const data = typeof payload === 'string' ? payload : JSON.stringify(payload);
      const reply = await nc.request(natsNames(stack.natsPrefix).canMessage, data, { timeout: 5_000 });
      return reply.json<CanMessageReply>();
    };

    it('answers allowed unless the recipient blocks the sender', async () => {
      const [a, b] = await w.gamers(2);
      const app = a!.app;
      expect(await ask({ applicationId: app, from: b!.id, to: a!.id })).toEqual({ allowed: true });
      expectOk(await w.block(a!, b!.id));
      expect(await ask({ applicationId: app, from: b!.id, to: a!.id })).toEqual({ allowed: false, reason: 'blocked' });
      // one-way: A blocking B does not stop A messaging B; the question is whether `to` blocks `from`
      expect(await ask({ applicationId: app, from: a!.id, to: b!.id })).toEqual({ allowed: true });
      // upper-case ids name the same gamers
      expect(await ask({ applicationId: app.toUpperCase(), from: b!.id.toUpperCase(), to: a!.id.toUpperCase() })).toEqual({ allowed: false, reason: 'blocked' });
      // a block in one application says nothing about another
      expect(await ask({ applicationId: randomUUID(), from: b!.id, to: a!.id })).toEqual({ allowed: true });
      expectOk(await w.unblock(a!, (await w.blocked(a!)).body[0]!.id));
      expect(await ask({ applicationId: app, from: b!.id, to: a!.id })).toEqual({ allowed: true });
    });

    it('answers invalid_request to anything that is not a valid question', async () => {
      const invalid = { allowed: false, reason: 'invalid_request' };
      const id = randomUUID();
      for (const payload of [
        'not json',
        '',
        'null',
        [],
        { applicationId: id, from: id },
        { applicationId: 'x', from: id, to: id },
        { applicationId: id, from: id, to: { $ne: null } },
        { applicationId: id, from: id, to: id, extra: true },
      ]) {
        expect(await ask(payload)).toEqual(invalid);
      }
    });
  });
});
