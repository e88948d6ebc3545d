import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFriendshipStack, type FriendshipStack } from '../support/stack.ts';
import { expectOk, expectProblem, expectRequested, world } from '../support/world.ts';

describe('friend notes: PATCH /{friendshipId} and GET /?favorite=true', () => {
  let stack: FriendshipStack;
  let w: ReturnType<typeof world>;
  beforeAll(async () => {
    stack = await startFriendshipStack();
    w = world(stack);
  });
  afterAll(async () => stack?.close());

  it('sets an alias and a favorite mark the caller alone sees in their friend list', async () => {
    const [a, b] = await w.gamers(2);
    const id = await w.befriend(a!, b!);
    const patched = await w.notes(a!, id, { alias: 'Bobby 🎮', favorite: true });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, status: 'accepted', user: { id: b!.id, displayName: b!.name }, alias: 'Bobby 🎮', favorite: true });
    expect((await w.friends(a!)).body).toMatchObject([{ id, alias: 'Bobby 🎮', favorite: true }]);
    // private: the other friend's entry carries none of it
    expect((await w.friends(b!)).body).toMatchObject([{ id, user: { id: a!.id }, alias: '', favorite: false }]);
  });

  it('changes one field at a time, and an empty alias removes it', async () => {
    const [a, b] = await w.gamers(2);
    const id = await w.befriend(a!, b!);
    expect((await w.notes(a!, id, { alias: 'B' })).body).toMatchObject({ alias: 'B', favorite: false });
    expect((await w.notes(a!, id, { favorite: true })).body).toMatchObject({ alias: 'B', favorite: true });
    expect((await w.notes(a!, id, { alias: '' })).body).toMatchObject({ alias: '', favorite: true });
    expect((await w.notes(a!, id, { favorite: false })).body).toMatchObject({ alias: '', favorite: false });
    // both friends may keep notes on one friendship, each their own
    expect((await w.notes(b!, id, { alias: 'A' })).body).toMatchObject({ alias: 'A' });
    expect((await w.friends(a!)).body).toMatchObject([{ alias: '', favorite: false }]);
  });

  it('filters the friend list to favorites, and the next-page link keeps the filter', async () => {
    const [me, f1, f2, f3] = await w.gamers(4);
    const ids = [await w.befriend(me!, f1!), await w.befriend(me!, f2!), await w.befriend(me!, f3!)];
    expect((await w.notes(me!, ids[0]!, { favorite: true })).status).toBe(200);
    expect((await w.notes(me!, ids[2]!, { favorite: true })).status).toBe(200);
    // f2 marks me favorite: that is f2's mark, not mine
    expect((await w.notes(f2!, ids[1]!, { favorite: true })).status).toBe(200);

    const all = await w.friends(me!, '?favorite=true');
    expect(all.body.map((e) => e.id)).toEqual([ids[0], ids[2]]);
    const first = await w.friends(me!, '?favorite=true&limit=1');
    expect(first.body.map((e) => e.id)).toEqual([ids[0]]);
    const link = first.headers.get('link');
    expect(link).toMatch(/favorite=true/);
    const next = /<([^>]+)>/.exec(link!)![1]!;
    const second = await w.api<{ id: string }[]>('GET', next, { headers: me!.auth });
    expect(second.body.map((e) => e.id)).toEqual([ids[2]]);
    expect(second.headers.get('link')).toBeNull();
    expect((await w.friends(me!, '?favorite=false')).body).toHaveLength(3);
    expect((await w.friends(me!, '?favorite=True')).body.map((e) => e.id)).toEqual([ids[0], ids[2]]);
    expect((await w.friends(f2!, '?favorite=true')).body.map((e) => e.id)).toEqual([ids[1]]);
  });

  it('answers 404 for an unknown id, a pending request, someone else\'s friendship and another application\'s', async () => {
    const [a, b, c] = await w.gamers(3);
    const id = await w.befriend(a!, b!);
    expectProblem(await w.notes(a!, randomUUID(), { favorite: true }), 404, 'NOT_FOUND');
    expectProblem(await w.notes(c!, id, { favorite: true }), 404, 'NOT_FOUND');
    const pending = await w.request(a!, c!.id);
    expectRequested(pending, 'pending');
    expectProblem(await w.notes(a!, pending.body.id, { favorite: true }), 404, 'NOT_FOUND');
    expectProblem(await w.notes(c!, pending.body.id, { favorite: true }), 404, 'NOT_FOUND');
    // the same gamer id in another application
    expectProblem(await w.notes(await w.elsewhere(a!), id, { favorite: true }), 404, 'NOT_FOUND');
    expect((await w.friends(a!)).body).toMatchObject([{ id, alias: '', favorite: false }]);
  });

  it('refuses empty and bad bodies with 400 and changes nothing', async () => {
    const [a, b] = await w.gamers(2);
    const id = await w.befriend(a!, b!);
    for (const body of [{}, { alias: 'x'.repeat(33) }, { alias: 'tab\there' }, { favorite: 'yes' }, { alias: 5 }, { nickname: 'x' }, { alias: 'ok', extra: 1 }, []]) {
      expectProblem(await w.notes(a!, id, body), 400, 'VALIDATION_FAILED');
    }
    expectProblem(await w.api('PATCH', `/api/v1/friendship/${id}`, { headers: a!.auth }), 400, 'VALIDATION_FAILED');
    expectProblem(await w.notes(a!, 'not-a-uuid', { favorite: true }), 400, 'VALIDATION_FAILED');
    // 32 characters are fine, counted as characters, not UTF-16 units
    expect((await w.notes(a!, id, { alias: '😀'.repeat(32) })).status).toBe(200);
    expect((await w.friends(a!)).body).toMatchObject([{ alias: '😀'.repeat(32), favorite: false }]);
  });

  it('notes go with the friendship: after unfriending and befriending again they are gone', async () => {
    const [a, b] = await w.gamers(2);
    const id = await w.befriend(a!, b!);
    expect((await w.notes(a!, id, { alias: 'old', favorite: true })).status).toBe(200);
    expectOk(await w.unfriend(b!, id));
    expectProblem(await w.notes(a!, id, { favorite: true }), 404, 'NOT_FOUND');
    const again = await w.befriend(a!, b!);
    expect((await w.friends(a!)).body).toMatchObject([{ id: again, alias: '', favorite: false }]);
  });
});
