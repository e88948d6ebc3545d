import type { GamerTask, StatEvent, TaskCompletedEvent } from '@gfts/contracts';
import mongoose, { mongo } from 'mongoose';
import { randomUUID } from 'node:crypto';
import { eventually, type Gamer } from '@gfts/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProgressResetService } from '../../src/progress-reset-service.ts';
import { AchievementStatsRepository } from '../../src/repository/achievement-stats-repository.ts';
import { GamerProgressRepository } from '../../src/repository/gamer-progress-repository.ts';
import { GamerTaskRepository } from '../../src/repository/gamer-task-repository.ts';
import { InventoryRepository } from '../../src/repository/inventory-repository.ts';
import { openStore, type Store } from '../../src/repository/store.ts';
import { CatalogCache } from '../../src/catalog-cache.ts';
import { TaskEvents } from '../../src/events.ts';
import { CatalogRepository } from '../../src/repository/catalog-repository.ts';
import { ProcessedEventRepository } from '../../src/repository/event-log-repository.ts';
import { normaliseEvent } from '../../src/domain/stat-event.ts';
import { StatBatchProcessor, type DeliveredEvent } from '../../src/stats/processor.ts';
import { Sweeper } from '../../src/sweep.ts';
import { startTasksStack, type TasksStack } from '../support/stack.ts';
import { byId, World } from '../support/world.ts';

