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

  it('answers a prefix range sorted by two keys in byte order, whatever the characters', async () => {
    const people = conn.db!.collection<Item>('people');
    await people.createIndex({ app: 1, key: 1, gid: 1 });
    const keys = ['ab', 'ab c', 'ab!', 'ab"q', 'ab\\x', 'ab<', 'abé', 'ab😀', 'ab\uffee', 'abz', 'ac', 'aa', 'a', 'b'];
    await people.insertMany([
      ...keys.map((key, i) => ({ _id: `p${i}`, app: 'a1', key, gid: `g${String(keys.length - i).padStart(2, '0')}` })),
      { _id: 'tie-2', app: 'a1', key: 'ab', gid: 'g99' },
      { _id: 'tie-1', app: 'a1', key: 'ab', gid: 'g00' },
      { _id: 'number', app: 'a1', key: 7, gid: 'g50' },
      { _id: 'other-app', app: 'a2', key: 'ab', gid: 'g01' },
    ]);
    const byBytes = (a: Item, b: Item) => Buffer.compare(Buffer.from(String(a.key)), Buffer.from(String(b.key))) || (String(a.gid) < String(b.gid) ? -1 : 1);
    const excludedGid = 'g11'; // the document keyed 'ab"q'
    const expected = (await people.find({ app: 'a1' }).toArray())
      .filter((d) => typeof d.key === 'string' && d.key.startsWith('ab') && d.gid !== excludedGid)
      .sort(byBytes)
      .map((d) => d._id);
    // "ab" < "ab c" < "ab!" in bytes (as JSON text, with its closing quote, "ab" would come last)
    expect(expected.slice(0, 5)).toEqual(['tie-1', 'p0', 'tie-2', 'p1', 'p2']);
    const filter = { app: 'a1', key: { $gte: 'ab', $lt: 'ab\u{10FFFF}' }, gid: { $gte: '', $nin: [excludedGid] } };
    const ascending = await people.find(filter).sort({ key: 1, gid: 1 }).limit(5).toArray();
    expect(ascending.map((d) => d._id)).toEqual(expected.slice(0, 5));
    const descending = await people.find(filter).sort({ key: -1, gid: -1 }).limit(4).toArray();
    expect(descending.map((d) => d._id)).toEqual([...expected].reverse().slice(0, 4));
    expect(await people.find(filter).sort({ key: 1, gid: 1 }).toArray()).toHaveLength(expected.length);
  });

  it('still sorts correctly when a sorted field holds an array', async () => {
    const tags = conn.db!.collection<Item>('tags');
    await tags.createIndex({ app: 1, tag: 1 });
    await tags.insertMany([
      { _id: 't1', app: 'a1', tag: 'ab2' },
      { _id: 't2', app: 'a1', tag: ['zz', 'ab1'] },
      { _id: 't3', app: 'a1', tag: 'ab3' },
    ]);
    const found = await tags.find({ app: 'a1', tag: { $gte: 'ab', $lt: 'ac' } }).sort({ tag: 1 }).toArray();
    // MongoDB sorts an array ascending by its smallest element ('ab1')
    expect(found.map((d) => d._id)).toEqual(['t2', 't1', 't3']);
  });

  it('matches date ranges on an indexed field exactly: arrays, nulls, other types, bounds', async () => {
    const due = conn.db!.collection<Item>('due');
    await due.createIndex({ at: 1 });
    await due.createIndex({ state: 1, at: 1 });
    const t = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);
    await due.insertMany([
      { _id: 'before', at: t(-1), state: 'on' },
      { _id: 'edge', at: t(0), state: 'on' },
      { _id: 'after', at: t(1), state: 'on' },
      { _id: 'later-state-off', at: t(-5), state: 'off' },
      { _id: 'array', at: [t(10_000), t(-10_000)], state: 'on' },
      { _id: 'null', at: null, state: 'on' },
      { _id: 'missing', state: 'on' },
      { _id: 'number', at: t(-1).getTime(), state: 'on' },
      { _id: 'string', at: 'x', state: 'on' },
      { _id: 'bool', at: true, state: 'on' },
    ]);
    const dueIds = async (filter: mongoose.mongo.Filter<Item>) => (await due.find(filter, { projection: { _id: 1 } }).toArray()).map((d) => String(d._id)).sort();
    expect(await dueIds({ at: { $lte: t(0) } })).toEqual(['array', 'before', 'edge', 'later-state-off']);
    expect(await dueIds({ at: { $lt: t(0) } })).toEqual(['array', 'before', 'later-state-off']);
    expect(await dueIds({ at: { $gt: t(0) } })).toEqual(['after', 'array']);
    // an array matches when each bound holds for some element, not necessarily the same one
    expect(await dueIds({ at: { $gte: t(0), $lt: t(1) } })).toEqual(['array', 'edge']);
    // a null expiry is not due (the sweep's filter), and a sibling on another field is kept
    expect(await dueIds({ at: { $ne: null, $lte: t(0) }, state: { $ne: 'off' } })).toEqual(['array', 'before', 'edge']);
    expect(await dueIds({ state: 'on', at: { $lte: t(-1) } })).toEqual(['array', 'before']);
    // the MongoDB idiom for "no expiry or one still ahead"
    expect(await dueIds({ at: { $not: { $lte: t(0) } } })).toEqual(['after', 'bool', 'missing', 'null', 'number', 'string']);
    expect((await due.deleteMany({ at: { $ne: null, $lte: t(0) }, state: { $ne: 'off' } })).deletedCount).toBe(3);
    expect(await dueIds({})).toEqual(['after', 'bool', 'later-state-off', 'missing', 'null', 'number', 'string']);
  });

  it('deletes and updates exactly the documents an equality filter matches', async () => {
    expect((await items.updateMany({ app: 'a2', owner: 'g1' }, { $set: { touched: true } })).modifiedCount).toBe(1);
    expect((await items.deleteMany({ app: 'a1', state: 'off' })).deletedCount).toBe(2);
    expect(await ids({ app: 'a1', owner: 'g1' })).toEqual(['array-owner', 'scalar']);
  });
});

