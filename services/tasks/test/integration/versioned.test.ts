import { databaseUrl, infra } from '@gfts/testkit';
import mongoose, { type mongo } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VersionedCollection, type VersionTokenDoc } from '../../src/repository/versioned.ts';

interface Counter {
  _id: string;
  version: number;
  count: number;
  writers: string[];
}

describe('version tokens: compare-and-set on MongoDB and FerretDB v1', () => {
  let connection: mongoose.Connection;
  let docs: mongo.Collection<Counter>;
  let tokens: mongo.Collection<VersionTokenDoc>;
  let versioned: VersionedCollection<Counter>;
  beforeAll(async () => {
    connection = await mongoose.createConnection(databaseUrl(infra().mongoUrl, 'versioned')).asPromise();
    const db = connection.db as unknown as mongo.Db;
    docs = db.collection<Counter>('counters');
    tokens = db.collection<VersionTokenDoc>('counter_versions');
    versioned = new VersionedCollection(docs, tokens);
  });
  afterAll(async () => connection?.close());

  it('lets exactly one of many concurrent writers move a version', async () => {
    await docs.insertOne({ _id: 'race', version: 1, count: 0, writers: [] });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => versioned.advance({ _id: 'race', version: 2, count: 1, writers: [`w${i}`] })));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = `w${results.indexOf(true)}`;
    expect(await docs.findOne({ _id: 'race' })).toMatchObject({ version: 2, writers: [winner] });
  });

  it('loses no increment under concurrent read-modify-write loops', async () => {
    await docs.insertOne({ _id: 'counter', version: 1, count: 0, writers: [] });
    const increment = async () => {
      for (let attempt = 0; ; attempt++) {
        const current = attempt === 0 ? await versioned.get('counter') : await versioned.refresh('counter');
        if (await versioned.advance({ ...current!, count: current!.count + 1, version: current!.version + 1 })) return;
      }
    };
    await Promise.all(Array.from({ length: 10 }, () => (async () => {
      for (let n = 0; n < 8; n++) await increment();
    })()));
    const stored = await versioned.refresh('counter');
    expect(stored).toMatchObject({ count: 80, version: 81 });
    expect(await docs.findOne({ _id: 'counter' })).toMatchObject({ count: 80 });
  });

  it('repairs a document a crash left behind its token, and refuses a write from the stale state', async () => {
    await docs.insertOne({ _id: 'crash', version: 1, count: 5, writers: [] });
    // a writer inserted its token and died before writing the document
    await tokens.insertOne({ _id: 'crash@2', state: { _id: 'crash', version: 2, count: 6, writers: ['dead'] }, createdAt: new Date() });
    expect(await versioned.get('crash')).toMatchObject({ version: 1, count: 5 });
    expect(await versioned.advance({ _id: 'crash', version: 2, count: 99, writers: ['stale'] })).toBe(false);
    expect(await versioned.refresh('crash')).toMatchObject({ version: 2, count: 6, writers: ['dead'] });
    expect(await docs.findOne({ _id: 'crash' })).toMatchObject({ version: 2, count: 6 });
  });

  it('prunes old tokens only after bringing their document up to them', async () => {
    await docs.insertOne({ _id: 'old', version: 1, count: 0, writers: [] });
    const longAgo = new Date(Date.now() - 3_600_000);
    await tokens.insertOne({ _id: 'old@2', state: { _id: 'old', version: 2, count: 1, writers: [] }, createdAt: longAgo });
    await tokens.insertOne({ _id: 'old@3', state: { _id: 'old', version: 3, count: 2, writers: [] }, createdAt: longAgo });
    const pruned = await versioned.prune(new Date(Date.now() - 60_000));
    expect(pruned).toBeGreaterThanOrEqual(2);
    expect(await docs.findOne({ _id: 'old' })).toMatchObject({ version: 3, count: 2 });
    expect(await tokens.countDocuments({ _id: { $in: ['old@2', 'old@3'] } })).toBe(0);
  });
});