// A gamer's progress document (docs/tasks.md "Progress documents") against what can go
// wrong around it: data from before it, and the crashes between the writes of an assign or
// a reset that leave it and the gamer tasks apart.
describe('gamer progress documents', () => {
  let stack: TasksStack;
  const completions: TaskCompletedEvent[] = [];
  beforeAll(async () => {
    stack = await startTasksStack();
    const nc = await stack.nats();
    nc.subscribe(stack.names.taskCompleted, {
      callback: (_e, msg) => {
        completions.push(msg.json<TaskCompletedEvent>());
      },
    });
    await nc.flush();
  });
  afterAll(async () => stack?.close());

  const progressOf = async (world: World, who: Gamer) => (await stack.db()).collection<{ _id: string; tasks: Record<string, { p: number; g: number; c: boolean }>; applied: string[]; pruned?: number }>('gamer_progress').findOne({ _id: `${world.app}:${who.id.toLowerCase()}` });

  async function assigned(world: World, who: Gamer, family = 'daily') {
    const response = await world.assign(who, family, 1);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body[0]!;
  }

  const quiet = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} } as never;
  /** A stat consumer replica's processor on `store` (the consumer around it left out: batches are handed to it). */
  async function processorOn(store: Store, faults?: ConstructorParameters<typeof StatBatchProcessor>[0]['faults']) {
    const gamerTasks = new GamerTaskRepository(store);
    return new StatBatchProcessor({
      gamerTasks, progress: new GamerProgressRepository(store, gamerTasks, 100), processed: new ProcessedEventRepository(store),
      unlockStats: new AchievementStatsRepository(store), catalog: new CatalogCache(new CatalogRepository(store), 0), events: new TaskEvents(await stack.nats(), stack.names, quiet), log: quiet, faults,
    });
  }
  /** `store` with its next bulk write to `collection` held until `release` (`atWrite`: it is waiting). */
  function holdingNextBulkWrite(store: Store, collection: 'gamerProgress' | 'gamerTasks' = 'gamerProgress') {
    let reached!: () => void;
    let release!: () => void;
    const atWrite = new Promise<void>((resolve) => (reached = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    let holding = true;
    const held = new Proxy(store[collection] as Store['gamerProgress'], {
      get(target, prop) {
        const value = Reflect.get(target, prop) as unknown;
        if (prop === 'bulkWrite' && holding) {
          holding = false;
          return (async (...args: Parameters<typeof target.bulkWrite>) => {
            reached();
            await gate;
            return target.bulkWrite(...args);
          }) as typeof target.bulkWrite;
        }
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    return { store: { ...store, [collection]: held }, atWrite, release };
  }
  const delivery = (event: StatEvent, redelivered = false): DeliveredEvent => ({ event, redelivered, requestId: event.eventId });
  /** Sixteen events applied to the gamer and recorded as processed: the next landed write makes the list one too long, and prunes it. */
  async function appliedAndRecorded(world: World, who: Gamer): Promise<string[]> {
    const db = await stack.db();
    const ids = Array.from({ length: 16 }, () => randomUUID());
    await db.collection<{ _id: string; processedAt: Date }>('processed_events').insertMany(ids.map((_id) => ({ _id, processedAt: new Date() })));
    await db.collection<{ _id: string }>('gamer_progress').updateOne({ _id: `${world.app}:${who.id.toLowerCase()}` }, { $push: { applied: { $each: ids } } } as never);
    return ids;
  }

  /**
   * A gamer with a lifetime kills task whose next landed write prunes (appliedAndRecorded),
   * and a store of the test's own, whose writes can be held as another replica's.
   */
  async function aboutToPrune(use: (world: World, ann: Gamer, task: { id: string }, store: Store) => Promise<void>): Promise<void> {
    const world = new World(stack);
    await world.createTask({ family: 'lifetime', targetValue: 1000, applicationStatsId: 'kills' });
    const ann = world.gamer();
    const task = await assigned(world, ann, 'lifetime');
    await appliedAndRecorded(world, ann);
    const connection = await mongoose.createConnection(stack.mongoUrl).asPromise();
    try {
      await use(world, ann, task, openStore(connection));
    } finally {
      await connection.close();
    }
  }

  it('takes over a gamer stored before progress documents: built from the gamer tasks on the first event, totals kept', async () => {
    const world = new World(stack);
    await world.createTask({ targetValue: 100 });
    const ann = world.gamer();
    const task = await assigned(world, ann);
    const db = await stack.db();
    // what a gamer stored by the code before looks like: progress on the gamer task, no document
    await db.collection<{ _id: string }>('gamer_progress').deleteOne({ _id: `${world.app}:${ann.id.toLowerCase()}` });
    await db.collection<{ _id: string }>('gamer_tasks').updateOne({ _id: task.id }, { $set: { progress: 7, games: 2 } });
    await world.play(ann, { wins: 5 });
    await eventually(async () => (await progressOf(world, ann))?.tasks[task.id]?.p === 12, 10_000);
    const listed = await world.waitFor(ann, byId(task.id), (t) => t.progress === 12);
    expect(listed.gamesPlayed).toBe(3);
  });

  it('a list adds the entries an assign left out (a crash between its two writes); events move the task from then on', async () => {
    const world = new World(stack);
    await world.createTask({ targetValue: 100 });
    await world.createTask({ name: 'Lifetime', family: 'lifetime', targetValue: 100 });
    const ann = world.gamer();
    const lifetime = await assigned(world, ann, 'lifetime');
    const daily = await assigned(world, ann);
    const db = await stack.db();
    await db.collection<{ _id: string }>('gamer_progress').updateOne({ _id: `${world.app}:${ann.id.toLowerCase()}` }, { $unset: { [`tasks.${daily.id}`]: '' } });
    expect((await progressOf(world, ann))?.tasks[daily.id]).toBeUndefined();
    expect((await world.tasks(ann)).map((t) => t.id).sort()).toEqual([daily.id, lifetime.id].sort());
    expect((await progressOf(world, ann))?.tasks[daily.id]).toEqual({ p: 0, g: 0, c: false });
    await world.play(ann, { wins: 4 });
    await world.waitFor(ann, byId(daily.id), (t) => t.progress === 4 && t.gamesPlayed === 1);
    await world.waitFor(ann, byId(lifetime.id), (t) => t.progress === 4);
  });

  it('an entry whose gamer task is gone (a crash inside a reset) completes nothing anyone holds: not announced, and dropped', async () => {
    const world = new World(stack);
    await world.createTask({ targetValue: 1 });
    const ann = world.gamer();
    const task = await assigned(world, ann);
    const db = await stack.db();
    await db.collection<{ _id: string }>('gamer_tasks').deleteOne({ _id: task.id });
    const event = await world.play(ann, { wins: 1 });
    await eventually(async () => (await progressOf(world, ann))?.tasks[task.id] === undefined, 10_000);
    // the event was processed (the entry went with its completion's copy), and nothing announced it
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(completions.filter((c) => c.gamerTaskId === task.id || c.eventId === event.eventId)).toEqual([]);
  });

  it('the consumer drops the entries of expired tasks with the gamer\'s next write', async () => {
    const world = new World(stack);
    await world.createTask({ targetValue: 100 });
    await world.createTask({ name: 'Lifetime', family: 'lifetime', targetValue: 100 });
    const ann = world.gamer();
    const daily = await assigned(world, ann);
    const lifetime = await assigned(world, ann, 'lifetime');
    const past = new Date(Date.now() - 1000);
    const db = await stack.db();
    // the daily task's period ends (the sweep has not run yet)
    await db.collection<{ _id: string }>('gamer_tasks').updateOne({ _id: daily.id }, { $set: { expiredAt: past } });
    await world.play(ann, { wins: 2 });
    await world.waitFor(ann, byId(lifetime.id), (t) => t.progress === 2);
    const doc = await progressOf(world, ann);
    expect(doc?.tasks[daily.id]).toBeUndefined();
    expect(doc?.tasks[lifetime.id]).toEqual({ p: 2, g: 1, c: false });
  });

  it('the sweep drops the entries of the expired tasks it deletes, page by page, for a gamer who sends no stats', async () => {
    const world = new World(stack);
    await world.createTask({ targetValue: 100 });
    await world.createTask({ name: 'Weekly', family: 'weekly', targetValue: 100 });
    await world.createTask({ name: 'Lifetime', family: 'lifetime', targetValue: 100 });
    const [ann, bob] = [world.gamer(), world.gamer()];
    const [annDaily, annWeekly, annLifetime] = [await assigned(world, ann), await assigned(world, ann, 'weekly'), await assigned(world, ann, 'lifetime')];
    const [bobDaily, bobWeekly] = [await assigned(world, bob), await assigned(world, bob, 'weekly')];
    const db = await stack.db();
    const past = new Date(Date.now() - 1000);
    const expired = [annDaily, annWeekly, bobDaily, bobWeekly].map((t) => t.id);
    await db.collection<{ _id: string }>('gamer_tasks').updateMany({ _id: { $in: expired } }, { $set: { expiredAt: past } });
    // a claim under way keeps its task, and so its entry
    await db.collection<{ _id: string }>('gamer_tasks').updateOne({ _id: bobWeekly.id }, { $set: { claimState: 'claiming', claimStartedAt: new Date() } });
    const connection = await mongoose.createConnection(stack.mongoUrl).asPromise();
    try {
      const store = openStore(connection);
      const gamerTasks = new GamerTaskRepository(store);
      const progress = new GamerProgressRepository(store, gamerTasks, 100);
      const quiet = { info: () => {}, warn: () => {} } as unknown as ConstructorParameters<typeof Sweeper>[0]['log'];
      const noop = { recover: async () => 0, publishLeftOver: async () => 0, republishUnfinished: async () => 0, prune: async () => 0 };
      const sweeper = new Sweeper({
        gamerTasks, progress, claims: noop as never, erasures: noop as never, processed: noop as never, keys: noop as never, log: quiet,
        // a page of one: the sweep steps until nothing expired is left
        settings: { intervalMs: 60_000, claimRecoveryAfterMs: 60_000, processedEventRetentionMs: 0, idempotencyKeyRetentionMs: 0, expiryPage: 1, erasureRepublishAfterMs: 60 * 60_000 },
      });
      await sweeper.runOnce();
    } finally {
      await connection.close();
    }
    expect(Object.keys((await progressOf(world, ann))?.tasks ?? {})).toEqual([annLifetime.id]);
    expect(Object.keys((await progressOf(world, bob))?.tasks ?? {})).toEqual([bobWeekly.id]);
    const left = await db.collection<{ _id: string }>('gamer_tasks').find({ _id: { $in: [...expired, annLifetime.id] } }).toArray();
    expect(left.map((t) => t._id).sort()).toEqual([annLifetime.id, bobWeekly.id].sort());
  });

  it('a catalog the store cannot serve now fails the stat batch as a whole; one that cannot be read at all fails its events only', async () => {
    const world = new World(stack);
    const task = await world.createTask({ family: 'lifetime', targetValue: 100, applicationStatsId: 'score' });
    const ann = world.gamer();
    await assigned(world, ann, 'lifetime');
    const connection = await mongoose.createConnection(stack.mongoUrl).asPromise();
    try {
      const store = openStore(connection);
      const gamerTasks = new GamerTaskRepository(store);
      const catalogs = new CatalogRepository(store);
      // what the catalog's next read throws, once
      let failure: Error | undefined = new mongo.MongoNetworkError('catalog store away');
      const flaky = new Proxy(catalogs, {
        get: (target, prop, receiver) => (prop === 'listLive' && failure ? async () => { const thrown = failure; failure = undefined; throw thrown; } : Reflect.get(target, prop, receiver)),
      });
      const quiet = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} } as never;
      const processor = new StatBatchProcessor({
        gamerTasks, progress: new GamerProgressRepository(store, gamerTasks, 100), processed: new ProcessedEventRepository(store),
        unlockStats: new AchievementStatsRepository(store), catalog: new CatalogCache(flaky, 0), events: new TaskEvents(await stack.nats(), stack.names, quiet), log: quiet,
      });
      const delivered = { event: world.event(ann, { score: 3 }), redelivered: false, requestId: 'r' };
      // the consumer tries a batch that throws again without using its events' deliveries
      await expect(processor.process([delivered])).rejects.toThrow('catalog store away');
      // a document the code cannot read would fail the same way every time: the events fail (and end as dead letters)
      failure = new TypeError("Cannot read properties of undefined (reading 'map')");
      expect(await processor.process([delivered])).toEqual([{ kind: 'failed', error: expect.any(TypeError) }]);
      expect(await processor.process([delivered])).toEqual([{ kind: 'processed' }]);
    } finally {
      await connection.close();
    }
    await world.waitFor(ann, byId((await world.tasks(ann)).find((t) => t.task.id === task.id)!.id), (t) => t.progress === 3);
  });

  it('an achievement tracked again after a reset moves by the catalog\'s current target, not by a definition remembered from before', async () => {
    const world = new World(stack);
    const achievement = await world.createTask({ name: 'Winner', family: 'lifetime', isAchievement: true, targetValue: 5 });
    const ann = world.gamer();
    await world.play(ann, { wins: 1 });
    await world.waitFor(ann, (list) => list.find((t) => t.task.id === achievement.id), (t) => t.progress === 1, 'achievements');
    const edit = await stack.api('PATCH', `/api/v1/${world.app}/tasks/${achievement.id}`, { headers: world.admin.auth, body: { targetValue: 2 } });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    const reset = await stack.api('POST', `/api/v1/${world.app}/gamers/${ann.id}/progress/reset`, { headers: world.admin.auth, body: { scope: 'achievements' } });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    // the record comes back with its old derived id and the catalog's target of now, which
    // the consumer must read again when it next moves it
    await world.play(ann, { wins: 1 });
    await world.waitFor(ann, (list) => list.find((t) => t.task.id === achievement.id), (t) => t.progress === 1, 'achievements');
    await world.play(ann, { wins: 1 });
    const done = await world.waitFor(ann, (list) => list.find((t) => t.task.id === achievement.id), (t) => t.completed, 'achievements');
    expect(done).toMatchObject({ progress: 2, completed: true, task: { targetValue: 2 } });
  });

  it('a task assigned while a reset runs keeps its entry, and its games count', async () => {
    const world = new World(stack);
    await world.createTask({ targetValue: 100 });
    const ann = world.gamer();
    const owner = { applicationId: world.app, gamerId: ann.id.toLowerCase() };
    const connection = await mongoose.createConnection(stack.mongoUrl).asPromise();
    try {
      const store = openStore(connection);
      const gamerTasks = new GamerTaskRepository(store);
      const progress = new GamerProgressRepository(store, gamerTasks, 100);
      // the assign lands after the reset read which tasks the gamer holds
      let assignedMeanwhile: GamerTask | undefined;
      const heldThenAssigned = new Proxy(gamerTasks, {
        get(target, prop, receiver) {
          if (prop !== 'activeOf') return Reflect.get(target, prop, receiver) as unknown;
          return async (...args: Parameters<GamerTaskRepository['activeOf']>) => {
            const held = await target.activeOf(...args);
            if (!assignedMeanwhile) assignedMeanwhile = await assigned(world, ann);
            return held;
          };
        },
      });
      const resets = new ProgressResetService({ gamerTasks: heldThenAssigned, progress, inventory: new InventoryRepository(store), unlockStats: new AchievementStatsRepository(store) });
      await resets.reset(owner.applicationId, owner.gamerId, 'tasks');
      expect(assignedMeanwhile).toBeDefined();
      expect((await progressOf(world, ann))?.tasks[assignedMeanwhile!.id]).toEqual({ p: 0, g: 0, c: false });
      await world.play(ann, { wins: 4 });
      await world.waitFor(ann, byId(assignedMeanwhile!.id), (t) => t.progress === 4);
    } finally {
      await connection.close();
    }
  });

  it('an achievement entry left without its gamer task is replaced when the achievement is tracked again', async () => {
    const world = new World(stack);
    const achievement = await world.createTask({ name: 'Winner', family: 'lifetime', isAchievement: true, targetValue: 50 });
    const ann = world.gamer();
    // a read tracks it (gamer task and entry), so the consumer has never seen it
    const tracked = (await world.achievements(ann)).find((t) => t.task.id === achievement.id)!;
    const db = await stack.db();
    await db.collection<{ _id: string }>('gamer_tasks').deleteOne({ _id: tracked.id });
    // the event finds the entry without a gamer task and tracks the achievement again, same id
    await world.play(ann, { wins: 3 });
    await eventually(async () => (await progressOf(world, ann))?.tasks[tracked.id]?.p === 3, 10_000);
    await world.waitFor(ann, (list) => list.find((t) => t.id === tracked.id), (t) => t.progress === 3, 'achievements');
  });

  it('an achievement whose gamer task is there without its entry moves by the task\'s target, not by the catalog edited since', async () => {
    const world = new World(stack);
    const achievement = await world.createTask({ name: 'Scorer', family: 'lifetime', isAchievement: true, targetValue: 10, applicationStatsId: 'score' });
    const ann = world.gamer();
    // a read tracks it; its entry is then lost, as when a replica stops between the gamer
    // task's insert and the progress write
    const tracked = (await world.achievements(ann)).find((t) => t.task.id === achievement.id)!;
    await (await stack.db()).collection<{ _id: string }>('gamer_progress').updateOne({ _id: `${world.app}:${ann.id.toLowerCase()}` }, { $unset: { [`tasks.${tracked.id}`]: '' } });
    const edit = await stack.api('PATCH', `/api/v1/${world.app}/tasks/${achievement.id}`, { headers: world.admin.auth, body: { targetValue: 3 } });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    await world.play(ann, { score: 3 });
    await eventually(async () => (await progressOf(world, ann))?.tasks[tracked.id]?.p === 3, 10_000);
    expect((await progressOf(world, ann))?.tasks[tracked.id]?.c).toBe(false);
    const listed = (await world.achievements(ann)).find((t) => t.id === tracked.id);
    expect(listed).toMatchObject({ progress: 3, completed: false, task: { targetValue: 10 } });
    expect(completions.filter((c) => c.gamerTaskId === tracked.id)).toEqual([]);
  });

  it('a composite achievement that lacks one child\'s entry gets it on that child\'s stat, its other progress kept', async () => {
    const world = new World(stack);
    const composite = await world.createTask({
      name: 'Allrounder', family: 'lifetime', isAchievement: true,
      children: [{ name: 'Kills', targetValue: 10, numberOfGames: 0, applicationStatsId: 'kills' }, { name: 'Wins', targetValue: 10, numberOfGames: 0, applicationStatsId: 'wins' }],
    });
    const ann = world.gamer();
    await world.play(ann, { kills: 2 });
    const parent = (await world.achievements(ann)).find((t) => t.task.id === composite.id)!;
    const [kills, wins] = parent.childTasks;
    await eventually(async () => (await progressOf(world, ann))?.tasks[kills!.id]?.p === 2, 10_000);
    // as a partly applied write could leave it: the parent's and one child's entries, not the other's
    await (await stack.db()).collection<{ _id: string }>('gamer_progress').updateOne({ _id: `${world.app}:${ann.id.toLowerCase()}` }, { $unset: { [`tasks.${wins!.id}`]: '' } });
    await world.play(ann, { wins: 3, kills: 1 });
    await eventually(async () => (await progressOf(world, ann))?.tasks[wins!.id]?.p === 3, 10_000);
    expect((await progressOf(world, ann))?.tasks[kills!.id]?.p).toBe(3);
  });

  it('a gamer task completed before progress documents can be claimed', async () => {
    const world = new World(stack);
    await world.createTask({ targetValue: 1 });
    const ann = world.gamer();
    const task = await assigned(world, ann);
    const db = await stack.db();
    await db.collection<{ _id: string }>('gamer_progress').deleteOne({ _id: `${world.app}:${ann.id.toLowerCase()}` });
    await db.collection<{ _id: string }>('gamer_tasks').updateOne({ _id: task.id }, { $set: { progress: 1, games: 1, completed: true, completedAt: new Date(), completedByEventId: 'old' } });
    const claim = await stack.api('POST', `/api/v1/tasks/${task.id}/claim`, { headers: ann.auth });
    expect(claim.status, JSON.stringify(claim.body)).toBe(200);
  });

  it('counts an event once when another replica applies it, records it and prunes it while this one is between its read and its write', async () => {
    await aboutToPrune(async (world, ann, task, store) => {
      // one event delivered to two replicas at once (published again under another message id, or redelivered after the ack wait)
      const event = normaliseEvent(world.event(ann, { kills: 5 }));
      const late = holdingNextBulkWrite(store);
      const lateOutcome = (await processorOn(late.store)).process([delivery(event)]);
      // the late replica has read the document and the processed records: the event is in neither
      await late.atWrite;
      expect(await (await processorOn(store)).process([delivery(event)])).toEqual([{ kind: 'processed' }]);
      // the other applied it, recorded it as processed, and pruned it from the document
      expect((await progressOf(world, ann))?.applied).toEqual([]);
      late.release();
      // the late write is refused, and comes back as stale, to be planned again
      expect(await lateOutcome).toEqual([{ kind: 'stale' }]);
      expect((await progressOf(world, ann))?.tasks[task.id]).toEqual({ p: 5, g: 1, c: false });
      // and planned again, it finds the event processed
      expect(await (await processorOn(store)).process([delivery(event, true)])).toEqual([{ kind: 'duplicate' }]);
      expect((await progressOf(world, ann))?.tasks[task.id]).toEqual({ p: 5, g: 1, c: false });
    });
  });

  it('a write planned before one prune of other events lands (a replica\'s previous batch settling); before two, it is planned again', async () => {
    await aboutToPrune(async (world, ann, task, store) => {
      const mine = normaliseEvent(world.event(ann, { kills: 5 }));
      const late = holdingNextBulkWrite(store);
      const lateOutcome = (await processorOn(late.store)).process([delivery(mine)]);
      await late.atWrite;
      expect(await (await processorOn(store)).process([delivery(normaliseEvent(world.event(ann, { kills: 3 })))])).toEqual([{ kind: 'processed' }]);
      expect((await progressOf(world, ann))?.pruned).toBe(1);
      late.release();
      expect(await lateOutcome).toEqual([{ kind: 'processed' }]);
      expect((await progressOf(world, ann))?.tasks[task.id]).toEqual({ p: 8, g: 2, c: false });

      // two prunes while a write waits: the first one's ids are not in the document any more, so the write cannot tell they are not its own
      const again = normaliseEvent(world.event(ann, { kills: 7 }));
      const later = holdingNextBulkWrite(store);
      const laterOutcome = (await processorOn(later.store)).process([delivery(again)]);
      await later.atWrite;
      const read = (await progressOf(world, ann))?.pruned;
      for (const kills of [1, 2]) {
        await appliedAndRecorded(world, ann);
        expect(await (await processorOn(store)).process([delivery(normaliseEvent(world.event(ann, { kills })))])).toEqual([{ kind: 'processed' }]);
      }
      expect((await progressOf(world, ann))?.pruned).toBe(read! + 2);
      later.release();
      expect(await laterOutcome).toEqual([{ kind: 'stale' }]);
      expect(await (await processorOn(store)).process([delivery(again, true)])).toEqual([{ kind: 'processed' }]);
      expect((await progressOf(world, ann))?.tasks[task.id]).toEqual({ p: 18, g: 5, c: false });
    });
  });

  it('a refused write is not taken for landed because another replica applied the same event: its other events come back', async () => {
    const world = new World(stack);
    await world.createTask({ family: 'lifetime', targetValue: 10, numberOfGames: 3, applicationStatsId: 'kills' });
    const ann = world.gamer();
    const task = await assigned(world, ann, 'lifetime');
    const connection = await mongoose.createConnection(stack.mongoUrl).asPromise();
    try {
      const store = openStore(connection);
      const replica = await processorOn(store);
      for (const kills of [4, 5]) expect(await replica.process([delivery(normaliseEvent(world.event(ann, { kills })))])).toEqual([{ kind: 'processed' }]);
      expect((await progressOf(world, ann))?.tasks[task.id]).toEqual({ p: 9, g: 2, c: false });
      // one event delivered to two replicas at once, each with other events of the gamer around it
      const shared = normaliseEvent(world.event(ann, { kills: 1 }));
      const after = normaliseEvent(world.event(ann, { kills: 3 }));
      const late = holdingNextBulkWrite(store);
      // planned from 9/2: the shared event completes the task, the one after it then moves nothing
      const lateOutcome = (await processorOn(late.store)).process([delivery(shared), delivery(after)]);
      await late.atWrite;
      // the other replica: a game of 0 ends the window short (0/0), then the shared one is its first game
      expect(await replica.process([delivery(normaliseEvent(world.event(ann, { kills: 0 }))), delivery(shared)])).toEqual([{ kind: 'processed' }, { kind: 'processed' }]);
      expect((await progressOf(world, ann))?.tasks[task.id]).toEqual({ p: 1, g: 1, c: false });
      late.release();
      // the late write is refused; the document holding the shared event says nothing of whose write put it there
      expect(await lateOutcome).toEqual([{ kind: 'stale' }, { kind: 'stale' }]);
      expect(await replica.process([delivery(shared, true), delivery(after, true)])).toEqual([{ kind: 'duplicate' }, { kind: 'processed' }]);
      expect((await progressOf(world, ann))?.tasks[task.id]).toEqual({ p: 4, g: 2, c: false });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(completions.filter((c) => c.eventId === shared.eventId || c.eventId === after.eventId)).toEqual([]);
    } finally {
      await connection.close();
    }
  });

  it('a second copy of an event in one batch ends as its first: stale or failed with it, a duplicate only of one processed', async () => {
    const world = new World(stack);
    await world.createTask({ family: 'lifetime', targetValue: 1000, applicationStatsId: 'kills' });
    const ann = world.gamer();
    const task = await assigned(world, ann, 'lifetime');
    const event = normaliseEvent(world.event(ann, { kills: 5 }));
    const connection = await mongoose.createConnection(stack.mongoUrl).asPromise();
    try {
      const store = openStore(connection);
      // two deliveries of one event in a batch (redelivered after the ack wait to the replica still holding the first)
      expect(await (await processorOn(store, { staleWrite: () => true })).process([delivery(event), delivery(event, true)])).toEqual([{ kind: 'stale' }, { kind: 'stale' }]);
      const failing = await processorOn(store, { afterApply: () => Promise.reject(new Error('injected')) });
      expect((await failing.process([delivery(event), delivery(event, true)])).map((o) => o.kind)).toEqual(['failed', 'failed']);
      expect(await (await processorOn(store)).process([delivery(event, true), delivery(event, true)])).toEqual([{ kind: 'processed' }, { kind: 'duplicate' }]);
      expect((await progressOf(world, ann))?.tasks[task.id]).toEqual({ p: 5, g: 1, c: false });
    } finally {
      await connection.close();
    }
  });

  it('a first delivery of an event another delivery applied unannounced announces what it completed', async () => {
    const world = new World(stack);
    await world.createTask({ family: 'lifetime', targetValue: 1, applicationStatsId: 'wins' });
    const ann = world.gamer();
    const task = await assigned(world, ann, 'lifetime');
    const win = normaliseEvent(world.event(ann, { wins: 1 }));
    // another copy of the event (published twice) completed the task, and its write was
    // taken for stale (its token replaced before the read-back): announced by nobody yet
    const db = await stack.db();
    await db.collection<{ _id: string }>('gamer_progress').updateOne(
      { _id: `${world.app}:${ann.id.toLowerCase()}` },
      { $set: { [`tasks.${task.id}`]: { p: 1, g: 1, c: true, at: new Date(), by: win.eventId } }, $push: { applied: win.eventId } } as never,
    );
    const connection = await mongoose.createConnection(stack.mongoUrl).asPromise();
    try {
      expect(await (await processorOn(openStore(connection))).process([delivery(win)])).toEqual([{ kind: 'processed' }]);
      await eventually(async () => (completions.some((c) => c.eventId === win.eventId) ? true : undefined), 5_000, 20);
    } finally {
      await connection.close();
    }
  });

  /** A gamer whose achievement entry (on `kills`) is left as `entry` without its gamer task, as a crash inside a reset leaves it. */
  async function orphaned(world: World, who: Gamer, entry: { p: number; g: number; c: boolean }) {
    const achievement = await world.createTask({ name: 'Killer', family: 'lifetime', isAchievement: true, targetValue: 100, applicationStatsId: 'kills' });
    const tracked = (await world.achievements(who)).find((t) => t.task.id === achievement.id)!;
    const db = await stack.db();
    await db.collection<{ _id: string }>('gamer_tasks').deleteOne({ _id: tracked.id });
    await db.collection<{ _id: string }>('gamer_progress').updateOne({ _id: `${world.app}:${who.id.toLowerCase()}` }, { $set: { [`tasks.${tracked.id}`]: entry } });
    return tracked.id;
  }

  /**
   * Two replicas track the orphaned achievement again at once: both read it as an orphan, and
   * the second's writes (its gamer task, then its progress) wait until the first's landed.
   */
  async function bothTrackAgain(world: World, who: Gamer, first: number, second: number) {
    const connection = await mongoose.createConnection(stack.mongoUrl).asPromise();
    try {
      const store = openStore(connection);
      const [early, late] = [normaliseEvent(world.event(who, { kills: first })), normaliseEvent(world.event(who, { kills: second }))];
      const held = holdingNextBulkWrite(store, 'gamerTasks');
      const lateOutcome = (await processorOn(held.store)).process([delivery(late)]);
      await held.atWrite;
      expect(await (await processorOn(store)).process([delivery(early)])).toEqual([{ kind: 'processed' }]);
      held.release();
      // the late replacement is refused: its events come back, and count on the entry the first one wrote
      expect(await lateOutcome).toEqual([{ kind: 'stale' }]);
      expect(await (await processorOn(store)).process([delivery(late, true)])).toEqual([{ kind: 'processed' }]);
    } finally {
      await connection.close();
    }
  }

  it('two replicas tracking one orphaned achievement again count both events', async () => {
    const world = new World(stack);
    const ann = world.gamer();
    const id = await orphaned(world, ann, { p: 40, g: 4, c: false });
    await bothTrackAgain(world, ann, 5, 7);
    expect((await progressOf(world, ann))?.tasks[id]).toEqual({ p: 12, g: 2, c: false });
  });

  it('two replicas tracking one orphaned achievement again count both events when the first leaves the entry in the orphan\'s state', async () => {
    const world = new World(stack);
    const ann = world.gamer();
    // the first replica's replacement (one game of 3) is the orphan's state again: only the epoch tells them apart
    const id = await orphaned(world, ann, { p: 3, g: 1, c: false });
    await bothTrackAgain(world, ann, 3, 7);
    expect((await progressOf(world, ann))?.tasks[id]).toEqual({ p: 10, g: 2, c: false });
  });

  it('a write that drops an orphan another replica tracked again meanwhile is stale, and the event that replica applied stays', async () => {
    const world = new World(stack);
    await world.createTask({ family: 'lifetime', targetValue: 1_000, applicationStatsId: 'score' });
    const ann = world.gamer();
    await assigned(world, ann, 'lifetime');
    const id = await orphaned(world, ann, { p: 40, g: 4, c: false });
    const connection = await mongoose.createConnection(stack.mongoUrl).asPromise();
    try {
      const store = openStore(connection);
      // this replica's event does not carry the orphan's stat: its write drops the entry ...
      const dropping = normaliseEvent(world.event(ann, { score: 1 }));
      const held = holdingNextBulkWrite(store, 'gamerProgress');
      const droppingOutcome = (await processorOn(held.store)).process([delivery(dropping)]);
      await held.atWrite;
      // ... while another replica tracks the achievement again with an event of its stat
      expect(await (await processorOn(store)).process([delivery(normaliseEvent(world.event(ann, { kills: 5 })))])).toEqual([{ kind: 'processed' }]);
      expect((await progressOf(world, ann))?.tasks[id]).toEqual({ p: 5, g: 1, c: false });
      held.release();
      // the drop is refused; its event comes back and is applied beside the tracked entry
      expect(await droppingOutcome).toEqual([{ kind: 'stale' }]);
      expect(await (await processorOn(store)).process([delivery(dropping, true)])).toEqual([{ kind: 'processed' }]);
      expect((await progressOf(world, ann))?.tasks[id]).toEqual({ p: 5, g: 1, c: false });
    } finally {
      await connection.close();
    }
  });

  it('an orphan another replica moved meanwhile, by the definition it still holds, is not replaced over its move', async () => {
    const world = new World(stack);
    const achievement = await world.createTask({ name: 'Killer', family: 'lifetime', isAchievement: true, targetValue: 100, applicationStatsId: 'kills' });
    const ann = world.gamer();
    const connection = await mongoose.createConnection(stack.mongoUrl).asPromise();
    try {
      const store = openStore(connection);
      // this replica tracks the achievement, and keeps its definition
      const holder = await processorOn(store);
      expect(await holder.process([delivery(normaliseEvent(world.event(ann, { kills: 40 })))])).toEqual([{ kind: 'processed' }]);
      const id = (await world.achievements(ann)).find((t) => t.task.id === achievement.id)!.id;
      await (await stack.db()).collection<{ _id: string }>('gamer_tasks').deleteOne({ _id: id });
      const late = normaliseEvent(world.event(ann, { kills: 7 }));
      const held = holdingNextBulkWrite(store, 'gamerTasks');
      const lateOutcome = (await processorOn(held.store)).process([delivery(late)]);
      await held.atWrite;
      // the orphan moves, as a live entry, for the replica that still holds its definition (docs/tasks.md "Reset")
      expect(await holder.process([delivery(normaliseEvent(world.event(ann, { kills: 5 })))])).toEqual([{ kind: 'processed' }]);
      expect((await progressOf(world, ann))?.tasks[id]).toEqual({ p: 45, g: 2, c: false });
      held.release();
      expect(await lateOutcome).toEqual([{ kind: 'stale' }]);
      expect(await (await processorOn(store)).process([delivery(late, true)])).toEqual([{ kind: 'processed' }]);
      expect((await progressOf(world, ann))?.tasks[id]).toEqual({ p: 52, g: 3, c: false });
    } finally {
      await connection.close();
    }
  });
});
