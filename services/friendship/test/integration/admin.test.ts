import type { AdminGamerRelations, AdminServiceHealth, UserSummary } from '@gfts/contracts';
import { gamer } from '@gfts/testkit';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFriendshipStack, type FriendshipStack } from '../support/stack.ts';
import { expectOk, expectProblem, expectRequested, world } from '../support/world.ts';

const ADMIN = '/api/v1/friendship/admin';

describe('friendship admin routes (the console\'s gamer look-up)', () => {
  let stack: FriendshipStack;
  beforeAll(async () => {
    stack = await startFriendshipStack();
  });
  afterAll(async () => stack?.close());

  it('shows a gamer\'s profile, friends, pending requests and blocks, within the admin\'s application only', async () => {
    const w = world(stack);
    const app = randomUUID();
    const [ann, bob, cat, dan, eve] = await Promise.all(['Ann', 'Bob', 'Cat', 'Dan', 'Eve'].map((name) => w.join(app, name)));
    await w.befriend(ann!, bob!);
    expectRequested(await w.request(ann!, cat!.id), 'pending');
    expectRequested(await w.request(dan!, ann!.id), 'pending');
    expectOk(await w.block(ann!, eve!.id));
    expectOk(await w.block(cat!, ann!.id));
    const admin = gamer(app, 'Support', { roles: ['admin'] });

    const found = await stack.api<UserSummary[]>('GET', `${ADMIN}/gamers?displayName=an`, { headers: admin.auth });
    expect(found.status).toBe(200);
    // nobody is excluded: Cat blocks Ann, and the admin still finds her
    expect(found.body.map((g) => g.id)).toEqual([ann!.id]);

    const view = await stack.api<AdminGamerRelations>('GET', `${ADMIN}/gamers/${ann!.id.toUpperCase()}`, { headers: admin.auth });
    expect(view.status, JSON.stringify(view.body)).toBe(200);
    expect(view.body.profile).toEqual({ id: ann!.id, displayName: 'Ann', avatar: '' });
    expect(view.body.friends.map((f) => [f.user.displayName, f.status])).toEqual([['Bob', 'accepted']]);
    expect(view.body.outgoing.map((f) => f.user.displayName)).toEqual([]); // Cat's block removed Ann's request
    expect(view.body.incoming.map((f) => f.user.displayName)).toEqual(['Dan']);
    expect(view.body.blocked.map((b) => b.toGamer.displayName)).toEqual(['Eve']);
    expect(view.body.blockedBy.map((g) => g.displayName)).toEqual(['Cat']);
    // blockedBy is bounded by `limit` like the other lists
    expectOk(await w.block(bob!, ann!.id));
    expectOk(await w.block(dan!, ann!.id));
    const first = await stack.api<AdminGamerRelations>('GET', `${ADMIN}/gamers/${ann!.id}?limit=2`, { headers: admin.auth });
    expect(first.body.blockedBy).toHaveLength(2);

    // the admin's reads did not make the admin a gamer others can find
    const bySearch = await w.search(bob!, 'Support');
    expect(bySearch.body).toEqual([]);
  });

  it('answers 404 for an unknown gamer and for one of another application, 403 without the admin role', async () => {
    const w = world(stack);
    const app = randomUUID();
    const ann = await w.join(app, 'Ann');
    const otherAdmin = gamer(randomUUID(), 'Other', { roles: ['admin'] });
    expectProblem(await stack.api('GET', `${ADMIN}/gamers/${ann.id}`, { headers: otherAdmin.auth }), 404, 'NOT_FOUND');
    expectProblem(await stack.api('GET', `${ADMIN}/gamers/${randomUUID()}`, { headers: gamer(app, 'A', { roles: ['admin'] }).auth }), 404, 'NOT_FOUND');
    const found = await stack.api<UserSummary[]>('GET', `${ADMIN}/gamers?displayName=Ann`, { headers: otherAdmin.auth });
    expect(found.body).toEqual([]);
    expectProblem(await stack.api('GET', `${ADMIN}/gamers/${ann.id}`, { headers: ann.auth }), 403, 'FORBIDDEN');
    expectProblem(await stack.api('GET', `${ADMIN}/gamers?displayName=A`, { headers: gamer(app, 'S', { roles: ['server'] }).auth }), 403, 'FORBIDDEN');
    expectProblem(await stack.api('GET', `${ADMIN}/gamers/not-a-uuid`, { headers: otherAdmin.auth }), 400, 'VALIDATION_FAILED');
    expectProblem(await stack.api('GET', `${ADMIN}/health`), 401, 'UNAUTHORIZED');
  });

  it('reports the service\'s readiness to an admin', async () => {
    const admin = gamer(randomUUID(), 'Ops', { roles: ['admin'] });
    const health = await stack.api<AdminServiceHealth>('GET', `${ADMIN}/health`, { headers: admin.auth });
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ service: 'friendship', status: 'ok', checks: { mongodb: 'ok', nats: 'ok' } });
  });
});

describe('friendship admin look-up, profiles read on every call (PROFILE_CACHE_TTL_MS 0)', () => {
  let stack: FriendshipStack;
  beforeAll(async () => {
    stack = await startFriendshipStack({ PROFILE_CACHE_TTL_MS: '0' });
  });
  afterAll(async () => stack?.close());

  it('lists who blocks a gamer oldest block first, whatever order the profiles come in', async () => {
    const w = world(stack);
    const app = randomUUID();
    const ann = await w.join(app, 'Ann');
    const zed = await w.join(app, 'Zed');
    const yan = await w.join(app, 'Yan');
    const xia = await w.join(app, 'Xia');
    for (const blocker of [xia, yan, zed]) expectOk(await w.block(blocker, ann.id));
    const admin = gamer(app, 'Support', { roles: ['admin'] });
    const view = await stack.api<AdminGamerRelations>('GET', `${ADMIN}/gamers/${ann.id}`, { headers: admin.auth });
    expect(view.status).toBe(200);
    // before the fix, in the order the store gave the profiles (Zed, Yan, Xia here)
    expect(view.body.blockedBy.map((g) => g.displayName)).toEqual(['Xia', 'Yan', 'Zed']);
  });
});
