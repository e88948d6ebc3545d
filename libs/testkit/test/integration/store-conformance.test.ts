import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl, infra, storeEngine } from '../../src/index.ts';
import { ensureIndexes as ensureNotificationIndexes, MENTION_INDEXES, type NotificationDoc, type UsedTicketDoc } from '../../../../services/notifications/src/repository/store.ts';

// The store behaviours the services rely on, pinned on whichever store the tests run on:
// MongoDB (mongo:7) or the local FerretDB build (scripts/images/ferretdb), which serializes
// read-modify-write per collection to give MongoDB's single-document atomicity. Nothing here
// may depend on FerretDB: every property is one MongoDB guarantees.
//
// The races are real: N operations go out at once over a pool of at least N connections, and
// each race checks an invariant that a non-atomic read-modify-write breaks. On the FerretDB recipe
// before commit f8b6def (no lock, no per-statement update errors, $slice ignored) 14 of these
// tests fail (one by hanging); in one run a claim had 28 winners and 100 concurrent $inc left 3.

// Documents of any shape (the tests write every shape on purpose), keyed by string ids;
// the array-operator tests name their array fields, which the driver's types require.
type Doc = mongoose.mongo.Document & { _id: string };
type Listed<F extends string, V> = { _id: string } & Record<F, V[]>;

const N = 50;
const DUPLICATE_KEY = 11000;
const BAD_VALUE = 2;
const TYPE_MISMATCH = 14;
const NOT_IMPLEMENTED = 238;

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** The server error code of a rejected operation (undefined when it did not fail). */
async function codeOf(operation: Promise<unknown>): Promise<number | undefined> {
  try {
    await operation;
    return undefined;
  } catch (error) {
    return (error as { code?: number }).code;
  }
}

/** The MongoBulkWriteError a bulkWrite rejects with. */
async function bulkFailure(operation: Promise<unknown>): Promise<mongoose.mongo.MongoBulkWriteError> {
  const error = await operation.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(mongoose.mongo.MongoBulkWriteError);
  return error as mongoose.mongo.MongoBulkWriteError;
}

