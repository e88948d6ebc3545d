import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl, infra } from '../../src/index.ts';

// The local store (FerretDB on SQLite) is built with our pushdown of equality and $in to
// its indexes (scripts/images/ferretdb). A pushed-down condition must never drop a matching
// document: these are the MongoDB semantics it could get wrong if it compared JSON text
// naively. On MongoDB they hold by definition, so the test runs against either image.
describe('store query semantics the services rely on', () => {
  let conn: mongoose.Connection;
  // Documents keyed by string ids, with fields of any shape (the point of the test).
  type Item = { _id: string } & Record<string, unknown>;
  let items: mongoose.mongo.Collection<Item>;

  const ids = async (filter: mongoose.mongo.Filter<Item>) =>
    (await items.find(filter, { projection: { _id: 1 } }).toArray()).map((d) => String(d._id)).sort();

  beforeAll(async () => {
    conn = await mongoose.createConnection(databaseUrl(infra().mongoUrl, 'store')).asPromise();
    items = conn.db!.collection<Item>('items');
    await items.createIndex({ app: 1, owner: 1, state: 1 });
    await items.insertMany([
      { _id: 'scalar', app: 'a1', owner: 'g1', state: 'on' },
      { _id: 'other-app', app: 'a2', owner: 'g1', state: 'on' },
      { _id: 'other-state', app: 'a1', owner: 'g1', state: 'off' },
      { _id: 'array-owner', app: 'a1', owner: ['g0', 'g1'], state: 'on' },
      { _id: 'array-state', app: 'a1', owner: 'g1', state: ['off', 'on'] },
      { _id: 'escaped', app: 'a1', owner: 'g<1> & "q"\\', state: 'on' },
      { _id: 'unicode', app: 'a1', owner: 'ğamer\u2028', state: 'on' },
      { _id: 'number', app: 'a1', owner: 1, state: 'on' },
      { _id: 'missing-owner', app: 'a1', state: 'on' },
    ]);
  });

  afterAll(async () => {
    await conn.dropDatabase();
    await conn.close();
  });

  it('matches equality on an indexed field, including arrays that hold the value', async () => {
    expect(await ids({ app: 'a1', owner: 'g1', state: 'on' })).toEqual(['array-owner', 'array-state', 'scalar']);
    expect(await ids({ app: 'a1', owner: { $eq: 'g1' }, state: 'on' })).toEqual(['array-owner', 'array-state', 'scalar']);
  });

  it('matches $in, including arrays and values of other types', async () => {
    expect(await ids({ app: 'a1', owner: { $in: ['g0', 1] } })).toEqual(['array-owner', 'number']);
    expect(await ids({ app: 'a1', owner: { $in: ['g1'] }, state: { $in: ['off'] } })).toEqual(['array-state', 'other-state']);
    expect(await ids({ app: 'a1', owner: { $in: [] } })).toEqual([]);
  });

  it('matches strings that JSON escapes, and non-ASCII strings, exactly', async () => {
    expect(await ids({ app: 'a1', owner: 'g<1> & "q"\\' })).toEqual(['escaped']);
    expect(await ids({ app: 'a1', owner: 'ğamer\u2028' })).toEqual(['unicode']);
    expect(await ids({ app: 'a1', owner: 'ğamer' })).toEqual([]);
  });

  it('combines equality with _id, ranges and other operators without losing documents', async () => {
    expect(await ids({ _id: 'array-owner', app: 'a1', owner: 'g1' })).toEqual(['array-owner']);
    expect(await ids({ app: 'a1', owner: 'g1', _id: { $gt: 'array-state' } })).toEqual(['other-state', 'scalar']);
    expect(await ids({ app: 'a1', owner: { $in: ['g1'], $ne: 'x' }, state: 'off' })).toEqual(['array-state', 'other-state']);
    expect(await items.countDocuments({ app: 'a1', owner: 'g1' })).toBe(4);
  });

  it('deletes and updates exactly the documents an equality filter matches', async () => {
    expect((await items.updateMany({ app: 'a2', owner: 'g1' }, { $set: { touched: true } })).modifiedCount).toBe(1);
    expect((await items.deleteMany({ app: 'a1', state: 'off' })).deletedCount).toBe(2);
    expect(await ids({ app: 'a1', owner: 'g1' })).toEqual(['array-owner', 'scalar']);
  });
});
