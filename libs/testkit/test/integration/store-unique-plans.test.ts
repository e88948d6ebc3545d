import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl, infra } from '../../src/index.ts';
import { mongoPlanOfThisStore, sqlitePlan, stagesOf, type Explain, type Stage } from '../../src/plans.ts';

/*
 * Reads that cover every key of a unique index must seek that index, on documents that
 * lack a key field too. The local FerretDB build keys a missing field of a unique index as
 * null (`IFNULL(<field>, 'null')`, scripts/images/ferretdb/README.md, "Missing fields in
 * unique indexes"), and SQLite serves a condition from an index on an expression only when
 * the condition names that very expression: a condition still written on the bare field
 * would leave the index unused and read the whole application. Same plan checks as
 * store-query-plans.test.ts: MongoDB's winning plan and keys examined, or the local build's
 * SQLite plan lines; a store answering neither fails.
 */

describe('store query plans of reads by a whole unique key', () => {
  let conn: mongoose.Connection;
  // the friendship service's `gamers` (services/friendship/src/repository/models.ts): unique
  // (applicationId, gamerId) beside the prefix-search index, which starts with applicationId too
  type Gamer = { _id: string; applicationId: string; gamerId?: string | null; displayNameKey: string };
  let gamers: mongoose.mongo.Collection<Gamer>;
  const app = 'app-1';
  const gamerId = (n: number) => `g-${String(n).padStart(4, '0')}`;

  beforeAll(async () => {
    conn = await mongoose.createConnection(databaseUrl(infra().mongoUrl, 'unique_plans')).asPromise();
    gamers = conn.db!.collection<Gamer>('gamers');
    await gamers.createIndex({ applicationId: 1, gamerId: 1 }, { unique: true });
    await gamers.createIndex({ applicationId: 1, displayNameKey: 1, gamerId: 1 });
    await gamers.insertMany([
      ...Array.from({ length: 600 }, (_, n) => ({ _id: `id-${n}`, applicationId: app, gamerId: gamerId(n), displayNameKey: `name ${n}` })),
      // the one document of the application allowed to lack gamerId (keyed as null)
      { _id: 'id-missing', applicationId: app, displayNameKey: 'nobody' },
    ]);
  });

  afterAll(async () => {
    await conn.dropDatabase();
    await conn.close();
  });

  it('reads 100 profiles ($in on the last key of a unique index) by seeks of that index', async () => {
    const wanted = Array.from({ length: 100 }, (_, k) => gamerId(5 * k + 1));
    const filter = { applicationId: app, gamerId: { $in: wanted } };
    const found = await gamers.find(filter).toArray();
    expect(found.map((g) => g.gamerId).sort()).toEqual([...wanted].sort());
    const explain = (await gamers.find(filter).explain('executionStats')) as Explain;
    if (mongoPlanOfThisStore(explain)) {
      const scans = stagesOf((explain.queryPlanner as { winningPlan: Stage }).winningPlan).filter((s) => s.stage === 'IXSCAN');
      expect(scans.map((s) => s.indexName)).toEqual(['applicationId_1_gamerId_1']);
      expect((explain.executionStats as { totalKeysExamined: number }).totalKeysExamined).toBeLessThanOrEqual(2 * wanted.length + 1);
      return;
    }
    const plan = sqlitePlan(explain);
    expect(plan, 'explain answered neither a MongoDB nor a SQLite plan').not.toBeNull();
    const searches = plan!.filter((l) => /^(SEARCH|SCAN) /.test(l));
    expect(searches.length).toBeGreaterThan(0);
    // every branch (scalar or "is an array", per field) seeks the unique index, none reads
    // the table or the prefix-search index; the scalar branch by points on both columns
    for (const line of searches) expect(line).toMatch(/^SEARCH .* USING INDEX \S*applicationId_1_gamerId_1 \(/);
    expect(searches[0]).toMatch(/\(<expr>=\? AND <expr>=\?\)$/);
  });

  it('finds the document that lacks a key field by the key with null, and refuses a second one', async () => {
    const found = await gamers.find({ applicationId: app, gamerId: null }).toArray();
    expect(found.map((g) => g._id)).toEqual(['id-missing']);
    await expect(gamers.insertOne({ _id: 'id-null', applicationId: app, gamerId: null, displayNameKey: 'x' })).rejects.toMatchObject({ code: 11000 });
  });
});
