import { gamer, type Gamer } from '@gfts/testkit';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_READS } from '../../src/domain/limits.ts';
import { startFriendshipStack, type FriendshipStack } from '../support/stack.ts';
import { BASE, expectProblem, world } from '../support/world.ts';

describe('GET /search', () => {
  let stack: FriendshipStack;
  let w: ReturnType<typeof world>;
  let app: string;
  let me: Gamer;
  const named: Record<string, Gamer> = {};
  const names = ['DragonSlayer', 'dragon fly', 'Dragoon', 'Drake', 'Élodie', 'ＮＩＮＪＡ Kid', 'Straße', '.*star', '(paren)', '$where', '{"$ne":null}', '^caret', 'dragon😀'];

  beforeAll(async () => {
    stack = await startFriendshipStack();
    w = world(stack);
    app = randomUUID();
    me = await w.join(app, 'Dragon Searcher');
    for (const name of names) named[name] = await w.join(app, name, { picture: `https://cdn.example/${encodeURIComponent(name)}.png` });
  });
  afterAll(async () => stack?.close());

  const idsOf = (response: { body: { id: string }[] }) => response.body.map((u) => u.id);

  it('matches a case-insensitive prefix, sorted by name, excluding the caller', async () => {
    const response = await w.search(me, 'DRAG');
    expect(response.status).toBe(200);
    expect(response.body).toEqual([
      { id: named['dragon fly']!.id, displayName: 'dragon fly', avatar: `https://cdn.example/${encodeURIComponent('dragon fly')}.png` },
      { id: named.DragonSlayer!.id, displayName: 'DragonSlayer', avatar: expect.any(String) },
      { id: named['dragon😀']!.id, displayName: 'dragon😀', avatar: expect.any(String) },
      { id: named.Dragoon!.id, displayName: 'Dragoon', avatar: expect.any(String) },
    ]);
  });

  it('matches prefixes only, not substrings', async () => {
    expect(idsOf(await w.search(me, 'slayer'))).toEqual([]);
    expect(idsOf(await w.search(me, 'dragons'))).toEqual([named.DragonSlayer!.id]);
  });

  it('folds Unicode forms and spaces around the query', async () => {
    expect(idsOf(await w.search(me, '  e\u0301lo'))).toEqual([named['Élodie']!.id]);
    expect(idsOf(await w.search(me, 'ninja'))).toEqual([named['ＮＩＮＪＡ Kid']!.id]);
    expect(idsOf(await w.search(me, 'STRASS'))).toEqual([named['Straße']!.id]);
    expect(idsOf(await w.search(me, 'dragon😀'))).toEqual([named['dragon😀']!.id]);
  });

  it('treats regex and operator syntax as literal characters', async () => {
    expect(idsOf(await w.search(me, '.*'))).toEqual([named['.*star']!.id]);
    expect(idsOf(await w.search(me, '('))).toEqual([named['(paren)']!.id]);
    expect(idsOf(await w.search(me, '$where'))).toEqual([named.$where!.id]);
    expect(idsOf(await w.search(me, '{"$ne":null}'))).toEqual([named['{"$ne":null}']!.id]);
    expect(idsOf(await w.search(me, '^'))).toEqual([named['^caret']!.id]);
    for (const pattern of ['.+', '[a-z]', '\\', 'd.*', '|', '*']) {
      const response = await w.search(me, pattern);
      expect(response.status).toBe(200);
      expect(response.body).toEqual([]);
    }
  });

  it('refuses operator-shaped query parameters instead of passing them on', async () => {
    for (const query of ['displayName[$ne]=x', 'displayName[$regex]=.*', 'displayName=a&displayName=b']) {
      const response = await stack.api('GET', `${BASE}/search?${query}`, { headers: me.auth });
      expect(response.status).toBe(400);
    }
  });

  it('is bounded: 20 by default, `limit` up to 50', async () => {
    const crowd = randomUUID();
    const seeker = await w.join(crowd, 'Seeker');
    await w.gamers(25, crowd, 'Crowd');
    expect((await w.search(seeker, 'crowd')).body).toHaveLength(20);
    expect((await w.search(seeker, 'crowd', '&limit=5')).body).toHaveLength(5);
    expect((await w.search(seeker, 'crowd', '&limit=50')).body).toHaveLength(25);
    expectProblem(await w.search(seeker, 'crowd', '&limit=51'), 400, 'VALIDATION_FAILED');
    expectProblem(await w.search(seeker, 'crowd', '&limit=0'), 400, 'VALIDATION_FAILED');
  });

  it('refuses an empty, blank or too long query with 400', async () => {
    expectProblem(await stack.api('GET', `${BASE}/search`, { headers: me.auth }), 400, 'VALIDATION_FAILED');
    expectProblem(await w.search(me, ''), 400, 'VALIDATION_FAILED');
    expectProblem(await w.search(me, '   '), 400, 'VALIDATION_FAILED');
    expectProblem(await w.search(me, 'x'.repeat(65)), 400, 'VALIDATION_FAILED');
  });

  it('does not list a gamer whose only call was refused as malformed (a 400 changes nothing)', async () => {
    const stranger = gamer(app, 'Dragonet');
    expectProblem(await w.api('POST', BASE, { headers: stranger.auth, body: { target: 'not-a-uuid' } }), 400, 'VALIDATION_FAILED');
    // a blank search too (until 2026-11-29 the service refused it after registering the caller)
    expectProblem(await w.search(stranger, ' \u3000 '), 400, 'VALIDATION_FAILED');
    expect(idsOf(await w.search(me, 'dragonet'))).toEqual([]);
    expectProblem(await w.api('POST', BASE, { headers: me.auth, body: { target: stranger.id } }), 404, 'NOT_FOUND');
  });

  it('looks past the blockers among the first matches: each next read leaves out those found, up to SEARCH_READS reads', async () => {
    const app = randomUUID();
    const seeker = await w.join(app, 'Seeker');
    // pals 1–5 in name order; the first three block the seeker
    const pals: Gamer[] = [];
    for (let i = 1; i <= 5; i++) pals.push(await w.join(app, `Pal ${i}`));
    for (const blocker of pals.slice(0, 3)) expect((await w.block(blocker, seeker.id)).status).toBe(200);
    // limit 2: [1, 2] all blockers, then [3, 4] one, then [4, 5]
    expect(idsOf(await w.search(seeker, 'pal', '&limit=2'))).toEqual([pals[3]!.id, pals[4]!.id]);
    expect(idsOf(await w.search(seeker, 'pal'))).toEqual([pals[3]!.id, pals[4]!.id]);
    // limit 1 and four blockers first: four reads find only blockers, and the answer is short
    expect((await w.block(pals[3]!, seeker.id)).status).toBe(200);
    expect(SEARCH_READS).toBe(4);
    expect(idsOf(await w.search(seeker, 'pal', '&limit=1'))).toEqual([]);
    expect(idsOf(await w.search(seeker, 'pal', '&limit=2'))).toEqual([pals[4]!.id]);
    // nobody else is hidden: the blockers see the seeker
    expect(idsOf(await w.search(pals[0]!, 'seek'))).toEqual([seeker.id]);
  });

  it('reads on past matches it already showed: one blocker per read does not cut the answer short', async () => {
    const app = randomUUID();
    const seeker = await w.join(app, 'Seeker');
    const pals: Gamer[] = [];
    for (let i = 1; i <= 6; i++) pals.push(await w.join(app, `Pal ${i}`));
    for (const i of [0, 2, 3, 4]) expect((await w.block(pals[i]!, seeker.id)).status).toBe(200);
    // [1, 2] shows 2, [3, 4] nothing, [5, 6] shows 6
    expect(idsOf(await w.search(seeker, 'pal', '&limit=2'))).toEqual([pals[1]!.id, pals[5]!.id]);
  });

  it('finds only gamers of the caller\'s application', async () => {
    const other = await w.join(randomUUID(), 'DragonOfAnotherApp');
    expect(idsOf(await w.search(me, 'dragonof'))).toEqual([]);
    expect(idsOf(await w.search(other, 'drag'))).toEqual([]);
  });
});
