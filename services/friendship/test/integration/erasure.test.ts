import { natsNames, type GamerErasureCompletedEvent } from '@gfts/contracts';
import { eventually } from '@gfts/testkit';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { randomUUID } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '@gfts/platform';
import { pendingRequest } from '../../src/domain/relation-rules.ts';
import { profileCache } from '../../src/profile-cache.ts';
import { blockRepository } from '../../src/repository/blocks.ts';
import { friendListRepository } from '../../src/repository/friend-lists.ts';
import { gamerErasure } from '../../src/repository/gamer-erasure.ts';
import { gamerDirectory } from '../../src/repository/gamers.ts';
import { createModels } from '../../src/repository/models.ts';
import { relationRepository } from '../../src/repository/relations.ts';
import { startFriendshipStack, type FriendshipStack } from '../support/stack.ts';
import { world } from '../support/world.ts';

/*
 * The friendship service's part of gamer erasure through its own `gamer.erased` consumer
 * (docs/gamer-erasure.md): besides the store (friend-lists.test.ts), the gamer's record in
 * the announced-presence bucket goes, and nobody else's.
 */
describe('gamer erasure in the friendship service', () => {
  let stack: FriendshipStack;
  let w: ReturnType<typeof world>;
  let db: Connection;
  let nc: NatsConnection;
  let announced: KV;
  const completed: GamerErasureCompletedEvent[] = [];

  beforeAll(async () => {
    stack = await startFriendshipStack();
    w = world(stack);
    db = await mongoose.createConnection(stack.databaseUrl).asPromise();
    nc = await connect({ servers: stack.natsUrl });
    const names = natsNames(stack.natsPrefix);
    nc.subscribe(names.gamerErasureCompleted, { callback: (error, msg) => void (error || completed.push(msg.json<GamerErasureCompletedEvent>())) });
    await nc.flush();
    // the service creates the bucket at start, without holding its start up for it
    announced = await eventually(() => new Kvm(jetstream(nc)).open(names.presenceAnnouncedBucket), 10_000);
  });
  afterAll(async () => {
    await nc?.drain();
    await db?.close();
    await stack?.close();
  });

  /** Publishes `gamer.erased` as the tasks service does and waits for this service's report. */
  async function erase(applicationId: string, gamerId: string, extra: Record<string, unknown> = {}): Promise<void> {
    const jobId = randomUUID();
    const event = { jobId, applicationId, gamerId, requestedAt: new Date().toISOString(), ...extra };
    await jetstream(nc).publish(natsNames(stack.natsPrefix).gamerErased, JSON.stringify(event), { msgID: jobId });
    await eventually(async () => completed.some((c) => c.jobId === jobId && c.service === 'friendship'), 20_000);
  }

  it('removes the gamer\'s announced presence and keeps everyone else\'s', async () => {
    const [ann, bob] = await w.gamers(2);
    const record = (status: string) => JSON.stringify({ status, lastSeenAt: new Date().toISOString(), at: new Date().toISOString() });
    await announced.put(`${ann!.app}.${ann!.id}`, record('offline'));
    await announced.put(`${bob!.app}.${bob!.id}`, record('online'));
    // the same gamer id in another application is another gamer
    const elsewhere = randomUUID();
    await announced.put(`${elsewhere}.${ann!.id}`, record('online'));

    await erase(ann!.app, ann!.id);
    expect(await announced.get(`${ann!.app}.${ann!.id}`)).toMatchObject({ operation: 'PURGE' });
    expect((await announced.get(`${bob!.app}.${bob!.id}`))?.json()).toMatchObject({ status: 'online' });
    expect((await announced.get(`${elsewhere}.${ann!.id}`))?.json()).toMatchObject({ status: 'online' });
    expect(await db.collection('gamers').countDocuments({ applicationId: ann!.app, gamerId: ann!.id })).toBe(0);

    // again (a redelivery, a second job): nothing left to remove, and it still completes
    await erase(ann!.app, ann!.id);
    expect(await announced.get(`${ann!.app}.${ann!.id}`)).toMatchObject({ operation: 'PURGE' });
  });

  it('erases on an event of a newer producer, a field it does not know included', async () => {
    const [ann, bob] = await w.gamers(2);
    await w.befriend(ann!, bob!);
    // terminated as "of an unknown shape" until 2026-11-28: the erasure never ran here
    await erase(ann!.app, ann!.id, { reason: 'gdpr-request', schemaVersion: 2 });
    expect((await w.friends(bob!)).body).toEqual([]);
  });

  it('makes its gamer.erased consumer again when it was removed, and erases what was asked since', async () => {
    const [ann, bob] = await w.gamers(2);
    await w.befriend(ann!, bob!);
    // an operator's `nats consumer rm` (or a JetStream store lost)
    const names = natsNames(stack.natsPrefix);
    const jsm = await jetstreamManager(nc);
    expect(await jsm.consumers.delete(names.gamersStream, names.gamerErasedConsumer('friendship'))).toBe(true);
    // before: the consumer was asked for every second until a restart; the erasure never ran
    await erase(ann!.app, ann!.id);
    expect((await w.friends(bob!)).body).toEqual([]);
  });

  it('registers a gamer who plays on after their erasure at their next call, not minutes later', async () => {
    const [ann, bob] = await w.gamers(2);
    // Ann's calls are registered, and the registration cached; Bob finds her
    expect((await w.search(bob!, ann!.name)).body.map((g) => g.id)).toEqual([ann!.id]);
    await erase(ann!.app, ann!.id);
    expect((await w.search(bob!, ann!.name)).body).toEqual([]);
    // every replica drops what it cached of her once the erasure is reported, so her next call registers her again
    await eventually(async () => {
      expect((await w.friends(ann!)).status).toBe(200);
      return (await w.search(bob!, ann!.name)).body.some((g) => g.id === ann!.id);
    }, 5_000);
  });

  it('leaves no request or block the erased gamer was making while the erasure ran', async () => {
    const models = await createModels(db);
    const lists = friendListRepository(models.friendLists, models.relations, { maxAgeMs: 3600_000 });
    const profiles = profileCache(100, 0);
    const real = gamerDirectory(models.gamers, profiles);
    const erasure = gamerErasure(models, lists, profiles);
    // X's call has written its request (or block) when X's erasure runs, before the call's check
    let duringCheck: (() => Promise<unknown>) | undefined;
    const directory = { ...real, bothExist: async (...args: Parameters<typeof real.bothExist>) => {
      const run = duringCheck;
      duringCheck = undefined;
      await run?.();
      return real.bothExist(...args);
    } };
    const relations = relationRepository(models.relations, models.blocks, lists, directory);
    const blocks = blockRepository(models.blocks, models.relations, lists, directory);
    for (const kind of ['request', 'block'] as const) {
      const [x, y] = await w.gamers(2);
      duringCheck = () => erasure.erase(x!.app, x!.id);
      const outcome = kind === 'request'
        ? await relations.request(pendingRequest(x!.app, x!.id, y!.id, uuidv7(), new Date()), 100)
        : await blocks.block(x!.app, x!.id, y!.id, new Date(), 100);
      expect(duringCheck).toBeUndefined();
      expect({ kind, outcome: outcome.kind }).toEqual({ kind, outcome: 'unknownTarget' });
      // before the fix the request (or block) stood, naming the erased gamer, and was announced
      expect(await db.collection('relations').countDocuments({ applicationId: x!.app, members: x!.id })).toBe(0);
      expect(await db.collection('blocks').countDocuments({ applicationId: x!.app, blocker: x!.id })).toBe(0);
      expect((await w.incoming(y!)).body).toEqual([]);
    }
    // X is erased while X's call is under way, before it writes its request; Y accepts the
    // request before X's call withdraws it
    const [x, y] = await w.gamers(2);
    await erasure.erase(x!.app, x!.id);
    const id = uuidv7();
    duringCheck = async () => expect((await relations.accept(x!.app, id, y!.id, new Date(), 100)).kind).toBe('accepted');
    const outcome = await relations.request(pendingRequest(x!.app, x!.id, y!.id, id, new Date()), 100);
    // the race ran: Y's accept came inside X's check
    expect(duringCheck).toBeUndefined();
    expect(outcome.kind).toBe('unknownTarget');
    // before the fix the friendship stood, naming the erased gamer, in Y's list too
    expect(await db.collection('relations').countDocuments({ applicationId: x!.app, members: x!.id })).toBe(0);
    expect((await w.friends(y!)).body).toEqual([]);
    expect(await db.collection('friendlists').countDocuments({ _id: `${x!.app}:${x!.id}` as never })).toBe(0);
  });
});
