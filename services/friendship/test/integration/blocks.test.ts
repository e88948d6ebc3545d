import { randomUUID } from 'node:crypto';
import { databaseUrl, infra, uniqueSuffix } from '@gfts/testkit';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModels } from '../../src/repository/models.ts';
import { startFriendshipStack, type FriendshipStack } from '../support/stack.ts';
import { expectOk, expectProblem, world, expectRequested } from '../support/world.ts';

describe('blocking', () => {
  let stack: FriendshipStack;
  let w: ReturnType<typeof world>;
  beforeAll(async () => {
    stack = await startFriendshipStack();
    w = world(stack);
  });
  afterAll(async () => stack?.close());

  it('lists the blocked gamer in the blocker\'s list only (blocking is one-way)', async () => {
    const app = randomUUID();
    const a = await w.join(app, 'Blocker');
    const b = await w.join(app, 'Blocked', { picture: 'https://cdn.example/b.png' });
    expectOk(await w.block(a, b.id));
    const list = await w.blocked(a);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([{ id: expect.any(String), toGamer: { id: b.id, displayName: 'Blocked', avatar: 'https://cdn.example/b.png' } }]);
    for (const view of [w.blocked(b), w.friends(b), w.incoming(b), w.outgoing(b)]) expect((await view).body).toEqual([]);
  });

  it('is idempotent: blocking twice answers ok and keeps one record', async () => {
    const [a, b] = await w.gamers(2);
    expectOk(await w.block(a!, b!.id));
    const first = (await w.blocked(a!)).body;
    expectOk(await w.block(a!, b!.id));
    expect((await w.blocked(a!)).body).toEqual(first);
  });

  it('removes a friendship between the two', async () => {
    const [a, b] = await w.gamers(2);
    await w.befriend(a!, b!);
    expectOk(await w.block(b!, a!.id));
    expect((await w.friends(a!)).body).toEqual([]);
    expect((await w.friends(b!)).body).toEqual([]);
  });

  it('removes a pending request in either direction', async () => {
    const [a, b, c] = await w.gamers(3);
    expectRequested(await w.request(a!, b!.id));
    expectOk(await w.block(a!, b!.id));
    expectRequested(await w.request(c!, a!.id));
    expectOk(await w.block(a!, c!.id));
    for (const who of [a!, b!, c!]) {
      expect((await w.incoming(who)).body).toEqual([]);
      expect((await w.outgoing(who)).body).toEqual([]);
    }
  });

  it('refuses the blocked gamer\'s friend requests with 403 BLOCKED', async () => {
    const [a, b] = await w.gamers(2);
    expectOk(await w.block(a!, b!.id));
    expectProblem(await w.request(b!, a!.id), 403, 'BLOCKED');
    expect((await w.incoming(a!)).body).toEqual([]);
    expect((await w.outgoing(b!)).body).toEqual([]);
  });

  it('refuses identical requests at once across a standing block, every one of them, and keeps none', async () => {
    // a repeat that finds its twin's request checks blocks as the twin does: it never
    // answers 200 for the request the twin then withdraws (nor 409)
    for (const blockedBy of ['target', 'caller'] as const) {
      const [a, b] = await w.gamers(2);
      expectOk(blockedBy === 'target' ? await w.block(b!, a!.id) : await w.block(a!, b!.id));
      const burst = await Promise.all(Array.from({ length: 10 }, () => w.request(a!, b!.id)));
      expect({ blockedBy, statuses: [...new Set(burst.map((r) => r.status))] }).toEqual({ blockedBy, statuses: [403] });
      expect((await w.outgoing(a!)).body).toEqual([]);
      expect((await w.incoming(b!)).body).toEqual([]);
    }
  });

  it('refuses the blocker\'s own requests with 403 BLOCKED until they unblock', async () => {
    const [a, b] = await w.gamers(2);
    expectOk(await w.block(a!, b!.id));
    const refused = await w.request(a!, b!.id);
    expectProblem(refused, 403, 'BLOCKED');
    expect((refused.body as unknown as { detail: string }).detail).toMatch(/unblock/);
    expect((await w.outgoing(a!)).body).toEqual([]);
    expectOk(await w.unblock(a!, (await w.blocked(a!)).body[0]!.id));
    expectRequested(await w.request(a!, b!.id));
  });

  it('hides the blocker from the blocked gamer\'s search, not the other way round', async () => {
    const app = randomUUID();
    const a = await w.join(app, 'Hidewell Alpha');
    const b = await w.join(app, 'Hidewell Beta');
    const c = await w.join(app, 'Hidewell Gamma');
    expectOk(await w.block(a, b.id));
    expect((await w.search(b, 'hidewell')).body.map((u) => u.id).sort()).toEqual([c.id]);
    expect((await w.search(a, 'hidewell')).body.map((u) => u.id).sort()).toEqual([b.id, c.id].sort());
    expect((await w.search(c, 'hidewell')).body.map((u) => u.id).sort()).toEqual([a.id, b.id].sort());
  });

  it('unblock restores requests and search and answers 404 afterwards', async () => {
    const app = randomUUID();
    const a = await w.join(app, 'Unblocker');
    const b = await w.join(app, 'Unblocked');
    expectOk(await w.block(a, b.id));
    const id = (await w.blocked(a)).body[0]!.id;
    expectOk(await w.unblock(a, id));
    expect((await w.blocked(a)).body).toEqual([]);
    expect((await w.search(b, 'unblocker')).body.map((u) => u.id)).toEqual([a.id]);
    expectRequested(await w.request(b, a.id));
    expectProblem(await w.unblock(a, id), 404, 'NOT_FOUND');
  });

  it('lets only the blocker unblock; the blocked gamer and strangers get 404', async () => {
    const [a, b, c] = await w.gamers(3);
    expectOk(await w.block(a!, b!.id));
    const id = (await w.blocked(a!)).body[0]!.id;
    expectProblem(await w.unblock(b!, id), 404, 'NOT_FOUND');
    expectProblem(await w.unblock(c!, id), 404, 'NOT_FOUND');
    expectProblem(await w.unblock(a!, randomUUID()), 404, 'NOT_FOUND');
    expectProblem(await w.unblock(a!, 'not-a-uuid'), 400, 'VALIDATION_FAILED');
    expect((await w.blocked(a!)).body.map((e) => e.id)).toEqual([id]);
  });

  it('refuses blocking yourself (400), an unknown gamer (404) and a malformed target (400)', async () => {
    const [a] = await w.gamers(1);
    expectProblem(await w.block(a!, a!.id), 400, 'CANNOT_TARGET_SELF');
    expectProblem(await w.block(a!, randomUUID()), 404, 'NOT_FOUND');
    expectProblem(await w.block(a!, 'x'), 400, 'VALIDATION_FAILED');
    expect((await w.blocked(a!)).body).toEqual([]);
  });

  it('a mutual block needs both unblocks before either can send a request', async () => {
    const [a, b] = await w.gamers(2);
    expectOk(await w.block(a!, b!.id));
    expectOk(await w.block(b!, a!.id));
    expectOk(await w.unblock(a!, (await w.blocked(a!)).body[0]!.id));
    expectProblem(await w.request(a!, b!.id), 403, 'BLOCKED');
    expectProblem(await w.request(b!, a!.id), 403, 'BLOCKED');
  });
});

describe('the block indexes of a database made before 2026-11-28', () => {
  it('lose the (applicationId, blocked) index the look-up index replaced, at the service\'s start', async () => {
    const conn = await mongoose.createConnection(databaseUrl(infra().mongoUrl, `old-blocks-${uniqueSuffix()}`)).asPromise();
    try {
      await conn.db!.collection('blocks').createIndex({ applicationId: 1, blocked: 1 });
      await createModels(conn);
      const names = (await conn.db!.collection('blocks').indexes()).map((i) => i.name);
      expect(names).toContain('applicationId_1_blocked_1__id_1');
      expect(names).not.toContain('applicationId_1_blocked_1');
      // a second start (another replica) finds it gone and is fine
      await createModels(conn);
    } finally {
      await conn.dropDatabase();
      await conn.close();
    }
  });
});
