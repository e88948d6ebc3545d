import { randomUUID } from 'node:crypto';
import type { Notification } from '@gfts/contracts';
import { eventually, gamer, storeEngine, type ApiResponse, type Gamer } from '@gfts/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNotificationsStack, type NotificationsStack } from '../support/stack.ts';

describe('the notification inbox', () => {
  let stack: NotificationsStack;
  const app = randomUUID();
  beforeAll(async () => {
    // the expiry sweep (stores without TTL indexes) every second, as short as allowed
    stack = await startNotificationsStack({ NOTIFY_SWEEP_INTERVAL_MS: '1000' });
  });
  afterAll(async () => {
    await stack?.close();
  });

  const inbox = (who: Gamer, query = '') => stack.api<Notification[]>('GET', `/api/v1/notifications${query}`, { headers: who.auth });

  /** `count` gamers each send `to` a friend request: `count` notifications in its inbox. */
  async function requestsTo(to: Gamer, count: number): Promise<void> {
    await stack.api('GET', '/api/v1/friendship', { headers: to.auth });
    for (let i = 0; i < count; i++) {
      const from = gamer(app, `Sender ${i}`);
      expect((await stack.api('POST', '/api/v1/friendship', { headers: from.auth, body: { target: to.id } })).status).toBe(200);
    }
    await eventually(async () => ((await inbox(to, '?limit=200')).body.length === count ? true : undefined));
  }

  it('lists newest first and pages with a cursor in Link rel="next"', async () => {
    const ann = gamer(app, 'Ann');
    await requestsTo(ann, 7);
    const all = (await inbox(ann)).body;
    expect(all).toHaveLength(7);
    expect(all.map((n) => n.data && (n.data as { user: { displayName: string } }).user.displayName)).toEqual(
      [6, 5, 4, 3, 2, 1, 0].map((i) => `Sender ${i}`),
    );
    expect(all.map((n) => n.id)).toEqual([...all.map((n) => n.id)].sort().reverse());

    const seen: string[] = [];
    let path: string | undefined = '/api/v1/notifications?limit=3';
    while (path) {
      const page: ApiResponse<Notification[]> = await stack.api<Notification[]>('GET', path, { headers: ann.auth });
      expect(page.status).toBe(200);
      seen.push(...page.body.map((n) => n.id));
      path = page.headers.get('link')?.match(/^<([^>]+)>; rel="next"$/)?.[1];
    }
    expect(seen).toEqual(all.map((n) => n.id));
  });

  it('lists only what came after ?since=<id>, oldest first, each next page after the last shown (design.md: resume with ?since=<id>)', async () => {
    const ann = gamer(app, 'Ann');
    await requestsTo(ann, 6);
    const all = (await inbox(ann)).body;
    // the client holds the third oldest: three came after it, oldest first
    const held = all[3]!;
    const missed = all.slice(0, 3).reverse().map((n) => n.id);
    const after = await inbox(ann, `?since=${held.id.toUpperCase()}`);
    expect(after.status).toBe(200);
    expect(after.body.map((n) => n.id)).toEqual(missed);
    // paged: the link's since is the last one shown, so a client that stops after a page
    // and comes back with the last id it read misses nothing
    const first = await inbox(ann, `?since=${held.id}&limit=2`);
    expect(first.body.map((n) => n.id)).toEqual(missed.slice(0, 2));
    const next = first.headers.get('link')?.match(/^<([^>]+)>; rel="next"$/)?.[1];
    expect(next).toBe(`/api/v1/notifications?since=${missed[1]}&limit=2`);
    const second = await stack.api<Notification[]>('GET', next!, { headers: ann.auth });
    expect(second.body.map((n) => n.id)).toEqual([missed[2]]);
    expect(second.headers.get('link')).toBeNull();
    // the newest: nothing after it; a malformed one: 400 (until 2026-11-29 any since was a
    // 400); a cursor beside it is not read
    expect((await inbox(ann, `?since=${all[0]!.id}`)).body).toEqual([]);
    expect((await inbox(ann, '?since=not-an-id')).status).toBe(400);
    const cursor = (await inbox(ann, '?limit=1')).headers.get('link')!.match(/cursor=([^&>]+)/)![1];
    expect((await inbox(ann, `?since=${held.id}&cursor=${cursor}`)).body.map((n) => n.id)).toEqual(missed);
  });

  it('deletes one of the caller\'s notifications; an unknown or foreign id is the same 404', async () => {
    const ann = gamer(app, 'Ann');
    const bob = gamer(app, 'Bob');
    await requestsTo(ann, 2);
    await requestsTo(bob, 1);
    const [newest, oldest] = (await inbox(ann)).body;
    const bobs = (await inbox(bob)).body[0]!;

    expect((await stack.api('DELETE', `/api/v1/notifications/${newest!.id}`, { headers: ann.auth })).body).toEqual({ ok: true });
    expect((await inbox(ann)).body.map((n) => n.id)).toEqual([oldest!.id]);

    const again = await stack.api('DELETE', `/api/v1/notifications/${newest!.id}`, { headers: ann.auth });
    const foreign = await stack.api('DELETE', `/api/v1/notifications/${bobs.id}`, { headers: ann.auth });
    const unknown = await stack.api('DELETE', `/api/v1/notifications/${randomUUID()}`, { headers: ann.auth });
    for (const response of [again, foreign, unknown]) {
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: 'NOT_FOUND', detail: 'no such notification of yours' });
    }
    expect((await inbox(bob)).body).toHaveLength(1);
    expect((await stack.api('DELETE', '/api/v1/notifications/not-an-id', { headers: ann.auth })).status).toBe(400);
  });

  it('refuses a malformed cursor or limit with 400 and needs a token', async () => {
    const ann = gamer(app, 'Ann');
    expect((await inbox(ann, '?cursor=zzzz')).status).toBe(400);
    expect((await inbox(ann, '?limit=0')).status).toBe(400);
    expect((await stack.api('GET', '/api/v1/notifications')).status).toBe(401);
  });

  it('shows nothing past its retention, and keeps it expiring on its own', async () => {
    const ann = gamer(app, 'Ann');
    await requestsTo(ann, 1);
    const db = await stack.db();
    const stored = await db.collection('notifications').findOne({ gamerId: ann.id });
    // made + NOTIFY_RETENTION_MS (30 days by default)
    const kept = stored!.expiresAt.getTime() - Date.parse(stored!.at as string);
    expect(Math.abs(kept - 30 * 86_400_000)).toBeLessThan(60_000);
    await db.collection('notifications').updateOne({ _id: stored!._id }, { $set: { expiresAt: new Date(Date.now() - 1_000) } });
    expect((await inbox(ann)).body).toEqual([]);
    // and it leaves the store without a read: the index on the field the store expires by
    const expiry = (await db.collection('notifications').indexes()).find((i) => JSON.stringify(i.key) === '{"expiresAt":1}');
    expect(expiry).toBeDefined();
    // TTL indexes are MongoDB's; FerretDB v1 has none, and the service sweeps
    expect(expiry!.expireAfterSeconds !== undefined ? 'mongodb' : 'ferretdb').toBe(storeEngine());
    if (expiry!.expireAfterSeconds !== undefined) {
      // MongoDB: a TTL index (its monitor runs once a minute, too slow to wait for here)
      expect(expiry).toMatchObject({ name: 'expiry', expireAfterSeconds: 0 });
    } else {
      // a store without TTL indexes (FerretDB v1): the service's own sweep deletes it
      expect(expiry!.name).toBe('expiry_sweep');
      await eventually(async () => (await db.collection('notifications').countDocuments({ _id: stored!._id })) === 0, 10_000, 200);
    }
  });
});