describe('store conformance: the guarantees the services rely on', () => {
  let client: mongoose.mongo.MongoClient;
  let db: mongoose.mongo.Db;
  let collections = 0;
  /** A fresh collection per test, so tests never see each other's documents. */
  const fresh = <T extends Doc = Doc>(name: string) => db.collection<T>(`${name}_${++collections}`);

  beforeAll(async () => {
    client = new mongoose.mongo.MongoClient(databaseUrl(infra().mongoUrl, 'conformance'), { maxPoolSize: 2 * N, maxConnecting: 2 * N });
    let opened = 0;
    client.on('connectionCreated', () => opened++);
    await client.connect();
    db = client.db();
    // Open the pool up front: the races below need N commands in flight on N connections,
    // not N commands queued behind a few.
    await Promise.all(range(N + 10).map(() => db.command({ ping: 1 })));
    expect(opened).toBeGreaterThanOrEqual(N);
  });

  afterAll(async () => {
    await db?.dropDatabase();
    await client?.close();
  });

  describe('atomic writes under concurrency', () => {
    it('lets exactly one of N concurrent conditional findOneAndUpdate claims win, and returns it the new document', async () => {
      const claims = fresh('claims');
      for (const round of range(5)) {
        const _id = `task-${round}`;
        await claims.insertOne({ _id, state: 'open' });
        const results = await Promise.all(
          range(N).map((i) => claims.findOneAndUpdate({ _id, state: 'open' }, { $set: { state: 'taken', by: i } }, { returnDocument: 'after' })),
        );
        const winners = results.flatMap((doc, i) => (doc ? [i] : []));
        expect(winners).toHaveLength(1);
        const by = winners[0];
        expect(results[by!]).toEqual({ _id, state: 'taken', by });
        expect(await claims.findOne({ _id })).toEqual({ _id, state: 'taken', by });
      }
    });

    it('loses no $inc among N concurrent writers of one document', async () => {
      const counters = fresh('counters');
      await counters.insertOne({ _id: 'c', n: 0 });
      const writers = 2 * N;
      const results = await Promise.all(range(writers).map(() => counters.updateOne({ _id: 'c' }, { $inc: { n: 1 } })));
      expect(results.every((r) => r.modifiedCount === 1)).toBe(true);
      expect(await counters.findOne({ _id: 'c' })).toEqual({ _id: 'c', n: writers });
    });

    it('lets a guarded decrement succeed exactly as many times as the stock allows', async () => {
      const stock = fresh('stock');
      await stock.insertOne({ _id: 'item', stock: 10 });
      const results = await Promise.all(
        range(N).map(() => stock.findOneAndUpdate({ _id: 'item', stock: { $gt: 0 } }, { $inc: { stock: -1 } }, { returnDocument: 'after' })),
      );
      const taken = results.filter((doc) => doc !== null);
      expect(taken).toHaveLength(10);
      // each success saw its own stock level
      expect(taken.map((doc) => doc.stock).sort((a, b) => a - b)).toEqual(range(10));
      expect(await stock.findOne({ _id: 'item' })).toEqual({ _id: 'item', stock: 0 });
    });

    it('applies every $inc of concurrent updateMany commands over the same documents', async () => {
      const scores = fresh('scores');
      const docs = 20;
      await scores.insertMany(range(docs).map((i) => ({ _id: `s${i}`, group: 'g', n: 0 })));
      await scores.insertOne({ _id: 'other', group: 'h', n: 0 });
      const results = await Promise.all(range(N).map(() => scores.updateMany({ group: 'g' }, { $inc: { n: 1 } })));
      expect(results.every((r) => r.matchedCount === docs && r.modifiedCount === docs)).toBe(true);
      const all = await scores.find({ group: 'g' }).toArray();
      expect(all.map((d) => d.n)).toEqual(range(docs).map(() => N));
      expect(await scores.findOne({ _id: 'other' })).toEqual({ _id: 'other', group: 'h', n: 0 });
    });

    it('gives exactly one effect when conditional updates and deletes race on one document', async () => {
      const jobs = fresh('jobs');
      for (const round of range(5)) {
        const _id = `job-${round}`;
        await jobs.insertOne({ _id, state: 'open' });
        const results = await Promise.all(
          range(N).map((i) =>
            i % 2 === 0
              ? jobs.updateOne({ _id, state: 'open' }, { $set: { state: 'done' } }).then((r) => ({ kind: 'update', n: r.modifiedCount }))
              : jobs.deleteOne({ _id, state: 'open' }).then((r) => ({ kind: 'delete', n: r.deletedCount })),
          ),
        );
        const effects = results.filter((r) => r.n > 0);
        expect(effects).toEqual([{ kind: expect.any(String), n: 1 }]);
        const left = await jobs.findOne({ _id });
        expect(left).toEqual(effects[0]!.kind === 'update' ? { _id, state: 'done' } : null);
      }
    });

    it('hands a document to exactly one of N concurrent findOneAndDelete callers', async () => {
      const queue = fresh('queue');
      for (const round of range(3)) {
        const _id = `msg-${round}`;
        await queue.insertOne({ _id, body: round });
        const results = await Promise.all(range(N).map(() => queue.findOneAndDelete({ _id })));
        expect(results.filter((doc) => doc !== null)).toEqual([{ _id, body: round }]);
        expect(await queue.countDocuments({ _id })).toBe(0);
      }
    });

    it('keeps one document per unique key under N concurrent upserts, failing only with 11000', async () => {
      const visits = fresh('visits');
      await visits.createIndex({ key: 1 }, { unique: true });
      const upsert = (i: number) => visits.updateOne({ key: 'k' }, { $setOnInsert: { first: i }, $inc: { hits: 1 } }, { upsert: true });
      const outcomes = await Promise.allSettled(range(N).map(upsert));
      const failed = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [{ i, code: (o.reason as { code?: number }).code }] : []));
      expect(failed.filter((f) => f.code !== DUPLICATE_KEY)).toEqual([]);
      const inserted = outcomes.filter((o) => o.status === 'fulfilled' && o.value.upsertedCount === 1);
      expect(inserted).toHaveLength(1);
      // An upsert that lost the insert race retries once, as the tasks service's counters do
      // (services/tasks/src/repository/achievement-stats-repository.ts:112-117); it then
      // matches. The friendship service does not retry: its filters are its unique keys, as
      // here, and MongoDB then retries a losing upsert itself (pinned by the tests below).
      await Promise.all(failed.map((f) => upsert(f.i)));
      const docs = await visits.find({ key: 'k' }).toArray();
      expect(docs).toEqual([expect.objectContaining({ key: 'k', hits: N })]);
    });

    it('lets exactly one of N concurrent inserts of one unique key succeed, the others failing with 11000', async () => {
      const names = fresh('names');
      await names.createIndex({ name: 1 }, { unique: true });
      const codes = await Promise.all(range(N).map((i) => codeOf(names.insertOne({ _id: `n${i}`, name: 'taken' }))));
      expect(codes.filter((c) => c === undefined)).toHaveLength(1);
      expect(codes.filter((c) => c === DUPLICATE_KEY)).toHaveLength(N - 1);
      expect(await names.countDocuments({ name: 'taken' })).toBe(1);
      expect(await codeOf(names.insertOne({ _id: 'late', name: 'taken' }))).toBe(DUPLICATE_KEY);
    });

    it('answers N concurrent upserts of one unique key (findOneAndUpdate, $setOnInsert of _id, before) with one null and the stored document to every other, rejecting none', async () => {
      // services/friendship/src/repository/relations.ts:176-178 and blocks.ts:43-45 tell a new
      // request or block from an existing one by this null, and catch no 11000. MongoDB (since
      // 4.2) retries an upsert that lost its insert to a concurrent one when the filter is
      // equalities on exactly the unique index's fields and the update changes none of them,
      // which is the services' shape (their filters are their unique indexes' fields); with
      // any other filter MongoDB may answer a loser 11000, so the test keeps to that shape.
      const pairs = fresh('racing_upserts');
      await pairs.createIndex({ app: 1, pair: 1 }, { unique: true });
      for (const round of range(3)) {
        const pair = `p${round}`;
        const outcomes = await Promise.allSettled(
          range(N).map((i) => pairs.findOneAndUpdate({ app: 'a', pair }, { $setOnInsert: { _id: `r${round}-${i}`, by: i } }, { upsert: true, returnDocument: 'before' })),
        );
        expect(outcomes.flatMap((o) => (o.status === 'rejected' ? [(o.reason as { code?: number }).code] : []))).toEqual([]);
        const results = outcomes.map((o) => (o.status === 'fulfilled' ? o.value : undefined));
        const stored = await pairs.find({ pair }).toArray();
        expect(stored).toEqual([{ _id: `r${round}-${stored[0]?.by}`, app: 'a', pair, by: expect.any(Number) }]);
        // the one that inserted is the one answered null; every other saw its document
        expect(results.flatMap((doc, i) => (doc === null ? [i] : []))).toEqual([stored[0]!.by]);
        expect(results.filter((doc) => doc !== null)).toEqual(range(N - 1).map(() => stored[0]));
      }
    });

    it('lets N concurrent upserts of one unique key by updateOne and findOneAndUpdate (after) all succeed, on one document', async () => {
      // services/friendship/src/repository/gamers.ts:48-56: a gamer's first calls may race to
      // register them; the filter is the unique (applicationId, gamerId) key, so MongoDB
      // retries a losing upsert as an update, and the service catches no 11000
      const gamers = fresh('racing_registrations');
      await gamers.createIndex({ app: 1, gamer: 1 }, { unique: true });
      const filter = { app: 'a', gamer: 'g' };
      const outcomes = await Promise.allSettled(
        range(N).map((i) =>
          i % 2 === 0
            ? gamers.updateOne(filter, { $set: { name: `n${i}` }, $setOnInsert: { avatar: '' } }, { upsert: true })
            : gamers.findOneAndUpdate(filter, { $set: { name: `n${i}` }, $setOnInsert: { avatar: '' } }, { upsert: true, returnDocument: 'after', projection: { _id: 0, name: 1, avatar: 1 } }),
        ),
      );
      expect(outcomes.flatMap((o) => (o.status === 'rejected' ? [(o.reason as { code?: number }).code] : []))).toEqual([]);
      // every findOneAndUpdate answered a document with its own name
      for (const [i, o] of outcomes.entries()) if (i % 2 === 1 && o.status === 'fulfilled') expect(o.value).toEqual({ name: `n${i}`, avatar: '' });
      expect(await gamers.find(filter, { projection: { _id: 0 } }).toArray()).toEqual([{ ...filter, name: expect.any(String), avatar: '' }]);
    });

    it('applies as an update an upsert by _id that loses its insert to a concurrent insertOne of that _id, rejecting no upsert', async () => {
      // services/friendship/src/repository/friend-lists.ts: an accept's $addToSet upsert of a
      // gamer's friend-id list races a read's insertOne of the list it rebuilt. MongoDB (since
      // 4.2) retries the losing upsert as an update (its filter is the _id); until 2026-11-29
      // the FerretDB recipe did not serialize inserts, and the upsert failed with 11000.
      const lists = fresh<Listed<'f', number> & { v?: number }>('racing_inserts');
      for (const round of range(20)) {
        const _id = `list-${round}`;
        const upserts: number[] = [];
        const outcomes = await Promise.allSettled(
          range(N).map((i) => {
            if (i % 2 === 0) return lists.insertOne({ _id, f: [], v: 0 }).catch((error: unknown) => {
              if ((error as { code?: number }).code !== DUPLICATE_KEY) throw error;
            });
            upserts.push(i);
            return lists.updateOne({ _id }, { $addToSet: { f: i }, $inc: { v: 1 } }, { upsert: true });
          }),
        );
        expect(outcomes.flatMap((o, i) => (o.status === 'rejected' ? [`${i}: ${(o.reason as { code?: number }).code}`] : [])), `round ${round}`).toEqual([]);
        const stored = await lists.findOne({ _id });
        expect([...(stored?.f ?? [])].sort((a, b) => a - b), `round ${round}`).toEqual(upserts);
        expect(stored?.v, `round ${round}`).toBe(upserts.length);
      }
    });
  });

  describe('unique indexes', () => {
    it('refuses a duplicate of a unique compound key, by insert or by update, and accepts other combinations', async () => {
      const members = fresh('members');
      await members.createIndex({ app: 1, gamer: 1 }, { unique: true });
      await members.insertMany([
        { _id: 'm1', app: 'a1', gamer: 'g1' },
        { _id: 'm2', app: 'a1', gamer: 'g2' },
        { _id: 'm3', app: 'a2', gamer: 'g1' },
      ]);
      expect(await codeOf(members.insertOne({ _id: 'm4', app: 'a1', gamer: 'g1' }))).toBe(DUPLICATE_KEY);
      expect(await codeOf(members.updateOne({ _id: 'm2' }, { $set: { gamer: 'g1' } }))).toBe(DUPLICATE_KEY);
      expect(await codeOf(members.findOneAndUpdate({ _id: 'm2' }, { $set: { gamer: 'g1' } }))).toBe(DUPLICATE_KEY);
      expect(await members.findOne({ _id: 'm2' })).toEqual({ _id: 'm2', app: 'a1', gamer: 'g2' });
      expect(await members.countDocuments({})).toBe(3);
    });

    it('refuses a second document of a unique compound key whose last field is null, and takes each other value there once', async () => {
      // services/tasks/src/repository/store.ts:145 (one_per_period): a lifetime gamer task's
      // expiredAt is null, and gamer-task-repository.ts:91-96 takes the 11000 of a second
      // assign as "already held"
      const tasks = fresh('null_key');
      await tasks.createIndex({ app: 1, gamer: 1, task: 1, until: 1 }, { unique: true });
      const key = { app: 'a', gamer: 'g', task: 't' };
      const day = (d: number) => new Date(Date.UTC(2026, 0, d));
      await tasks.insertOne({ _id: 'null', ...key, until: null });
      expect(await codeOf(tasks.insertOne({ _id: 'null-again', ...key, until: null }))).toBe(DUPLICATE_KEY);
      // a period's date is another key, once each
      await tasks.insertOne({ _id: 'day-1', ...key, until: day(1) });
      await tasks.insertOne({ _id: 'day-2', ...key, until: day(2) });
      expect(await codeOf(tasks.insertOne({ _id: 'day-1-again', ...key, until: day(1) }))).toBe(DUPLICATE_KEY);
      expect(await codeOf(tasks.updateOne({ _id: 'day-2' }, { $set: { until: null } }))).toBe(DUPLICATE_KEY);
      // another gamer's lifetime task of the same id
      await tasks.insertOne({ _id: 'other-gamer', ...key, gamer: 'h', until: null });
      expect((await tasks.find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id).sort()).toEqual(['day-1', 'day-2', 'null', 'other-gamer']);
    });

    it('indexes a missing field of a unique compound key as null: one key with a null there, and with another missing one', async () => {
      // MongoDB stores null in a unique index for a document without the field, so one_per_period
      // (services/tasks/src/repository/store.ts:145) holds one lifetime task per gamer and task
      // whether expiredAt is null or absent (a document written without it, by hand or by an
      // older version of the service)
      const tasks = fresh('missing_key');
      await tasks.createIndex({ app: 1, gamer: 1, task: 1, until: 1 }, { unique: true });
      const key = (task: string) => ({ app: 'a', gamer: 'g', task });
      await tasks.insertMany([
        { _id: 't1-null', ...key('t1'), until: null },
        { _id: 't2-missing', ...key('t2') },
        { _id: 't3-missing', ...key('t3') },
        { _id: 't4-null', ...key('t4'), until: null },
        { _id: 't4-day', ...key('t4'), until: new Date(Date.UTC(2026, 0, 1)) },
      ]);
      // every case at once, so that a failure shows them all
      expect({
        missingAfterNull: await codeOf(tasks.insertOne({ _id: 't1-missing', ...key('t1') })),
        missingAfterMissing: await codeOf(tasks.insertOne({ _id: 't2-missing-again', ...key('t2') })),
        nullAfterMissing: await codeOf(tasks.insertOne({ _id: 't3-null', ...key('t3'), until: null })),
        unsetBesideNull: await codeOf(tasks.updateOne({ _id: 't4-day' }, { $unset: { until: '' } })),
      }).toEqual({ missingAfterNull: DUPLICATE_KEY, missingAfterMissing: DUPLICATE_KEY, nullAfterMissing: DUPLICATE_KEY, unsetBesideNull: DUPLICATE_KEY });
      expect(await tasks.countDocuments({})).toBe(5);
    });

    it('lets exactly one of N concurrent inserts of a unique compound key with a null field succeed, the others failing with 11000', async () => {
      // services/tasks/src/repository/gamer-task-repository.ts:91-96: concurrent assigns of one lifetime task
      const tasks = fresh('null_key_race');
      await tasks.createIndex({ app: 1, gamer: 1, task: 1, until: 1 }, { unique: true });
      const codes = await Promise.all(range(N).map((i) => codeOf(tasks.insertOne({ _id: `t${i}`, app: 'a', gamer: 'g', task: 't', until: null }))));
      expect(codes.filter((c) => c === undefined)).toHaveLength(1);
      expect(codes.filter((c) => c === DUPLICATE_KEY)).toHaveLength(N - 1);
      expect(await tasks.countDocuments({})).toBe(1);
    });

    it('keeps a partial unique index, which leaves out documents without its key field; or refuses it as not implemented, building nothing', async () => {
      // services/notifications/src/repository/store.ts (ensureDedupeIndex): the inbox's
      // dedupe index is partial where the store takes it, so notifications stored before the
      // key existed (copies included) are left out; FerretDB v1 refuses partial indexes
      // (scripts/images/ferretdb/README.md), and the service then keys every notification
      const inbox = fresh('partial_unique');
      const gamer = { app: 'a', gamer: 'g' };
      // two without the key, stored before the index: its build leaves them out
      await inbox.insertMany([{ _id: 'old-1', ...gamer }, { _id: 'old-2', ...gamer }]);
      const refused = await codeOf(inbox.createIndex({ app: 1, gamer: 1, key: 1 }, { name: 'dedupe', unique: true, partialFilterExpression: { key: { $exists: true } } }));
      // refused by FerretDB v1 only: on the other store the branch below must be the one taken
      expect(refused === undefined ? 'mongodb' : 'ferretdb').toBe(storeEngine());
      if (refused !== undefined) {
        expect(refused).toBe(NOT_IMPLEMENTED);
        expect((await inbox.listIndexes().toArray()).map((i) => i.name)).not.toContain('dedupe');
        return;
      }
      expect((await inbox.listIndexes().toArray()).find((i) => i.name === 'dedupe')).toEqual(expect.objectContaining({ unique: true, partialFilterExpression: { key: { $exists: true } } }));
      await inbox.insertOne({ _id: 'new-1', ...gamer, key: 'k' });
      expect({
        sameKey: await codeOf(inbox.insertOne({ _id: 'new-2', ...gamer, key: 'k' })),
        anotherGamer: await codeOf(inbox.insertOne({ _id: 'new-3', ...gamer, gamer: 'h', key: 'k' })),
        withoutKeyAgain: await codeOf(inbox.insertOne({ _id: 'old-3', ...gamer })),
      }).toEqual({ sameKey: DUPLICATE_KEY, anotherGamer: undefined, withoutKeyAgain: undefined });
      expect((await inbox.find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id).sort()).toEqual(['new-1', 'new-3', 'old-1', 'old-2', 'old-3']);
    });
  });

  describe('bulk writes', () => {
    it('reports the failing insert of an unordered bulkWrite by its index and inserts the others', async () => {
      const keys = fresh('bulk_inserts');
      await keys.createIndex({ key: 1 }, { unique: true });
      await keys.insertOne({ _id: 'existing', key: 'x' });
      const error = await bulkFailure(
        keys.bulkWrite(
          ['a', 'b', 'x', 'c', 'd'].map((key) => ({ insertOne: { document: { _id: `i-${key}`, key } } })),
          { ordered: false },
        ),
      );
      expect(error.writeErrors).toEqual([expect.objectContaining({ index: 2, code: DUPLICATE_KEY })]);
      expect(error.insertedCount).toBe(4);
      expect((await keys.find({}).toArray()).map((d) => d.key).sort()).toEqual(['a', 'b', 'c', 'd', 'x']);
    });

    it('stops an ordered bulkWrite of inserts at the failing one', async () => {
      const keys = fresh('bulk_ordered_inserts');
      await keys.createIndex({ key: 1 }, { unique: true });
      await keys.insertOne({ _id: 'existing', key: 'x' });
      const error = await bulkFailure(keys.bulkWrite(['a', 'b', 'x', 'c'].map((key) => ({ insertOne: { document: { _id: `i-${key}`, key } } })), { ordered: true }));
      expect(error.writeErrors).toEqual([expect.objectContaining({ index: 2, code: DUPLICATE_KEY })]);
      expect(error.insertedCount).toBe(2);
      expect((await keys.find({}).toArray()).map((d) => d.key).sort()).toEqual(['a', 'b', 'x']);
    });

    it('applies the other updates of an unordered bulkWrite when one statement fails, and reports its index', async () => {
      const counters = fresh('bulk_updates');
      await counters.insertMany([
        { _id: 'a', n: 0 },
        { _id: 'b', n: 'not a number' },
        { _id: 'c', n: 0 },
        { _id: 'd', n: 0 },
      ]);
      const error = await bulkFailure(
        counters.bulkWrite(
          ['a', 'b', 'c', 'd'].map((_id) => ({ updateOne: { filter: { _id }, update: { $inc: { n: 1 } } } })),
          { ordered: false },
        ),
      );
      expect(error.writeErrors).toEqual([expect.objectContaining({ index: 1, code: TYPE_MISMATCH })]);
      expect(error.modifiedCount).toBe(3);
      expect(await counters.find({}).sort({ _id: 1 }).toArray()).toEqual([
        { _id: 'a', n: 1 },
        { _id: 'b', n: 'not a number' },
        { _id: 'c', n: 1 },
        { _id: 'd', n: 1 },
      ]);
    });

    it('stops an ordered bulkWrite of updates at the failing statement', async () => {
      const counters = fresh('bulk_ordered_updates');
      await counters.insertMany([
        { _id: 'a', n: 0 },
        { _id: 'b', n: 'not a number' },
        { _id: 'c', n: 0 },
      ]);
      const error = await bulkFailure(
        counters.bulkWrite(
          ['a', 'b', 'c'].map((_id) => ({ updateOne: { filter: { _id }, update: { $inc: { n: 1 } } } })),
          { ordered: true },
        ),
      );
      expect(error.writeErrors).toEqual([expect.objectContaining({ index: 1, code: TYPE_MISMATCH })]);
      expect(error.modifiedCount).toBe(1);
      expect(await counters.find({}).sort({ _id: 1 }).toArray()).toEqual([
        { _id: 'a', n: 1 },
        { _id: 'b', n: 'not a number' },
        { _id: 'c', n: 0 },
      ]);
    });

    it('reports a $rename onto a unique key that collides at its statement\'s index, and keeps the statements before it', async () => {
      const docs = fresh('bulk_rename_unique');
      await docs.createIndex({ k: 1 }, { unique: true });
      // every document has a k (a missing one is keyed as null, and only one may be)
      await docs.insertMany([
        { _id: 'a', k: 'a', n: 0 },
        { _id: 'b', k: 'b', x: 1 },
        { _id: 'c', k: 1 },
      ]);
      const error = await bulkFailure(
        docs.bulkWrite(
          [
            { updateOne: { filter: { _id: 'a' }, update: { $inc: { n: 1 } } } },
            { updateOne: { filter: { _id: 'b' }, update: { $rename: { x: 'k' } } } },
          ],
          { ordered: false },
        ),
      );
      expect(error.writeErrors).toEqual([expect.objectContaining({ index: 1, code: DUPLICATE_KEY })]);
      expect(error.modifiedCount).toBe(1);
      expect(await docs.find({}).sort({ _id: 1 }).toArray()).toEqual([
        { _id: 'a', k: 'a', n: 1 },
        { _id: 'b', k: 'b', x: 1 },
        { _id: 'c', k: 1 },
      ]);
    });

    it('counts matched, modified and upserted documents of a bulkWrite and keys upserts by statement index', async () => {
      const items = fresh('bulk_counts');
      await items.insertMany(range(10).map((i) => ({ _id: `e${i}`, n: 0 })));
      const operations = [
        ...range(10).map((i) => ({ updateOne: { filter: { _id: `e${i}` }, update: i < 6 ? { $inc: { n: 1 } } : { $set: { n: 0 } } } })), // 10 matched, 6 modified
        { updateOne: { filter: { _id: 'missing' }, update: { $inc: { n: 1 } } } }, // neither
        { updateOne: { filter: { _id: 'new-1' }, update: { $inc: { n: 1 } }, upsert: true } }, // index 11
        { updateOne: { filter: { _id: 'e0' }, update: { $inc: { n: 1 } }, upsert: true } }, // matches: no upsert
        { updateOne: { filter: { _id: 'new-2' }, update: { $set: { n: 5 } }, upsert: true } }, // index 13
      ];
      const result = await items.bulkWrite(operations, { ordered: false });
      expect(result.matchedCount).toBe(11);
      expect(result.modifiedCount).toBe(7);
      expect(result.upsertedCount).toBe(2);
      expect(result.upsertedIds).toEqual({ 11: 'new-1', 13: 'new-2' });
      expect(await items.findOne({ _id: 'e0' })).toEqual({ _id: 'e0', n: 2 });
      expect(await items.find({ _id: { $in: ['new-1', 'new-2'] } }).sort({ _id: 1 }).toArray()).toEqual([
        { _id: 'new-1', n: 1 },
        { _id: 'new-2', n: 5 },
      ]);
    });

    it('lets each statement of a bulkWrite see what the statements before it wrote', async () => {
      // The local store reads the documents of a command's by-_id statements ahead, in one
      // query: a multi update, an upsert, a replacement or an earlier statement on the same
      // _id must still be seen by the statements after it.
      const items = fresh('bulk_sequence');
      await items.insertMany([
        { _id: 'a', group: 'g', state: 'open', n: 0 },
        { _id: 'b', group: 'g', n: 0 },
        { _id: 'c', group: 'g', n: 0 },
        { _id: 'd', n: 0 },
      ]);
      const result = await items.bulkWrite(
        [
          { updateOne: { filter: { _id: 'a', state: 'open' }, update: { $set: { state: 'taken' } } } },
          { updateOne: { filter: { _id: 'b', n: { $lt: 5 } }, update: { $inc: { n: 1 } } } },
          { updateMany: { filter: { group: 'g' }, update: { $inc: { n: 10 } } } },
          { updateOne: { filter: { _id: 'c', n: 10 }, update: { $inc: { n: 1 } } } },
          { updateOne: { filter: { _id: 'b', n: 11 }, update: { $inc: { n: 1 } } } },
          { updateOne: { filter: { _id: 'new' }, update: { $set: { n: 1 } }, upsert: true } },
          { updateOne: { filter: { _id: 'new', n: 1 }, update: { $inc: { n: 1 } } } },
          { updateOne: { filter: { _id: 'a', state: 'open' }, update: { $set: { state: 'again' } } } },
          { replaceOne: { filter: { _id: 'd' }, replacement: { n: 100 } } },
          { updateOne: { filter: { _id: 'd', n: 100 }, update: { $inc: { n: 1 } } } },
          { updateOne: { filter: { _id: 'a', state: 'taken' }, update: { $inc: { n: 1 } } } },
        ],
        { ordered: true },
      );
      expect(result.matchedCount).toBe(11);
      expect(result.modifiedCount).toBe(11);
      expect(result.upsertedIds).toEqual({ 5: 'new' });
      expect(await items.find({}).sort({ _id: 1 }).toArray()).toEqual([
        { _id: 'a', group: 'g', state: 'taken', n: 11 },
        { _id: 'b', group: 'g', n: 12 },
        { _id: 'c', group: 'g', n: 11 },
        { _id: 'd', n: 101 },
        { _id: 'new', n: 2 },
      ]);
    });

    it('applies a bulkWrite of hundreds of updates in one command', async () => {
      // FerretDB before f8b6def kept every statement's read open until the end of the
      // command, and with its 100 SQLite connections a command of 100 updates never returned.
      const counters = fresh('bulk_large');
      const docs = 50;
      const statements = 300;
      await counters.insertMany(range(docs).map((i) => ({ _id: `c${i}`, n: 0 })));
      const result = await counters.bulkWrite(
        range(statements).map((i) => ({ updateOne: { filter: { _id: `c${i % docs}` }, update: { $inc: { n: 1 } } } })),
        { ordered: false },
      );
      expect(result.matchedCount).toBe(statements);
      expect(result.modifiedCount).toBe(statements);
      const all = await counters.find({}).toArray();
      expect(all.map((d) => d.n)).toEqual(range(docs).map(() => statements / docs));
    });

    it('reports a failed unordered bulkWrite of upserts with the failing statement\'s index and 11000, and the other statements\' upserted ids', async () => {
      // services/tasks/src/repository/store.ts:182-189 (upsertedIndexes): which upserts of a
      // failed bulk inserted, read from the error (gamer-task-repository.ts:115,
      // achievement-stats-repository.ts:93)
      const docs = fresh('bulk_upsert_failure');
      await docs.createIndex({ key: 1 }, { unique: true });
      await docs.insertOne({ _id: 'existing', key: 'taken' });
      const error = await bulkFailure(
        docs.bulkWrite(
          ['a', 'b', 'c'].map((_id) => ({ updateOne: { filter: { _id }, update: { $setOnInsert: { key: _id === 'b' ? 'taken' : `k-${_id}` } }, upsert: true } })),
          { ordered: false },
        ),
      );
      expect(error.writeErrors).toEqual([expect.objectContaining({ index: 1, code: DUPLICATE_KEY })]);
      expect(error.upsertedIds).toEqual({ 0: 'a', 2: 'c' });
      expect(error.upsertedCount).toBe(2);
      expect(await docs.find({}).sort({ _id: 1 }).toArray()).toEqual([
        { _id: 'a', key: 'k-a' },
        { _id: 'c', key: 'k-c' },
        { _id: 'existing', key: 'taken' },
      ]);
    });

    it('reports each insert of an unordered insertMany refused by a unique key other than _id, by its index, and inserts the others', async () => {
      // services/notifications/src/repository/inbox.ts (add): a batch of notifications holding
      // a second copy of a stored completion, two copies of one, and one stored before (a
      // retry: refused for its _id and its key at once) stores all the others, and learns
      // which were refused from the error's indexes (which index refused one is not said on
      // every store, so the service asks for the ids)
      const inbox = fresh('insert_many_unique_key');
      await inbox.createIndex({ gamer: 1, key: 1 }, { unique: true });
      await inbox.insertMany([{ _id: 'stored', gamer: 'g', key: 'k0' }, { _id: 'retried', gamer: 'g', key: 'k1' }]);
      const error = await bulkFailure(
        inbox.insertMany(
          [
            { _id: 'a', gamer: 'g', key: 'a' },
            { _id: 'copy-of-stored', gamer: 'g', key: 'k0' },
            { _id: 'b', gamer: 'g', key: 'kb' },
            { _id: 'b-again', gamer: 'g', key: 'kb' },
            { _id: 'retried', gamer: 'g', key: 'k1' },
            { _id: 'c', gamer: 'g', key: 'c' },
          ],
          { ordered: false },
        ),
      );
      const refused = [error.writeErrors].flat().map((e) => ({ index: e.index, code: e.code }));
      // of the two copies in the batch, one is stored and the other refused, whichever it is
      const copy = refused.find((e) => e.index === 2 || e.index === 3)?.index;
      expect(refused.sort((x, y) => x.index - y.index)).toEqual([1, copy, 4].map((index) => ({ index, code: DUPLICATE_KEY })));
      expect(error.insertedCount).toBe(3);
      const kept = copy === 2 ? 'b-again' : 'b';
      expect((await inbox.find({}).toArray()).map((d) => d._id).sort()).toEqual(['a', kept, 'c', 'retried', 'stored'].sort());
    });

    it('rejects an unordered insertMany holding an existing _id with 11000, and counts the documents it inserted', async () => {
      // services/tasks/src/repository/inventory-repository.ts:19-24 answers the grants that were
      // new from the error's insertedCount; event-log-repository.ts:21-24 and
      // gamer-progress-repository.ts:352-355 take its 11000 as "recorded before"
      const grants = fresh('insert_many_duplicate');
      await grants.insertOne({ _id: 'x', n: 0 });
      const error = await bulkFailure(
        grants.insertMany(
          ['a', 'x', 'b'].map((_id) => ({ _id, n: 1 })),
          { ordered: false },
        ),
      );
      expect(error.writeErrors).toEqual([expect.objectContaining({ index: 1, code: DUPLICATE_KEY })]);
      expect(error.insertedCount).toBe(2);
      expect(await grants.find({}).sort({ _id: 1 }).toArray()).toEqual([
        { _id: 'a', n: 1 },
        { _id: 'b', n: 1 },
        { _id: 'x', n: 0 },
      ]);
    });
  });

  describe('update operators', () => {
    it('$set, $unset and $inc change exactly the named fields', async () => {
      const docs = fresh('set_unset');
      await docs.insertOne({ _id: 'd', a: 1, b: 'x', c: true, n: 5 });
      await docs.updateOne({ _id: 'd' }, { $set: { a: 2, added: 'new' }, $unset: { b: '' }, $inc: { n: -2, fresh: 3 } });
      expect(await docs.findOne({ _id: 'd' })).toEqual({ _id: 'd', a: 2, c: true, n: 3, added: 'new', fresh: 3 });
    });

    it('moves entries of an embedded map by dotted path, on conditions on its entries\' paths (the tasks service\'s progress documents)', async () => {
      const docs = fresh<Listed<'applied', string> & { tasks: Record<string, unknown> }>('dotted_map');
      // keys as gamer task ids are: UUIDs, one starting with a digit
      const a = '0190f3c2-7d4e-7a61-9b2c-1d2e3f405162';
      const b = 'f0e1d2c3-b4a5-8697-a8b9-cadbecfd0e1f';
      const c = '5c6d7e8f-9a0b-4c1d-8e2f-3a4b5c6d7e8f';
      await docs.insertOne({ _id: 'g', tasks: { [a]: { p: 1, g: 1, done: false }, [b]: { p: 5, g: 2, done: false } }, applied: ['e1'] });
      const write = () => docs.updateOne(
        { _id: 'g', applied: { $nin: ['e2'] }, [`tasks.${a}.done`]: false, [`tasks.${a}.p`]: { $lt: 10 }, [`tasks.${b}.p`]: 5, [`tasks.${b}.g`]: 2, [`tasks.${c}`]: { $exists: false } },
        { $inc: { [`tasks.${a}.p`]: 2, [`tasks.${a}.g`]: 1 }, $set: { [`tasks.${b}.p`]: 9, [`tasks.${b}.done`]: true, [`tasks.${c}`]: { p: 0, g: 0, done: false } }, $push: { applied: { $each: ['e2'] } } },
      );
      expect((await write()).modifiedCount).toBe(1);
      // the same write again matches nothing: its event is applied, its planned-from state gone, its entry present
      expect((await write()).matchedCount).toBe(0);
      expect(await docs.findOne({ _id: 'g' })).toEqual({
        _id: 'g',
        tasks: { [a]: { p: 3, g: 2, done: false }, [b]: { p: 9, g: 2, done: true }, [c]: { p: 0, g: 0, done: false } },
        applied: ['e1', 'e2'],
      });
      expect((await docs.updateOne({ _id: 'g' }, { $unset: { [`tasks.${c}`]: '' }, $pullAll: { applied: ['e1'] } })).modifiedCount).toBe(1);
      expect(await docs.findOne({ _id: 'g' })).toEqual({ _id: 'g', tasks: { [a]: { p: 3, g: 2, done: false }, [b]: { p: 9, g: 2, done: true } }, applied: ['e2'] });
    });

    it('lets exactly one of N concurrent conditional updates of one embedded entry win, and keeps every other entry\'s $inc', async () => {
      const docs = fresh('dotted_race');
      await docs.insertOne({ _id: 'g', tasks: { x: { p: 0 }, y: { n: 0 } } });
      const results = await Promise.all(range(N).map((i) => docs.updateOne({ _id: 'g', 'tasks.x.p': 0 }, { $set: { 'tasks.x.p': i + 1 }, $inc: { 'tasks.y.n': 1 } })));
      expect(results.filter((r) => r.modifiedCount === 1)).toHaveLength(1);
      const counted = await Promise.all(range(N).map(() => docs.updateOne({ _id: 'g' }, { $inc: { 'tasks.y.n': 1 } })));
      expect(counted.every((r) => r.modifiedCount === 1)).toBe(true);
      expect((await docs.findOne({ _id: 'g' }))?.tasks).toEqual({ x: { p: expect.any(Number) }, y: { n: N + 1 } });
    });

    it('$setOnInsert writes only when an upsert inserts', async () => {
      const docs = fresh('set_on_insert');
      const upsert = (name: string) => docs.updateOne({ _id: 'd' }, { $setOnInsert: { createdBy: name }, $set: { lastBy: name } }, { upsert: true });
      expect((await upsert('first')).upsertedCount).toBe(1);
      expect((await upsert('second')).upsertedCount).toBe(0);
      expect(await docs.findOne({ _id: 'd' })).toEqual({ _id: 'd', createdBy: 'first', lastBy: 'second' });
    });

    it('$setOnInsert of _id gives the document an upsert inserts that _id, when the filter has none', async () => {
      // services/friendship/src/repository/relations.ts:177 and blocks.ts:44: the service
      // chooses the id of a new relation or block (and answers it) before the write
      const docs = fresh('set_on_insert_id');
      const result = await docs.updateOne({ app: 'a', key: 'k' }, { $setOnInsert: { _id: 'chosen', n: 1 } }, { upsert: true });
      expect(result.upsertedCount).toBe(1);
      expect(result.upsertedId).toBe('chosen');
      expect(await docs.findOneAndUpdate({ app: 'a', key: 'l' }, { $setOnInsert: { _id: 'other' } }, { upsert: true, returnDocument: 'after' })).toEqual({ _id: 'other', app: 'a', key: 'l' });
      // a match keeps its _id
      const again = await docs.updateOne({ app: 'a', key: 'k' }, { $setOnInsert: { _id: 'ignored', n: 2 } }, { upsert: true });
      expect([again.matchedCount, again.modifiedCount, again.upsertedCount]).toEqual([1, 0, 0]);
      expect(await docs.find({}).sort({ _id: 1 }).toArray()).toEqual([
        { _id: 'chosen', app: 'a', key: 'k', n: 1 },
        { _id: 'other', app: 'a', key: 'l' },
      ]);
    });

    it('$min and $max keep the smaller and the larger value, numbers and dates alike', async () => {
      const docs = fresh('min_max');
      const early = new Date('2026-01-01T00:00:00Z');
      const late = new Date('2026-06-01T00:00:00Z');
      await docs.insertOne({ _id: 'd', low: 5, high: 5, first: late, last: early });
      await docs.updateOne({ _id: 'd' }, { $min: { low: 3, first: early }, $max: { high: 9, last: late } });
      await docs.updateOne({ _id: 'd' }, { $min: { low: 4, first: late }, $max: { high: 7, last: early } });
      await docs.updateOne({ _id: 'd' }, { $min: { unset: 1 }, $max: { unsetToo: 2 } });
      expect(await docs.findOne({ _id: 'd' })).toEqual({ _id: 'd', low: 3, high: 9, first: early, last: late, unset: 1, unsetToo: 2 });
    });

    it('$max with $setOnInsert on an upsert: the value and the inserted fields when it inserts, the larger value after', async () => {
      // services/tasks/src/repository/inventory-repository.ts (removeAllBut): the time of a gamer's last reset
      const resets = fresh('max_upsert');
      const [early, late] = [new Date('2026-01-01T00:00:00Z'), new Date('2026-06-01T00:00:00Z')];
      const reset = (at: Date) => resets.updateOne({ _id: 'a:g' }, { $max: { at }, $setOnInsert: { app: 'a', gamer: 'g' } }, { upsert: true });
      expect((await reset(late)).upsertedCount).toBe(1);
      expect(await resets.findOne({ _id: 'a:g' })).toEqual({ _id: 'a:g', at: late, app: 'a', gamer: 'g' });
      expect((await reset(early)).modifiedCount).toBe(0);
      const later = new Date('2026-07-01T00:00:00Z');
      expect((await reset(later)).modifiedCount).toBe(1);
      expect(await resets.findOne({ _id: 'a:g' })).toEqual({ _id: 'a:g', at: later, app: 'a', gamer: 'g' });
    });

    it('$push with $each appends in order, and $slice keeps the last n (negative), none (0) or the first n (positive)', async () => {
      const lists = fresh<Listed<'arr', number | string>>('push_slice');
      await lists.insertMany([
        { _id: 'last', arr: [1, 2, 3] },
        { _id: 'none', arr: [1, 2, 3] },
        { _id: 'first', arr: [1, 2, 3] },
        { _id: 'plain', arr: [1] },
        { _id: 'short', arr: [1] },
      ]);
      await lists.updateOne({ _id: 'last' }, { $push: { arr: { $each: [4, 5], $slice: -3 } } });
      await lists.updateOne({ _id: 'none' }, { $push: { arr: { $each: [4], $slice: 0 } } });
      await lists.updateOne({ _id: 'first' }, { $push: { arr: { $each: [4, 5], $slice: 2 } } });
      await lists.updateOne({ _id: 'plain' }, { $push: { arr: { $each: [2, 3] } } });
      await lists.updateOne({ _id: 'short' }, { $push: { arr: { $each: [2], $slice: -5 } } });
      await lists.updateOne({ _id: 'created' }, { $push: { arr: { $each: ['a', 'b', 'c'], $slice: -2 } } }, { upsert: true });
      expect(await lists.find({}).sort({ _id: 1 }).toArray()).toEqual([
        { _id: 'created', arr: ['b', 'c'] },
        { _id: 'first', arr: [1, 2] },
        { _id: 'last', arr: [3, 4, 5] },
        { _id: 'none', arr: [] },
        { _id: 'plain', arr: [1, 2, 3] },
        { _id: 'short', arr: [1, 2] },
      ]);
    });

    it('counts a $push of no elements whose $slice keeps every element as no modification', async () => {
      const lists = fresh<Listed<'recent', number>>('push_slice_noop');
      await lists.insertOne({ _id: 'f', recent: [1, 2, 3, 4, 5] });
      expect((await lists.updateOne({ _id: 'f' }, { $push: { recent: { $each: [], $slice: 5 } } })).modifiedCount).toBe(0);
      expect((await lists.updateOne({ _id: 'f' }, { $push: { recent: { $each: [], $slice: -9 } } })).modifiedCount).toBe(0);
      expect((await lists.updateOne({ _id: 'f' }, { $push: { recent: { $each: [], $slice: -4 } } })).modifiedCount).toBe(1);
      expect(await lists.findOne({ _id: 'f' })).toEqual({ _id: 'f', recent: [2, 3, 4, 5] });
    });

    it('keeps a list bounded by $push $slice under repeated pushes', async () => {
      const feed = fresh<Listed<'recent', number>>('bounded');
      for (const i of range(12)) await feed.updateOne({ _id: 'f' }, { $push: { recent: { $each: [i], $slice: -5 } } }, { upsert: true });
      expect(await feed.findOne({ _id: 'f' })).toEqual({ _id: 'f', recent: [7, 8, 9, 10, 11] });
    });

    it('$addToSet adds a value only when absent, with and without $each', async () => {
      const sets = fresh<Listed<'tags', string>>('add_to_set');
      await sets.insertOne({ _id: 's', tags: ['x'] });
      expect((await sets.updateOne({ _id: 's' }, { $addToSet: { tags: 'x' } })).modifiedCount).toBe(0);
      expect((await sets.updateOne({ _id: 's' }, { $addToSet: { tags: 'y' } })).modifiedCount).toBe(1);
      await sets.updateOne({ _id: 's' }, { $addToSet: { tags: { $each: ['x', 'z', 'z', 'w'] } } });
      await sets.updateOne({ _id: 'new' }, { $addToSet: { tags: { $each: ['a', 'a'] } } }, { upsert: true });
      expect(await sets.findOne({ _id: 's' })).toEqual({ _id: 's', tags: ['x', 'y', 'z', 'w'] });
      expect(await sets.findOne({ _id: 'new' })).toEqual({ _id: 'new', tags: ['a'] });
    });

    it('$pull removes every element equal to the value', async () => {
      const sets = fresh<Listed<'tags', string>>('pull');
      await sets.insertOne({ _id: 's', tags: ['x', 'y', 'x', 'z'] });
      expect((await sets.updateOne({ _id: 's' }, { $pull: { tags: 'x' } })).modifiedCount).toBe(1);
      expect((await sets.updateOne({ _id: 's' }, { $pull: { tags: 'absent' } })).modifiedCount).toBe(0);
      expect(await sets.findOne({ _id: 's' })).toEqual({ _id: 's', tags: ['y', 'z'] });
    });

    it("findOneAndUpdate returns the document after or before the update, as asked", async () => {
      const docs = fresh('find_and_modify');
      await docs.insertOne({ _id: 'd', n: 1 });
      expect(await docs.findOneAndUpdate({ _id: 'd' }, { $inc: { n: 1 } }, { returnDocument: 'after' })).toEqual({ _id: 'd', n: 2 });
      expect(await docs.findOneAndUpdate({ _id: 'd' }, { $inc: { n: 1 } }, { returnDocument: 'before' })).toEqual({ _id: 'd', n: 2 });
      expect(await docs.findOneAndUpdate({ _id: 'e' }, { $set: { n: 0 } }, { returnDocument: 'before', upsert: true })).toBeNull();
      expect(await docs.findOneAndUpdate({ _id: 'f' }, { $set: { n: 0 } }, { returnDocument: 'after', upsert: true })).toEqual({ _id: 'f', n: 0 });
      expect(await docs.findOneAndUpdate({ _id: 'missing' }, { $set: { n: 0 } }, { returnDocument: 'after' })).toBeNull();
      expect(await docs.findOne({ _id: 'd' })).toEqual({ _id: 'd', n: 3 });
    });

    it('findOneAndUpdate and findOneAndDelete answer the document projected, on update, upsert and delete alike', async () => {
      const docs = fresh('find_and_modify_projection');
      await docs.insertOne({ _id: 'd', app: 'a', name: 'Ann', avatar: 'x.png', n: 1 });
      // inclusion: the named fields and _id unless left out; the update applies in full
      expect(await docs.findOneAndUpdate({ _id: 'd' }, { $inc: { n: 1 } }, { returnDocument: 'after', projection: { _id: 0, name: 1, avatar: 1 } })).toEqual({ name: 'Ann', avatar: 'x.png' });
      expect(await docs.findOneAndUpdate({ _id: 'd' }, { $set: { name: 'Ana' } }, { returnDocument: 'before', projection: { name: 1 } })).toEqual({ _id: 'd', name: 'Ann' });
      // exclusion
      expect(await docs.findOneAndUpdate({ _id: 'd' }, { $inc: { n: 1 } }, { returnDocument: 'after', projection: { app: 0, avatar: 0 } })).toEqual({ _id: 'd', name: 'Ana', n: 3 });
      // an upsert's new document
      expect(await docs.findOneAndUpdate({ _id: 'e' }, { $set: { name: 'Eve' }, $setOnInsert: { avatar: '' } }, { upsert: true, returnDocument: 'after', projection: { _id: 0, name: 1, avatar: 1 } })).toEqual({ name: 'Eve', avatar: '' });
      expect(await docs.findOneAndDelete({ _id: 'e' }, { projection: { name: 1 } })).toEqual({ _id: 'e', name: 'Eve' });
      expect(await docs.findOne({ _id: 'd' })).toEqual({ _id: 'd', app: 'a', name: 'Ana', avatar: 'x.png', n: 3 });
    });
  });

  describe('filters', () => {
    const ids = async (collection: mongoose.mongo.Collection<Doc>, filter: mongoose.mongo.Filter<Doc>) =>
      (await collection.find(filter, { projection: { _id: 1 } }).toArray()).map((d) => d._id).sort();

    it('matches array fields by element: equality, $ne, $nin, $all and $size', async () => {
      const docs = fresh('array_filters');
      await docs.insertMany([
        { _id: 'xy', arr: ['x', 'y'] },
        { _id: 'y', arr: ['y'] },
        { _id: 'yz', arr: ['y', 'z'] },
        { _id: 'empty', arr: [] },
        { _id: 'scalar-x', arr: 'x' },
        { _id: 'missing' },
      ]);
      expect(await ids(docs, { arr: 'x' })).toEqual(['scalar-x', 'xy']);
      // $ne: no element equals x (and documents without the field)
      expect(await ids(docs, { arr: { $ne: 'x' } })).toEqual(['empty', 'missing', 'y', 'yz']);
      expect(await ids(docs, { arr: { $nin: ['x', 'z'] } })).toEqual(['empty', 'missing', 'y']);
      expect(await ids(docs, { arr: { $all: ['y', 'x'] } })).toEqual(['xy']);
      expect(await ids(docs, { arr: { $size: 2 } })).toEqual(['xy', 'yz']);
      expect(await ids(docs, { arr: { $size: 0 } })).toEqual(['empty']);
    });

    it('matches $in, dates by $lte and $gt, and null as missing or null', async () => {
      const docs = fresh('scalar_filters');
      const at = (day: number) => new Date(Date.UTC(2026, 0, day));
      await docs.insertMany([
        { _id: 'd1', state: 'open', due: at(1), owner: 'g1' },
        { _id: 'd2', state: 'done', due: at(2), owner: null },
        { _id: 'd3', state: 'gone', due: at(3) },
        { _id: 'd4', state: 'open', due: at(4), owner: 'g2' },
      ]);
      expect(await ids(docs, { state: { $in: ['open', 'done'] } })).toEqual(['d1', 'd2', 'd4']);
      expect(await ids(docs, { due: { $lte: at(2) } })).toEqual(['d1', 'd2']);
      expect(await ids(docs, { due: { $gt: at(2) } })).toEqual(['d3', 'd4']);
      expect(await ids(docs, { due: { $gt: at(1), $lte: at(3) }, state: { $in: ['gone', 'open'] } })).toEqual(['d3']);
      expect(await ids(docs, { owner: null })).toEqual(['d2', 'd3']);
    });

    it('matches $in lists of any length, with repeated values, once per document, also sorted, limited and counted', async () => {
      const docs = fresh('in_lists');
      await docs.createIndex({ owner: 1 });
      const key = (i: number) => `k${String(i).padStart(2, '0')}`;
      await docs.insertMany(range(40).map((i) => ({ _id: key(i), owner: `g${i % 10}` })));
      // one statement per list length on the local store (a parameter per value), on an index and on _id
      for (const n of [1, 2, 3, 5, 7, 9, 10]) {
        const want = range(40).filter((i) => i % 10 < n).map(key);
        expect(await ids(docs, { owner: { $in: range(n).map((i) => `g${i}`) } })).toEqual(want);
        expect(await ids(docs, { _id: { $in: want } })).toEqual(want);
      }
      expect(await ids(docs, { owner: { $in: ['g1', 'g1', 'g2', 'g1', 'none'] } })).toEqual(['k01', 'k02', 'k11', 'k12', 'k21', 'k22', 'k31', 'k32']);
      const three = { owner: { $in: ['g1', 'g2', 'g3'] } };
      expect((await docs.find(three).sort({ _id: 1 }).limit(5).toArray()).map((d) => d._id)).toEqual(['k01', 'k02', 'k03', 'k11', 'k12']);
      expect(await docs.countDocuments(three)).toBe(12);
      expect(await docs.countDocuments(three, { limit: 5 })).toBe(5);
    });

    it('counts with a limit, and sorts then limits', async () => {
      const docs = fresh('count_sort');
      await docs.insertMany(range(10).map((i) => ({ _id: `d${i}`, app: 'a', score: (i * 7) % 10 })));
      expect(await docs.countDocuments({ app: 'a' }, { limit: 3 })).toBe(3);
      expect(await docs.countDocuments({ app: 'a' }, { limit: 20 })).toBe(10);
      expect(await docs.countDocuments({ app: 'b' }, { limit: 3 })).toBe(0);
      const top = await docs.find({ app: 'a' }).sort({ score: -1 }).limit(3).toArray();
      expect(top.map((d) => d.score)).toEqual([9, 8, 7]);
      const bottom = await docs.find({ app: 'a', score: { $gte: 2 } }).sort({ score: 1, _id: 1 }).limit(2).toArray();
      expect(bottom.map((d) => d.score)).toEqual([2, 3]);
    });

    it('answers queries over indexed fields exactly, before and after updates and deletes', async () => {
      const tasks = fresh('indexed');
      await tasks.createIndex({ owner: 1, state: 1 });
      await tasks.createIndex({ due: 1 });
      const due = (i: number) => new Date(Date.UTC(2026, 0, 1 + (i % 30)));
      await tasks.insertMany(range(120).map((i) => ({ _id: `t${String(i).padStart(3, '0')}`, owner: `g${i % 4}`, state: i % 3 ? 'open' : 'done', due: due(i) })));
      // the truth, computed from a full read without a filter
      const expected = async (keep: (d: Doc) => boolean) => (await tasks.find({}).toArray()).filter(keep).map((d) => d._id).sort();
      const check = async () => {
        expect(await ids(tasks, { owner: 'g1', state: 'open' })).toEqual(await expected((d) => d.owner === 'g1' && d.state === 'open'));
        expect(await ids(tasks, { owner: { $in: ['g2', 'g3'] }, state: 'done' })).toEqual(
          await expected((d) => (d.owner === 'g2' || d.owner === 'g3') && d.state === 'done'),
        );
        expect(await ids(tasks, { due: { $lte: due(5) } })).toEqual(await expected((d) => (d.due as Date) <= due(5)));
      };
      await check();
      await tasks.updateMany({ owner: 'g1', state: 'open' }, { $set: { state: 'done' } });
      await tasks.updateMany({ owner: 'g2' }, { $set: { owner: 'g1' } });
      await tasks.deleteMany({ owner: 'g3', state: 'done' });
      expect(await ids(tasks, { owner: 'g2' })).toEqual([]);
      await check();
    });

    it('finds a parent by its own _id or by the id of an embedded child ($or over _id and an indexed array path)', async () => {
      // services/tasks/src/repository/catalog-repository.ts:24 (findByTaskId), on the
      // 'children.id' index of store.ts:142
      const catalog = fresh('or_children');
      await catalog.createIndex({ 'children.id': 1 });
      await catalog.insertMany([
        { _id: 'p1', app: 'a', children: [{ id: 'c1', n: 1 }, { id: 'c2', n: 2 }] },
        { _id: 'p2', app: 'a', children: [] },
        { _id: 'p3', app: 'b', children: [{ id: 'c3' }] },
        { _id: 'c4', app: 'a', children: [{ id: 'p2' }] },
      ]);
      const byTask = (app: string, id: string) => ids(catalog, { app, $or: [{ _id: id }, { 'children.id': id }] });
      expect(await byTask('a', 'p1')).toEqual(['p1']);
      expect(await byTask('a', 'c1')).toEqual(['p1']);
      expect(await byTask('a', 'c2')).toEqual(['p1']);
      expect(await byTask('a', 'c4')).toEqual(['c4']);
      // a parent's id that is also another parent's child id: both
      expect(await byTask('a', 'p2')).toEqual(['c4', 'p2']);
      // another application's, and none
      expect(await byTask('a', 'c3')).toEqual([]);
      expect(await byTask('b', 'c3')).toEqual(['p3']);
      expect(await byTask('a', 'none')).toEqual([]);
      expect(await catalog.findOne({ app: 'a', $or: [{ _id: 'c2' }, { 'children.id': 'c2' }] })).toEqual({ _id: 'p1', app: 'a', children: [{ id: 'c1', n: 1 }, { id: 'c2', n: 2 }] });
    });

    it('deletes exactly the documents an $or over nested dotted paths matches', async () => {
      // services/notifications/src/repository/inbox.ts:103 (eraseGamer): other gamers'
      // notifications naming the erased gamer as data.user.id or data.userId
      const inbox = fresh('or_nested_delete');
      await inbox.insertMany([
        { _id: 'user', app: 'a', data: { user: { id: 'g', name: 'G' } } },
        { _id: 'user-id', app: 'a', data: { userId: 'g' } },
        { _id: 'both', app: 'a', data: { user: { id: 'g' }, userId: 'g' } },
        { _id: 'other-gamer', app: 'a', data: { user: { id: 'h' }, userId: 'h' } },
        { _id: 'other-app', app: 'b', data: { user: { id: 'g' }, userId: 'g' } },
        { _id: 'other-field', app: 'a', data: { gamerId: 'g', user: { name: 'g' } } },
        { _id: 'top-level', app: 'a', userId: 'g', user: { id: 'g' } },
        { _id: 'no-data', app: 'a' },
      ]);
      const mentions = { app: 'a', $or: [{ 'data.user.id': 'g' }, { 'data.userId': 'g' }] };
      expect((await inbox.deleteMany(mentions)).deletedCount).toBe(3);
      expect(await ids(inbox, {})).toEqual(['no-data', 'other-app', 'other-field', 'other-gamer', 'top-level']);
      expect((await inbox.deleteMany(mentions)).deletedCount).toBe(0);
    });

    it('matches a date by equality to the millisecond, as the condition of a compare-and-set', async () => {
      // services/tasks/src/repository/catalog-repository.ts:44 (an edit on condition that
      // updatedAt is still the time it was read) and event-log-repository.ts:56,62,67 (an
      // idempotency key held since startedAt)
      const keys = fresh('date_equality');
      const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
      const later = new Date(at.getTime() + 60_000);
      await keys.insertOne({ _id: 'k', state: 'pending', at });
      const takeOver = (seen: Date) => keys.updateOne({ _id: 'k', state: 'pending', at: seen }, { $set: { at: later } });
      expect((await takeOver(new Date(at.getTime() + 1))).matchedCount).toBe(0);
      expect((await takeOver(new Date(at.getTime() - 1))).matchedCount).toBe(0);
      expect((await takeOver(new Date(at.getTime()))).modifiedCount).toBe(1);
      // the time moved: the old one no longer matches, the new one does
      expect((await takeOver(at)).matchedCount).toBe(0);
      expect((await keys.deleteOne({ _id: 'k', state: 'pending', at: new Date(later.getTime() + 1) })).deletedCount).toBe(0);
      expect((await keys.deleteOne({ _id: 'k', state: 'pending', at: later })).deletedCount).toBe(1);
    });

    it('deletes exactly the _ids that start with a prefix, by the range ($gt prefix + ":", $lt prefix + ";")', async () => {
      // services/tasks/src/repository/event-log-repository.ts:75-77: a gamer's idempotency keys
      // are `<applicationId>:<gamerId>:<key>`
      const keys = fresh('id_prefix');
      const mine = ['a:g:k1', 'a:g:k2', 'a:g:0', 'a:g:k"q\\', 'a:g:<&>', 'a:g:é', 'a:g:😀', 'a:g:~~~'];
      const others = ['a:g', 'a:g;', 'a:g;x', 'a:g9:k', 'a:gg:k', 'a:g<:k', 'a:h:k', 'a:f:k', 'b:g:k', 'a', 'a:'];
      await keys.insertMany([...mine, ...others].map((_id) => ({ _id })));
      expect((await keys.deleteMany({ _id: { $gt: 'a:g:', $lt: 'a:g;' } })).deletedCount).toBe(mine.length);
      expect(await ids(keys, {})).toEqual([...others].sort());
    });

    it('deletes every document a deleteMany matches, past 32,766 of them (SQLite\'s parameters per statement)', async () => {
      // the sweeps: services/tasks/src/repository/event-log-repository.ts (applied event ids past
      // their retention, 60,000 a minute at 1,000 events/s), notifications' expired inbox
      const applied = fresh('many_deleted');
      const old = new Date('2026-01-01T00:00:00Z');
      const docs = range(33_000).map((i) => ({ _id: `e${i}`, processedAt: old }));
      for (let i = 0; i < docs.length; i += 5_000) await applied.insertMany(docs.slice(i, i + 5_000), { ordered: false });
      await applied.insertOne({ _id: 'recent', processedAt: new Date('2026-06-01T00:00:00Z') });
      expect((await applied.deleteMany({ processedAt: { $lt: new Date('2026-02-01T00:00:00Z') } })).deletedCount).toBe(33_000);
      expect(await ids(applied, {})).toEqual(['recent']);
    });

    it('matches, counts, deletes and upserts by fields named oid, rowid, _rowid_ and ROWID like any other', async () => {
      // SQLite takes these names for the table's rowid: the local store must not write them into SQL
      const docs = fresh('rowid_names');
      const names = ['oid', 'rowid', '_rowid_', 'ROWID'];
      await docs.insertMany(names.flatMap((f) => ['x', 'y'].map((v) => ({ _id: `${f}-${v}`, [f]: v }))));
      for (const f of names) {
        expect(await ids(docs, { [f]: 'x' })).toEqual([`${f}-x`]);
        expect(await ids(docs, { [f]: { $in: ['x', 'z'] } })).toEqual([`${f}-x`]);
        expect(await ids(docs, { [f]: { $gte: 'x' } })).toEqual([`${f}-x`, `${f}-y`]);
        expect(await docs.countDocuments({ [f]: 'y' })).toBe(1);
        expect(await docs.updateOne({ [f]: 'x' }, { $set: { n: 1 } }, { upsert: true })).toMatchObject({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0 });
        expect((await docs.deleteMany({ [f]: 'y' })).deletedCount).toBe(1);
      }
      expect(await docs.find({}).sort({ _id: 1 }).toArray()).toEqual(names.map((f) => ({ _id: `${f}-x`, [f]: 'x', n: 1 })).sort((a, b) => (a._id < b._id ? -1 : 1)));
    });

    it('refuses an operator nested in an $in list, short or long', async () => {
      const docs = fresh('in_nested_operator');
      await docs.insertOne({ _id: 'd', f: 'other' });
      for (const n of [2, 8, 20]) {
        const list = [...range(n).map((i) => `s${i}`), { $gt: 1 }];
        expect(await codeOf(docs.find({ f: { $in: list } } as never).toArray())).toBe(BAD_VALUE);
      }
    });
  });

  describe('projections and aggregation', () => {
    it('returns only the named entries of an embedded document for a dotted projection', async () => {
      // services/friendship/src/repository/relations.ts:315: a friend list page carries the
      // listing gamer's notes and never the other member's private ones
      const relations = fresh('dotted_projection');
      await relations.insertMany([
        { _id: 'r1', requester: 'me', addressee: 'you', status: 'accepted', notes: { me: { text: 'mine', favorite: true }, you: { text: 'private' } } },
        { _id: 'r2', requester: 'me', addressee: 'them', status: 'accepted', notes: { them: { text: 'private' } } },
        { _id: 'r3', requester: 'me', addressee: 'other', status: 'accepted' },
      ]);
      const page = await relations.find({ requester: 'me' }, { sort: { _id: 1 }, projection: { requester: 1, addressee: 1, status: 1, 'notes.me': 1 } }).toArray();
      expect(page).toEqual([
        { _id: 'r1', requester: 'me', addressee: 'you', status: 'accepted', notes: { me: { text: 'mine', favorite: true } } },
        { _id: 'r2', requester: 'me', addressee: 'them', status: 'accepted', notes: {} },
        { _id: 'r3', requester: 'me', addressee: 'other', status: 'accepted' },
      ]);
    });

    it('returns only the named entries of an embedded map and the named fields for a findOne with dotted paths', async () => {
      // services/tasks/src/repository/gamer-progress-repository.ts:216 (which writes of a
      // batch landed) and :285 (one entry's completion); map keys are gamer task ids (UUIDs)
      const progress = fresh('dotted_projection_map');
      const a = '0190f3c2-7d4e-7a61-9b2c-1d2e3f405162';
      const b = 'f0e1d2c3-b4a5-8697-a8b9-cadbecfd0e1f';
      const missing = '5c6d7e8f-9a0b-4c1d-8e2f-3a4b5c6d7e8f';
      await progress.insertOne({ _id: 'g', epoch: 'e', tasks: { [a]: { p: 1, g: 1, c: false }, [b]: { p: 5, g: 2, c: true, at: new Date(0) } }, applied: ['e1', 'e2'] });
      expect(await progress.findOne({ _id: 'g' }, { projection: { [`tasks.${b}`]: 1, applied: 1 } })).toEqual({ _id: 'g', tasks: { [b]: { p: 5, g: 2, c: true, at: new Date(0) } }, applied: ['e1', 'e2'] });
      expect(await progress.findOne({ _id: 'g' }, { projection: { [`tasks.${a}`]: 1 } })).toEqual({ _id: 'g', tasks: { [a]: { p: 1, g: 1, c: false } } });
      expect(await progress.findOne({ _id: 'g' }, { projection: { applied: 1, [`tasks.${a}`]: 1, [`tasks.${missing}`]: 1 } })).toEqual({ _id: 'g', tasks: { [a]: { p: 1, g: 1, c: false } }, applied: ['e1', 'e2'] });
      expect(await progress.find({ _id: { $in: ['g'] } }, { projection: { applied: 1, [`tasks.${missing}`]: 1 } }).toArray()).toEqual([{ _id: 'g', tasks: {}, applied: ['e1', 'e2'] }]);
    });

    it('sums a field per key with aggregate [$match, $group $sum], doubles included', async () => {
      // services/tasks/src/repository/inventory-repository.ts:36-40: an item's quantity is the sum of its grants
      const grants = fresh('group_sum');
      const grant = (_id: string, app: string, gamer: string, item: string, quantity: number) => ({ _id, app, gamer, item, quantity });
      await grants.insertMany([
        grant('1', 'a', 'g', 'gold', 5),
        grant('2', 'a', 'g', 'gold', 7),
        grant('3', 'a', 'g', 'gem', 1),
        grant('4', 'a', 'g', 'gem', 0.5),
        grant('5', 'a', 'g', 'potion', 2),
        grant('6', 'a', 'h', 'gold', 100),
        grant('7', 'b', 'g', 'gold', 1000),
      ]);
      const rows = await grants
        .aggregate<{ _id: string; quantity: number }>([{ $match: { app: 'a', gamer: 'g' } }, { $group: { _id: '$item', quantity: { $sum: '$quantity' } } }])
        .toArray();
      expect(rows.sort((x, y) => (x._id < y._id ? -1 : 1))).toEqual([
        { _id: 'gem', quantity: 1.5 },
        { _id: 'gold', quantity: 12 },
        { _id: 'potion', quantity: 2 },
      ]);
      expect(await grants.aggregate([{ $match: { app: 'a', gamer: 'nobody' } }, { $group: { _id: '$item', quantity: { $sum: '$quantity' } } }]).toArray()).toEqual([]);
    });

    it('groups by a compound key and keeps the groups whose count passes a $match, leaving a missing field out of the key', async () => {
      // services/notifications/src/repository/store.ts (dropKeyedCopies): the keys held by more
      // than one notification, found before the unique dedupe index is built
      const notes = fresh('group_compound');
      await notes.insertMany([
        { _id: '1', app: 'a', gamer: 'g', key: 'k1' },
        { _id: '2', app: 'a', gamer: 'g', key: 'k1' },
        { _id: '3', app: 'a', gamer: 'g', key: 'k2' },
        { _id: '4', app: 'a', gamer: 'h', key: 'k1' },
        { _id: '5', app: 'a', key: 'k3' },
        { _id: '6', app: 'a', key: 'k3' },
        { _id: '7', app: 'a', gamer: 'g' },
      ]);
      const rows = await notes
        .aggregate<{ _id: Record<string, string>; copies: number }>([
          { $match: { key: { $exists: true } } },
          { $group: { _id: { app: '$app', gamer: '$gamer', key: '$key' }, copies: { $sum: 1 } } },
          { $match: { copies: { $gt: 1 } } },
        ])
        .toArray();
      expect(rows.sort((x, y) => (x._id.key! < y._id.key! ? -1 : 1))).toEqual([
        { _id: { app: 'a', gamer: 'g', key: 'k1' }, copies: 2 },
        { _id: { app: 'a', key: 'k3' }, copies: 2 },
      ]);
    });
  });

  describe('TTL indexes', () => {
    it('keeps a TTL index (expireAfterSeconds 0), or refuses it and the notifications service then sweeps', async () => {
      // services/notifications/src/repository/store.ts:53-61: the expiry of notifications and
      // used tickets is a TTL index where the store takes one; where it refuses, a plain index
      // and ensureIndexes answers ttl:false, on which app.ts:36-39 starts the sweep
      const expiring = fresh('ttl');
      const accepted = await expiring.createIndex({ at: 1 }, { name: 'expiry', expireAfterSeconds: 0 }).then(
        () => true,
        () => false,
      );
      const store = { notifications: db.collection<NotificationDoc>(`ttl_notifications_${++collections}`), usedTickets: db.collection<UsedTicketDoc>(`ttl_tickets_${++collections}`) };
      const { ttl } = await ensureNotificationIndexes(store);
      expect(ttl).toBe(accepted);
      // TTL indexes: MongoDB's, not FerretDB v1's
      expect(accepted ? 'mongodb' : 'ferretdb').toBe(storeEngine());
      const expiryOf = async (collection: mongoose.mongo.Collection<never>) =>
        (await collection.listIndexes().toArray())
          .filter((i) => !['_id_', 'inbox', 'dedupe', ...MENTION_INDEXES.map((m) => m.name)].includes(i.name as string))
          .map((i) => ({ name: i.name, key: i.key, expireAfterSeconds: i.expireAfterSeconds }));
      if (accepted) {
        expect((await expiring.listIndexes().toArray()).find((i) => i.name === 'expiry')).toEqual(expect.objectContaining({ key: { at: 1 }, expireAfterSeconds: 0 }));
        for (const collection of [store.notifications, store.usedTickets]) expect(await expiryOf(collection as never)).toEqual([{ name: 'expiry', key: { expiresAt: 1 }, expireAfterSeconds: 0 }]);
      } else {
        for (const collection of [store.notifications, store.usedTickets]) expect(await expiryOf(collection as never)).toEqual([{ name: 'expiry_sweep', key: { expiresAt: 1 }, expireAfterSeconds: undefined }]);
      }
    });
  });
});
