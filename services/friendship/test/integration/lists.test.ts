import type { ApiResponse, Gamer } from '@gfts/testkit';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFriendshipStack, type FriendshipStack } from '../support/stack.ts';
import { BASE, expectOk, expectProblem, world, expectRequested } from '../support/world.ts';

/** The target of a `Link: <...>; rel="next"` header, or undefined. */
function nextLink(response: ApiResponse<unknown>): string | undefined {
  const header = response.headers.get('link');
  if (!header) return undefined;
  const match = /^<([^>]+)>; rel="next"$/.exec(header);
  if (!match) throw new Error(`unexpected Link header: ${header}`);
  return match[1];
}

describe('lists and paging', () => {
  let stack: FriendshipStack;
  let w: ReturnType<typeof world>;
  let me: Gamer;
  let friends: Gamer[];
  beforeAll(async () => {
    stack = await startFriendshipStack();
    w = world(stack);
    const app = randomUUID();
    me = await w.join(app, 'Popular');
    friends = await w.gamers(7, app, 'Friend');
    // in order, so creation order (and so list order) is known
    for (const friend of friends) await w.befriend(me, friend);
  });
  afterAll(async () => stack?.close());

  it('pages the friend list by following Link headers, without duplicates, ending without a Link', async () => {
    const first = await w.friends(me, '?limit=3');
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(3);
    const second = nextLink(first);
    expect(second).toMatch(/^\/api\/v1\/friendship\?limit=3&cursor=[A-Za-z0-9_-]+$/);

    const pages = [first.body];
    let link = second;
    while (link) {
      const response = await stack.api<typeof first.body>('GET', link, { headers: me.auth });
      expect(response.status).toBe(200);
      pages.push(response.body);
      link = nextLink(response);
    }
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    const ids = pages.flat().map((e) => e.user.id);
    expect(ids).toEqual(friends.map((f) => f.id));
    expect(new Set(pages.flat().map((e) => e.id)).size).toBe(7);
    expect(pages.flat().every((e) => e.status === 'accepted')).toBe(true);
  });

  it('returns the whole list with no Link header when it fits the default page', async () => {
    const all = await w.friends(me);
    expect(all.body).toHaveLength(7);
    expect(all.headers.get('link')).toBeNull();
  });

  it('has no Link header when the last page is exactly full', async () => {
    const first = await w.friends(me, '?limit=7');
    expect(first.body).toHaveLength(7);
    expect(nextLink(first)).toBeUndefined();
  });

  it('pages incoming, outgoing and blocked lists with their own paths', async () => {
    const app = randomUUID();
    const hub = await w.join(app, 'Hub');
    const others = await w.gamers(3, app, 'Other');
    for (const other of others) expectRequested(await w.request(other, hub.id));
    const incoming = await w.incoming(hub, '?limit=2');
    expect(incoming.body.map((e) => e.user.id)).toEqual(others.slice(0, 2).map((o) => o.id));
    expect(nextLink(incoming)).toMatch(/^\/api\/v1\/friendship\/requests\/incoming\?limit=2&cursor=/);
    const rest = await stack.api<typeof incoming.body>('GET', nextLink(incoming)!, { headers: hub.auth });
    expect(rest.body.map((e) => e.user.id)).toEqual([others[2]!.id]);
    expect(nextLink(rest)).toBeUndefined();

    const sender = await w.join(app, 'Sender');
    for (const other of others) expectRequested(await w.request(sender, other.id));
    const outgoing = await w.outgoing(sender, '?limit=1');
    expect(outgoing.body.map((e) => e.user.id)).toEqual([others[0]!.id]);
    expect(nextLink(outgoing)).toMatch(/^\/api\/v1\/friendship\/requests\/outgoing\?limit=1&cursor=/);

    for (const other of others) expectOk(await w.block(hub, other.id));
    const blocked = await w.blocked(hub, '?limit=2');
    expect(blocked.body.map((e) => e.toGamer.id)).toEqual(others.slice(0, 2).map((o) => o.id));
    expect(nextLink(blocked)).toMatch(/^\/api\/v1\/friendship\/blocked\?limit=2&cursor=/);
    const lastBlocked = await stack.api<typeof blocked.body>('GET', nextLink(blocked)!, { headers: hub.auth });
    expect(lastBlocked.body.map((e) => e.toGamer.id)).toEqual([others[2]!.id]);
  });

  it('keeps paging stable when an entry of an earlier page is removed', async () => {
    const [a, b, c, d] = await w.gamers(4);
    for (const x of [b!, c!, d!]) await w.befriend(a!, x);
    const first = await w.friends(a!, '?limit=2');
    expectOk(await w.unfriend(a!, first.body[0]!.id));
    const second = await stack.api<typeof first.body>('GET', nextLink(first)!, { headers: a!.auth });
    expect(second.body.map((e) => e.user.id)).toEqual([d!.id]);
  });

  it('refuses a malformed cursor with 400 VALIDATION_FAILED', async () => {
    for (const cursor of ['AAAA', 'not*base64', 'A'.repeat(201), '%00']) {
      expectProblem(await w.friends(me, `?cursor=${cursor}`), 400, 'VALIDATION_FAILED');
    }
    expectProblem(await w.blocked(me, '?cursor=AAAA'), 400, 'VALIDATION_FAILED');
  });

  it('refuses limits outside 1..200 and unknown query parameters with 400', async () => {
    for (const query of ['?limit=0', '?limit=201', '?limit=abc', '?limit=1.5', '?sort=desc']) {
      expectProblem(await stack.api('GET', `${BASE}${query}`, { headers: me.auth }), 400, 'VALIDATION_FAILED');
    }
  });

  it('accepts limit=200', async () => {
    expect((await w.friends(me, '?limit=200')).body).toHaveLength(7);
  });
});
