import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { databaseUrl, infra, natsPrefix } from '../../src/index.ts';

// The harness itself: the containers answer, and the features the services rely on exist
// on whichever server the image gives (MongoDB 7+ or FerretDB v1).
describe('test infrastructure', () => {
  it('serves a MongoDB-compatible database with unique indexes and atomic upserts', async () => {
    const conn = await mongoose.createConnection(databaseUrl(infra().mongoUrl, 'infra')).asPromise();
    try {
      const items = conn.db!.collection('items');
      await items.createIndex({ key: 1 }, { unique: true });
      await items.insertOne({ key: 'a', n: 1 });
      await expect(items.insertOne({ key: 'a', n: 2 })).rejects.toMatchObject({ code: 11000 });
      const updated = await items.findOneAndUpdate({ key: 'b' }, { $inc: { n: 1 }, $setOnInsert: { created: true } }, { upsert: true, returnDocument: 'after' });
      expect(updated).toMatchObject({ key: 'b', n: 1, created: true });
    } finally {
      await conn.dropDatabase();
      await conn.close();
    }
  });

  it('serves NATS with JetStream', async () => {
    const nc = await connect({ servers: infra().natsUrl });
    try {
      const jsm = await jetstreamManager(nc);
      const name = `${natsPrefix().toUpperCase()}_INFRA`;
      const info = await jsm.streams.add({ name, subjects: [`${name}.>`] });
      expect(info.config.name).toBe(name);
      await jsm.streams.delete(name);
    } finally {
      await nc.close();
    }
  });
});
