import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl, infra } from '../../src/index.ts';
import { mongoPlanOfThisStore, sqlitePlan, stagesOf, type Explain, type Stage } from '../../src/plans.ts';

/*
 * The query shapes the friendship service issues, pinned by the store's own query plan:
 * each must seek the index made for it and, for a page, read no more than the page. The
 * collection mirrors `relations` (services/friendship/src/repository/models.ts): a unique
 * (app, pairKey) index beside the outgoing and incoming list indexes, which is what misled
 * the local store's SQLite planner (scripts/images/ferretdb/README.md, "Index choice").
 *
 * Plans differ by store, so the checks branch on what `explain` answers: MongoDB's
 * winningPlan and executionStats (keys examined), or the local FerretDB build's SQLite plan
 * (which index each branch of the statement searches, and whether a sort step follows),
 * told by its shape (`queryPlanner.Plan`, a list of plan lines). A store answering neither
 * fails: a plan test that checked no plan would pass without pinning anything.
 */

const OUTGOING = 'app_1_requester_1_status_1__id_1';
const INCOMING = 'app_1_addressee_1_status_1__id_1';

describe('store query plans of the friendship reads', () => {
  let conn: mongoose.Connection;
  type Edge = { _id: string; app: string; pairKey: string; requester: string; addressee: string; status: string };
  let edges: mongoose.mongo.Collection<Edge>;
  const app = 'app-1';
  const center = 'g-center';
  const friends = Array.from({ length: 30 }, (_, i) => `g-friend-${String(i).padStart(3, '0')}`);
  const edgeId = (n: number) => `e-${String(n).padStart(6, '0')}`;

  beforeAll(async () => {
    conn = await mongoose.createConnection(databaseUrl(infra().mongoUrl, 'plans')).asPromise();
    edges = conn.db!.collection<Edge>('edges');
    await edges.createIndex({ app: 1, pairKey: 1 }, { unique: true });
    await edges.createIndex({ app: 1, addressee: 1, status: 1, _id: 1 }, { name: INCOMING });
    await edges.createIndex({ app: 1, requester: 1, status: 1, _id: 1 }, { name: OUTGOING });
    let n = 0;
    const edge = (requester: string, addressee: string, status = 'accepted'): Edge => ({ _id: edgeId(n++), app, pairKey: `${requester}:${addressee}`, requester, addressee, status });
    // the center's 30 friendships, each friend's 20 others, and a crowd in the same app so
    // that reading the whole application would show in the keys examined
    const docs = [
      ...friends.map((f) => edge(center, f)),
      ...friends.flatMap((f) => Array.from({ length: 20 }, (_, k) => edge(f, `g-other-${k}`))),
      ...friends.slice(0, 5).map((f) => edge(f, center, 'pending')),
      ...Array.from({ length: 400 }, (_, k) => edge(`g-crowd-${k}`, `g-crowd-${k + 1}`)),
    ];
    await edges.insertMany(docs);
  });

  afterAll(async () => {
    await conn.dropDatabase();
    await conn.close();
  });

  it('reads the friends of many gamers ($in beside equalities) with seeks of the index made for it', async () => {
    const filter = { app, requester: { $in: friends }, status: 'accepted' };
    const projection = { _id: 0, requester: 1, addressee: 1 };
    const found = await edges.find(filter, { projection }).toArray();
    expect(found).toHaveLength(friends.length * 20);
    const explain = (await edges.find(filter, { projection }).explain('executionStats')) as Explain;
    if (mongoPlanOfThisStore(explain)) {
      const scans = stagesOf((explain.queryPlanner as { winningPlan: Stage }).winningPlan).filter((s) => s.stage === 'IXSCAN');
      expect(scans.map((s) => s.indexName)).toEqual([OUTGOING]);
      // one seek per listed gamer, then its entries: never the application's other relations
      const stats = explain.executionStats as { totalKeysExamined: number };
      expect(stats.totalKeysExamined).toBeLessThanOrEqual(found.length + friends.length + 1);
      return;
    }
    const plan = sqlitePlan(explain);
    expect(plan, 'explain answered neither a MongoDB nor a SQLite plan').not.toBeNull();
    const searches = plan!.filter((l) => /^(SEARCH|SCAN) /.test(l));
    expect(searches.length).toBeGreaterThan(0);
    // No table scans; every part that seeks by equality (the scalar branch, and the ones
    // where a later field may be an array) uses the outgoing index, and the scalar branch
    // pins all three leading columns. Before the fix, SQLite took the unique (app, pairKey)
    // index on `app =` alone: every relation of the application.
    for (const line of searches) expect(line).toMatch(/^SEARCH .* USING INDEX /);
    for (const line of searches.filter((l) => l.includes('=?'))) expect(line).toContain(OUTGOING);
    expect(searches[0]).toContain(`${OUTGOING} (<expr>=? AND <expr>=? AND <expr>=?)`);
  });

  it('reads a first page of a friend list sorted by _id as an ordered range of limit entries', async () => {
    const limit = 11;
    const filter = { app, requester: center, status: 'accepted' };
    const page = await edges.find(filter).sort({ _id: 1 }).limit(limit).toArray();
    expect(page.map((e) => e._id)).toEqual(Array.from({ length: limit }, (_, i) => edgeId(i)));
    const explain = (await edges.find(filter).sort({ _id: 1 }).limit(limit).explain('executionStats')) as Explain;
    if (mongoPlanOfThisStore(explain)) {
      const stages = stagesOf((explain.queryPlanner as { winningPlan: Stage }).winningPlan);
      expect(stages.filter((s) => s.stage === 'IXSCAN').map((s) => s.indexName)).toEqual([OUTGOING]);
      expect(stages.some((s) => s.stage === 'SORT')).toBe(false);
      const stats = explain.executionStats as { totalKeysExamined: number; totalDocsExamined: number };
      expect(stats.totalKeysExamined).toBeLessThanOrEqual(limit + 1);
      expect(stats.totalDocsExamined).toBeLessThanOrEqual(limit + 1);
      return;
    }
    // One ordered index range, no sort step: rows come out in _id order and the read stops
    // when the handler has its page (it does not fetch the range to sort it).
    const plan = sqlitePlan(explain);
    expect(plan, 'explain answered neither a MongoDB nor a SQLite plan').not.toBeNull();
    expect(plan).toEqual([expect.stringMatching(new RegExp(`^SEARCH .* USING INDEX \\S*${OUTGOING} \\(<expr>=\\? AND <expr>=\\? AND <expr>=\\? AND <expr>>\\?\\)$`))]);
    expect(explain.sortPushdown).toBe(true);
  });

  it('reads a later page the same way, from the cursor', async () => {
    const limit = 5;
    const filter = { app, addressee: center, status: 'pending', _id: { $gt: edgeId(30 + friends.length * 20) } };
    const page = await edges.find(filter).sort({ _id: 1 }).limit(limit).toArray();
    expect(page.map((e) => e._id)).toEqual(Array.from({ length: 4 }, (_, i) => edgeId(30 + friends.length * 20 + 1 + i)));
    const explain = (await edges.find(filter).sort({ _id: 1 }).limit(limit).explain('executionStats')) as Explain;
    if (mongoPlanOfThisStore(explain)) {
      const stages = stagesOf((explain.queryPlanner as { winningPlan: Stage }).winningPlan);
      expect(stages.filter((s) => s.stage === 'IXSCAN').map((s) => s.indexName)).toEqual([INCOMING]);
      expect(stages.some((s) => s.stage === 'SORT')).toBe(false);
      expect((explain.executionStats as { totalKeysExamined: number }).totalKeysExamined).toBeLessThanOrEqual(limit + 1);
      return;
    }
    const plan = sqlitePlan(explain);
    expect(plan, 'explain answered neither a MongoDB nor a SQLite plan').not.toBeNull();
    expect(plan).toEqual([expect.stringMatching(new RegExp(`^SEARCH .* USING INDEX \\S*${INCOMING} \\(<expr>=\\? AND <expr>=\\? AND <expr>=\\? AND <expr>>\\?\\)$`))]);
    expect(explain.sortPushdown).toBe(true);
  });

  it('reads many friend-id lists ($in on _id) by seeks of the _id index, never the collection', async () => {
    // the friendship service's `friendlists` (repository/friend-lists.ts): one document per
    // (application, gamer), _id `${app}:${gamer}`; suggestions read the lists of all the
    // caller's friends at once
    type List = { _id: string; applicationId: string; gamerId: string; friends: string[]; version: number };
    const lists = conn.db!.collection<List>('lists');
    const listId = (gamer: string) => `${app}:${gamer}`;
    const crowd = Array.from({ length: 400 }, (_, k) => `g-crowd-${k}`);
    await lists.insertMany([...friends, ...crowd].map((g) => ({ _id: listId(g), applicationId: app, gamerId: g, friends: [center, 'g-other-1'], version: 0 })));
    const filter = { _id: { $in: friends.map(listId) } };
    const projection = { _id: 0, gamerId: 1, friends: 1, version: 1, builtAt: 1 };
    const found = await lists.find(filter, { projection }).toArray();
    expect(found.map((l) => l.gamerId).sort()).toEqual([...friends].sort());
    const explain = (await lists.find(filter, { projection }).explain('executionStats')) as Explain;
    if (mongoPlanOfThisStore(explain)) {
      const stages = stagesOf((explain.queryPlanner as { winningPlan: Stage }).winningPlan);
      expect(stages.some((s) => s.stage === 'COLLSCAN')).toBe(false);
      expect(stages.filter((s) => s.stage === 'IXSCAN').map((s) => s.indexName)).toEqual(['_id_']);
      const stats = explain.executionStats as { totalKeysExamined: number; totalDocsExamined: number };
      expect(stats.totalDocsExamined).toBe(friends.length);
      expect(stats.totalKeysExamined).toBeLessThanOrEqual(2 * friends.length + 1);
      return;
    }
    const plan = sqlitePlan(explain);
    expect(plan, 'explain answered neither a MongoDB nor a SQLite plan').not.toBeNull();
    // one search of the _id index (a seek per listed id), no table scan: the other 400 lists are never read
    // (built on the _id column in collections created since 2026-11-28, on an expression before)
    expect(plan).toEqual([expect.stringMatching(/^SEARCH \S+ USING INDEX \S+__id_ \((<expr>|_ferretdb_id)=\?\)$/)]);
  });
});

describe('store query plans of the friendship block reads', () => {
  // mirrors `blocks` (services/friendship/src/repository/models.ts)
  const BLOCKED = 'app_1_blocked_1__id_1';
  let conn: mongoose.Connection;
  type Block = { _id: string; app: string; blocker: string; blocked: string };
  let blocks: mongoose.mongo.Collection<Block>;
  const app = 'app-1';
  const target = 'g-target';
  const blockId = (n: number) => `b-${String(n).padStart(6, '0')}`;

  beforeAll(async () => {
    conn = await mongoose.createConnection(databaseUrl(infra().mongoUrl, 'block-plans')).asPromise();
    blocks = conn.db!.collection<Block>('blocks');
    await blocks.createIndex({ app: 1, blocker: 1, blocked: 1 }, { unique: true });
    await blocks.createIndex({ app: 1, blocker: 1, _id: 1 });
    await blocks.createIndex({ app: 1, blocked: 1, _id: 1 }, { name: BLOCKED });
    // 300 gamers block the target, and as many block others
    await blocks.insertMany([
      ...Array.from({ length: 300 }, (_, i) => ({ _id: blockId(i), app, blocker: `g-${i}`, blocked: target })),
      ...Array.from({ length: 300 }, (_, i) => ({ _id: blockId(1000 + i), app, blocker: `g-${i}`, blocked: `g-other-${i}` })),
    ]);
  });

  afterAll(async () => {
    await conn.dropDatabase();
    await conn.close();
  });

  it('reads the first blockers of a gamer, oldest first, as an ordered range of limit entries (the admin look-up)', async () => {
    const limit = 10;
    const filter = { app, blocked: target };
    const page = await blocks.find(filter, { projection: { _id: 0, blocker: 1 } }).sort({ _id: 1 }).limit(limit).toArray();
    expect(page.map((b) => b.blocker)).toEqual(Array.from({ length: limit }, (_, i) => `g-${i}`));
    const explain = (await blocks.find(filter, { projection: { _id: 0, blocker: 1 } }).sort({ _id: 1 }).limit(limit).explain('executionStats')) as Explain;
    if (mongoPlanOfThisStore(explain)) {
      const stages = stagesOf((explain.queryPlanner as { winningPlan: Stage }).winningPlan);
      expect(stages.filter((s) => s.stage === 'IXSCAN').map((s) => s.indexName)).toEqual([BLOCKED]);
      expect(stages.some((s) => s.stage === 'SORT')).toBe(false);
      expect((explain.executionStats as { totalKeysExamined: number }).totalKeysExamined).toBeLessThanOrEqual(limit + 1);
      return;
    }
    const plan = sqlitePlan(explain);
    expect(plan, 'explain answered neither a MongoDB nor a SQLite plan').not.toBeNull();
    expect(plan).toEqual([expect.stringMatching(new RegExp(`^SEARCH .* USING INDEX \\S*${BLOCKED} \\(<expr>=\\? AND <expr>=\\?`))]);
    expect(explain.sortPushdown).toBe(true);
  });
});
