import type { AchievementStat, DeadLetter, ErasureJob, GamerTaskWithChildren, ProgressResetResult, StatDeadLetter } from '@gfts/contracts';
import { eventually, gamer, type Gamer } from '@gfts/testkit';
import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErasureService } from '../../src/erasure/erasure-service.ts';
import { ProgressResetService } from '../../src/progress-reset-service.ts';
import { tasksEraser } from '../../src/erasure/erase-gamer.ts';
import { AchievementStatsRepository } from '../../src/repository/achievement-stats-repository.ts';
import { ErasureJobRepository } from '../../src/repository/erasure-job-repository.ts';
import { IdempotencyRepository } from '../../src/repository/event-log-repository.ts';
import { GamerProgressRepository } from '../../src/repository/gamer-progress-repository.ts';
import { GamerTaskRepository } from '../../src/repository/gamer-task-repository.ts';
import { InventoryRepository } from '../../src/repository/inventory-repository.ts';
import { openStore } from '../../src/repository/store.ts';
import { startFullStack, type FullStack } from '../support/full-stack.ts';
import { byTask, World } from '../support/world.ts';

const FRIENDSHIP = '/api/v1/friendship';

describe('gamer admin: progress reset and erasure', () => {
  let stack: FullStack;
  beforeAll(async () => {
    stack = await startFullStack();
  });
  afterAll(async () => stack?.close());

  const world = () => new World(stack.asTasksStack());
  const reset = (w: World, gamerId: string, body: unknown, who: Gamer = w.admin) =>
    stack.api<ProgressResetResult>('POST', `/api/v1/${w.app}/gamers/${gamerId}/progress/reset`, { headers: who.auth, body });
  const erase = (w: World, gamerId: string, who: Gamer = w.admin) => stack.api<ErasureJob>('DELETE', `/api/v1/${w.app}/gamers/${gamerId}`, { headers: who.auth });
  const job = (w: World, jobId: string, who: Gamer = w.admin) => stack.api<ErasureJob>('GET', `/api/v1/${w.app}/gamers/erasures/${jobId}`, { headers: who.auth });
  const unlocks = async (w: World) => new Map((await stack.api<AchievementStat[]>('GET', `/api/v1/${w.app}/achievements/stats`, { headers: w.admin.auth })).body.map((s) => [s.name, [s.completedCount, s.trackedCount]]));
  const claim = (who: Gamer, gamerTaskId: string) => stack.api('POST', `/api/v1/tasks/${gamerTaskId}/claim`, { headers: who.auth });
  const find = (list: GamerTaskWithChildren[], taskId: string) => list.find((t) => t.task.id === taskId);

  /**
   * A gamer with: a claimed daily task (its reward in the inventory), a daily task in progress,
   * a claimed achievement, a completed unclaimed achievement, an achievement in progress.
   */
  async function playedGamer(w: World) {
    const item = randomUUID();
    const claimedTask = await w.createTask({ name: 'Claimed task', applicationStatsId: 'a', targetValue: 1, rewards: [{ inventoryItemId: item, quantity: 2 }] });
    const openTask = await w.createTask({ name: 'Open task', applicationStatsId: 'b', targetValue: 5 });
    const claimedAch = await w.createTask({ name: 'Claimed ach', family: 'lifetime', isAchievement: true, applicationStatsId: 'c', targetValue: 1, rewards: [{ inventoryItemId: item, quantity: 3 }] });
    const doneAch = await w.createTask({ name: 'Done ach', family: 'lifetime', isAchievement: true, applicationStatsId: 'd', targetValue: 1 });
    const openAch = await w.createTask({ name: 'Open ach', family: 'lifetime', isAchievement: true, applicationStatsId: 'e', targetValue: 5 });
    const ann = w.gamer('Ann');
    expect((await w.assign(ann, 'daily', 2)).status).toBe(200);
    await w.play(ann, { a: 1, b: 1, c: 1, d: 1, e: 1 });
    const done = await w.waitFor(ann, byTask(claimedTask.id), (t) => t.completed);
    await w.waitFor(ann, byTask(openTask.id), (t) => t.progress === 1);
    const ach = await w.waitFor(ann, byTask(claimedAch.id), (t) => t.completed, 'achievements');
    await w.waitFor(ann, byTask(doneAch.id), (t) => t.completed, 'achievements');
    expect((await claim(ann, done.id)).status).toBe(200);
    expect((await claim(ann, ach.id)).status).toBe(200);
    expect(await w.inventory(ann)).toEqual([{ inventoryItemId: item, quantity: 5 }]);
    // the counters move right after the batch's task write: a reader may see the completion first
    const played = JSON.stringify([['Claimed ach', [1, 1]], ['Done ach', [1, 1]], ['Open ach', [0, 1]]]);
    await eventually(async () => JSON.stringify([...(await unlocks(w))]) === played);
    return { ann, item, claimedTask, openTask, claimedAch, doneAch, openAch };
  }

  it('scope tasks clears tasks in progress and keeps claimed ones; scope achievements keeps claimed achievements; unlock rates follow', async () => {
    const w = world();
    const g = await playedGamer(w);
    expect(await unlocks(w)).toEqual(new Map([['Claimed ach', [1, 1]], ['Done ach', [1, 1]], ['Open ach', [0, 1]]]));

    const tasksReset = await reset(w, g.ann.id, { scope: 'tasks' });
    expect(tasksReset.status, JSON.stringify(tasksReset.body)).toBe(200);
    expect(tasksReset.body).toEqual({ gamerId: g.ann.id, scope: 'tasks', tasksRemoved: 1, inventoryItemsRemoved: 0 });
    const tasks = await w.tasks(g.ann);
    expect(find(tasks, g.openTask.id)).toBeUndefined();
    expect(find(tasks, g.claimedTask.id)).toMatchObject({ completed: true, claimed: true });
    expect((await w.achievements(g.ann)).filter((a) => a.completed).length).toBe(2);
    // the open task can be assigned again, from zero
    const again = await w.assign(g.ann, 'daily', 1);
    expect(again.body.map((t) => [t.task.id, t.progress])).toEqual([[g.openTask.id, 0]]);

    const achReset = await reset(w, g.ann.id, { scope: 'achievements' });
    expect(achReset.body).toMatchObject({ scope: 'achievements', tasksRemoved: 2, inventoryItemsRemoved: 0 });
    const achievements = await w.achievements(g.ann);
    expect(find(achievements, g.claimedAch.id)).toMatchObject({ completed: true, claimed: true });
    expect(find(achievements, g.doneAch.id)).toMatchObject({ completed: false, progress: 0 });
    expect(find(achievements, g.openAch.id)).toMatchObject({ completed: false, progress: 0 });
    // Done ach no longer counts as unlocked; Ann is tracked again since she read her achievements
    expect(await unlocks(w)).toEqual(new Map([['Claimed ach', [1, 1]], ['Done ach', [0, 1]], ['Open ach', [0, 1]]]));
    expect(await w.inventory(g.ann)).toEqual([{ inventoryItemId: g.item, quantity: 5 }]);
  });

  it('keeps a composite one of whose children was claimed: assigned again, that child could be claimed twice', async () => {
    const w = world();
    const item = randomUUID();
    const composite = await w.createTask({
      name: 'Composite', rewards: [],
      children: [
        { name: 'c1', targetValue: 1, numberOfGames: 0, applicationStatsId: 'kills', rewards: [{ inventoryItemId: item, quantity: 4 }] },
        { name: 'c2', targetValue: 9, numberOfGames: 0, applicationStatsId: 'wins' },
      ],
    });
    const ann = w.gamer('Ann');
    const [parent] = (await w.assign(ann, 'daily', 1)).body;
    await w.play(ann, { kills: 1, wins: 2 });
    const listed = await w.waitFor(ann, byTask(composite.id), (t) => t.childTasks[0]!.completed && t.childTasks[1]!.progress === 2);
    expect((await claim(ann, listed.childTasks[0]!.id)).status).toBe(200);

    const response = await reset(w, ann.id, { scope: 'tasks' });
    expect(response.body).toEqual({ gamerId: ann.id, scope: 'tasks', tasksRemoved: 0, inventoryItemsRemoved: 0 });
    // the tree is whole, its progress too; it is still held, so an assign cannot hand it out again
    const kept = find(await w.tasks(ann), composite.id);
    expect(kept?.id).toBe(parent!.id);
    expect(kept?.childTasks.map((c) => [c.completed, c.claimed, c.progress])).toEqual([[true, true, 1], [false, false, 2]]);
    expect((await w.assign(ann, 'daily', 1)).status).toBe(409);
    expect(await w.inventory(ann)).toEqual([{ inventoryItemId: item, quantity: 4 }]);
  });

  it('a composite\'s children left without their parent (a reset between an assign\'s two writes) neither hold back the composite assigned again nor outlive the next reset', async () => {
    const w = world();
    const item = randomUUID();
    const composite = await w.createTask({
      name: 'Composite', rewards: [{ inventoryItemId: item, quantity: 2 }],
      children: [
        { name: 'c1', targetValue: 1, numberOfGames: 0, applicationStatsId: 'kills' },
        { name: 'c2', targetValue: 1, numberOfGames: 0, applicationStatsId: 'wins' },
      ],
    });
    const db = await stack.tasksDb();
    const gamerTasks = db.collection<{ _id: string; parentGamerTaskId: string | null }>('gamer_tasks');
    const orphanTree = async (who: Gamer) => {
      const [parent] = (await w.assign(who, 'daily', 1)).body;
      // the state a reset leaves when it deletes the parent before the assign wrote the children
      await gamerTasks.deleteOne({ _id: parent!.id });
      expect(await gamerTasks.countDocuments({ parentGamerTaskId: parent!.id })).toBe(2);
      return parent!.id;
    };

    // assigned again: its children are written (the leftovers, refused by the one-per-period index
    // until 2026-11-28, left the new parent without children: it could never complete)
    const ann = w.gamer('Ann');
    const orphaned = await orphanTree(ann);
    const [again] = (await w.assign(ann, 'daily', 1)).body;
    expect(again!.id).not.toBe(orphaned);
    expect(find(await w.tasks(ann), composite.id)?.childTasks).toHaveLength(2);
    expect(await gamerTasks.countDocuments({ parentGamerTaskId: orphaned })).toBe(0);
    await w.play(ann, { kills: 1, wins: 1 });
    await w.waitFor(ann, byTask(composite.id), (t) => t.completed);
    expect((await claim(ann, again!.id)).status).toBe(200);
    expect(await w.inventory(ann)).toEqual([{ inventoryItemId: item, quantity: 2 }]);

    // the next reset removes leftovers (a reset that failed between its two deletes left them too)
    const bob = w.gamer('Bob');
    const left = await orphanTree(bob);
    expect((await reset(w, bob.id, { scope: 'tasks' })).body).toMatchObject({ tasksRemoved: 2 });
    expect(await gamerTasks.countDocuments({ parentGamerTaskId: left })).toBe(0);
  });

  it('scope all clears claimed tasks and achievements and the inventory too', async () => {
    const w = world();
    const g = await playedGamer(w);
    const response = await reset(w, g.ann.id, { scope: 'all' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ scope: 'all', tasksRemoved: 5, inventoryItemsRemoved: 2 });
    // resetting again finds nothing more
    expect((await reset(w, g.ann.id, { scope: 'all' })).body).toMatchObject({ tasksRemoved: 0, inventoryItemsRemoved: 0 });
    expect(await w.tasks(g.ann)).toEqual([]);
    expect(await w.inventory(g.ann)).toEqual([]);
    expect(await unlocks(w)).toEqual(new Map([['Claimed ach', [0, 0]], ['Done ach', [0, 0]], ['Open ach', [0, 0]]]));
    // her achievements start again from zero (and she is tracked again by reading them)
    expect((await w.achievements(g.ann)).every((a) => !a.completed && a.progress === 0 && !a.claimed)).toBe(true);
    expect(await unlocks(w)).toEqual(new Map([['Claimed ach', [0, 1]], ['Done ach', [0, 1]], ['Open ach', [0, 1]]]));
  });

  it('scope all takes the grants of a claimed achievement tracked again while the reset ran; completed again, its claim pays again', async () => {
    const w = world();
    const g = await playedGamer(w);
    const store = openStore({ db: await stack.tasksDb() } as unknown as Connection);
    const gamerTasks = new GamerTaskRepository(store);
    // Ann reads her achievements right after the reset removed her trees: the claimed one is
    // tracked again under its derived id, the id its grants carry
    const racing = Object.assign(Object.create(gamerTasks) as GamerTaskRepository, {
      removeTrees: async (...args: Parameters<GamerTaskRepository['removeTrees']>) => {
        const removed = await gamerTasks.removeTrees(...args);
        await w.achievements(g.ann);
        return removed;
      },
    });
    const service = new ProgressResetService({
      gamerTasks: racing, progress: new GamerProgressRepository(store, gamerTasks, 0), inventory: new InventoryRepository(store), unlockStats: new AchievementStatsRepository(store),
    });
    // two grants: the task's and the achievement's (before the fix 1: the achievement's 3 items stayed)
    expect(await service.reset(w.app, g.ann.id, 'all')).toMatchObject({ tasksRemoved: 5, inventoryItemsRemoved: 2 });
    expect(await w.inventory(g.ann)).toEqual([]);
    await w.play(g.ann, { c: 1 });
    const again = await w.waitFor(g.ann, byTask(g.claimedAch.id), (t) => t.completed, 'achievements');
    expect((await claim(g.ann, again.id)).status).toBe(200);
    expect(await w.inventory(g.ann)).toEqual([{ inventoryItemId: g.item, quantity: 3 }]);
  });

  it('uncounts the achievements a reset removed even when their progress failed to go; the retry removes the rest', async () => {
    const w = world();
    const g = await playedGamer(w);
    const store = openStore({ db: await stack.tasksDb() } as unknown as Connection);
    const gamerTasks = new GamerTaskRepository(store);
    const progress = new GamerProgressRepository(store, gamerTasks, 0);
    // the store fails the progress write once, after the trees went
    let failures = 1;
    const failing = Object.assign(Object.create(progress) as GamerProgressRepository, {
      remove: async (...args: Parameters<GamerProgressRepository['remove']>) => {
        if (failures-- > 0) throw new Error('injected: the store failed the progress write');
        return progress.remove(...args);
      },
    });
    const service = new ProgressResetService({ gamerTasks, progress: failing, inventory: new InventoryRepository(store), unlockStats: new AchievementStatsRepository(store) });
    await expect(service.reset(w.app, g.ann.id, 'achievements')).rejects.toThrow(/injected/);
    // Done ach and Open ach went: neither counts Ann any more (before: [1, 1] and [0, 1] for good)
    expect(await unlocks(w)).toEqual(new Map([['Claimed ach', [1, 1]], ['Done ach', [0, 0]], ['Open ach', [0, 0]]]));
    // the retry finds no tree left, and removes their progress entries
    expect((await reset(w, g.ann.id, { scope: 'achievements' })).body).toMatchObject({ tasksRemoved: 0 });
    const achievements = await w.achievements(g.ann);
    expect(find(achievements, g.doneAch.id)).toMatchObject({ completed: false, progress: 0 });
    expect(find(achievements, g.openAch.id)).toMatchObject({ completed: false, progress: 0 });
    expect(await unlocks(w)).toEqual(new Map([['Claimed ach', [1, 1]], ['Done ach', [0, 1]], ['Open ach', [0, 1]]]));
  });

  it('does not count an unlock a batch settles after a reset removed its achievement', async () => {
    const w = world();
    const ach = await w.createTask({ name: 'Raced ach', family: 'lifetime', isAchievement: true, applicationStatsId: 'z', targetValue: 1 });
    const ann = w.gamer('Ann');
    await w.achievements(ann);
    expect(await unlocks(w)).toEqual(new Map([['Raced ach', [0, 1]]]));
    const store = openStore({ db: await stack.tasksDb() } as unknown as Connection);
    const [record] = (await new GamerTaskRepository(store).activeOf([{ applicationId: w.app, gamerId: ann.id }], new Date())).filter((t) => t.taskId === ach.id);
    // a batch completed it and announced it; before its settle counts the unlock, the reset removes it
    expect((await reset(w, ann.id, { scope: 'achievements' })).body).toMatchObject({ tasksRemoved: 1 });
    expect(await unlocks(w)).toEqual(new Map([['Raced ach', [0, 0]]]));
    const completion = { ...record!, progress: 1, completed: true, completedAt: new Date() };
    await new AchievementStatsRepository(store).record([], [completion], new Date());
    // before: [1, 0], and an unlock under the derived id that a later completion could never count
    expect(await unlocks(w)).toEqual(new Map([['Raced ach', [0, 0]]]));
    const unlockCount = async () => (await stack.tasksDb()).collection('achievement_unlocks').countDocuments({ _id: record!.id as never });
    expect(await unlockCount()).toBe(0);
  });

  it('refuses a gamer, a game server and another application\'s admin (403), bad input (400), and touches only the path\'s application', async () => {
    const w = world();
    const g = await playedGamer(w);
    const foreignAdmin = gamer(randomUUID(), 'Other admin', { roles: ['admin'] });
    expect((await reset(w, g.ann.id, { scope: 'all' }, g.ann)).status).toBe(403);
    expect((await reset(w, g.ann.id, { scope: 'all' }, w.server)).status).toBe(403);
    expect((await reset(w, g.ann.id, { scope: 'all' }, foreignAdmin)).status).toBe(403);
    for (const body of [{ scope: 'everything' }, { scope: 'ALL' }, {}, { scope: 'all', extra: 1 }]) {
      const response = await reset(w, g.ann.id, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    expect((await stack.api('POST', `/api/v1/${w.app}/gamers/not-a-uuid/progress/reset`, { headers: w.admin.auth, body: { scope: 'all' } })).status).toBe(400);
    // the admin of another application, on its own path, reaches nothing of Ann's
    const other = world();
    expect((await reset(other, g.ann.id, { scope: 'all' })).body).toMatchObject({ tasksRemoved: 0, inventoryItemsRemoved: 0 });
    expect((await erase(w, g.ann.id, g.ann)).status).toBe(403);
    expect((await erase(w, g.ann.id, foreignAdmin)).status).toBe(403);
    // nothing changed
    expect(await w.inventory(g.ann)).toEqual([{ inventoryItemId: g.item, quantity: 5 }]);
    expect((await w.tasks(g.ann)).length).toBe(2);
  });

  it.each([
    ['after its first round', (round: number) => round === 1],
    // the round that finds nothing ends the rounds: the record goes with the final delete
    ['after its last round', (round: number) => round === 2],
  ])('uncounts an achievement a read of the gamer tracked while their erasure ran (%s)', async (_when, racesAt) => {
    const w = world();
    await w.createTask({ name: 'Tracked ach', family: 'lifetime', isAchievement: true, applicationStatsId: 'z', targetValue: 5 });
    const ann = w.gamer('Ann');
    await w.achievements(ann);
    expect(await unlocks(w)).toEqual(new Map([['Tracked ach', [0, 1]]]));
    const store = openStore({ db: await stack.tasksDb() } as unknown as Connection);
    const gamerTasks = new GamerTaskRepository(store);
    // Ann's read of her achievements lands between the erasure's first removal and the rest
    let rounds = 0;
    const racing = Object.assign(Object.create(gamerTasks) as GamerTaskRepository, {
      removeTrees: async (...args: Parameters<GamerTaskRepository['removeTrees']>) => {
        const removed = await gamerTasks.removeTrees(...args);
        if (racesAt(++rounds)) await w.achievements(ann);
        return removed;
      },
    });
    const erase = tasksEraser({
      gamerTasks: racing, progress: new GamerProgressRepository(store, gamerTasks, 0), unlockStats: new AchievementStatsRepository(store),
      inventory: new InventoryRepository(store), keys: new IdempotencyRepository(store), deadLetters: { removeOfGamer: async () => 0 },
    });
    await erase({ jobId: randomUUID(), applicationId: w.app, gamerId: ann.id, requestedAt: new Date().toISOString() });
    expect(await (await stack.tasksDb()).collection('gamer_tasks').countDocuments({ applicationId: w.app, gamerId: ann.id })).toBe(0);
    // before the fix the record went with the final delete and stayed counted as tracked
    expect(await unlocks(w)).toEqual(new Map([['Tracked ach', [0, 0]]]));
  });

  it('erases a gamer everywhere: 202 with a job that reports each service, then no list, search or store holds them', async () => {
    const w = world();
    const g = await playedGamer(w);
    const join = async (name: string) => {
      const who = w.gamer(name);
      expect((await stack.api('GET', FRIENDSHIP, { headers: who.auth })).status).toBe(200);
      return who;
    };
    await stack.api('GET', FRIENDSHIP, { headers: g.ann.auth });
    const [bob, cid, dan, eve] = [await join('Bob'), await join('Cid'), await join('Dan'), await join('Eve')];
    // Ann and Bob are friends; Cid asked Ann; Ann asked Dan; Ann blocks Eve; Dan blocks Ann
    expect((await stack.api('POST', FRIENDSHIP, { headers: g.ann.auth, body: { target: bob.id } })).status).toBe(200);
    const incoming = await stack.api<{ id: string }[]>('GET', `${FRIENDSHIP}/requests/incoming`, { headers: bob.auth });
    expect((await stack.api('POST', `${FRIENDSHIP}/${incoming.body[0]!.id}/accept`, { headers: bob.auth })).status).toBe(200);
    expect((await stack.api('POST', FRIENDSHIP, { headers: cid.auth, body: { target: g.ann.id } })).status).toBe(200);
    expect((await stack.api('POST', FRIENDSHIP, { headers: g.ann.auth, body: { target: dan.id } })).status).toBe(200);
    expect((await stack.api('POST', `${FRIENDSHIP}/block`, { headers: g.ann.auth, body: { target: eve.id } })).status).toBe(200);
    expect((await stack.api('POST', `${FRIENDSHIP}/block`, { headers: dan.auth, body: { target: g.ann.id } })).status).toBe(200);
    const searchAnn = async (who: Gamer) => (await stack.api<{ id: string }[]>('GET', `${FRIENDSHIP}/search?displayName=Ann`, { headers: who.auth })).body.map((u) => u.id);
    expect(await searchAnn(bob)).toContain(g.ann.id);

    // dead letters of events of Ann's (the whole event kept) and of Bob's
    const letter = (who: Gamer): StatDeadLetter => ({
      reason: 'processing failed 5 times: database unavailable', subject: stack.names.statsSubject(w.app),
      streamSequence: 1, deliveryCount: 5, deadLetteredAt: new Date().toISOString(), payload: JSON.stringify(w.event(who, { a: 1 })),
    });
    const js = jetstream(await stack.asTasksStack().nats());
    for (const who of [g.ann, bob, g.ann]) await js.publish(stack.names.statsDeadLetterOf(w.app), JSON.stringify(letter(who)));
    // and a poison one naming her in a payload that is not JSON (cut short, say): no gamerId can be read from it
    await js.publish(stack.names.statsDeadLetterOf(w.app), JSON.stringify({ ...letter(g.ann), payload: JSON.stringify(w.event(g.ann, { a: 1 })).slice(0, -5) }));
    const lettersOf = async () => (await stack.api<DeadLetter[]>('GET', '/api/v1/admin/dead-letters', { headers: w.admin.auth })).body.map((l) => l.gamerId);
    expect(await lettersOf()).toEqual([g.ann.id, bob.id, g.ann.id, null]);

    const response = await erase(w, g.ann.id);
    expect(response.status, JSON.stringify(response.body)).toBe(202);
    expect(response.body).toMatchObject({ applicationId: w.app, gamerId: g.ann.id, status: 'pending', completedAt: null });
    expect(response.body.services.map((s) => s.service)).toEqual(['tasks', 'friendship', 'notifications']);
    const done = await eventually(async () => {
      const current = await job(w, response.body.jobId);
      return current.body.status === 'completed' ? current.body : undefined;
    }, 20_000);
    expect(done.services.map((s) => [s.service, s.status])).toEqual([['tasks', 'completed'], ['friendship', 'completed'], ['notifications', 'completed']]);
    expect(done.completedAt).not.toBeNull();

    // friendship: in no one's lists, not searchable, no block either way
    const ids = (list: { body: { user?: { id: string }; toGamer?: { id: string } }[] }) => list.body.map((e) => e.user?.id ?? e.toGamer?.id);
    expect(ids(await stack.api('GET', FRIENDSHIP, { headers: bob.auth }))).not.toContain(g.ann.id);
    expect(ids(await stack.api('GET', `${FRIENDSHIP}/requests/outgoing`, { headers: cid.auth }))).toEqual([]);
    expect(ids(await stack.api('GET', `${FRIENDSHIP}/requests/incoming`, { headers: dan.auth }))).toEqual([]);
    expect(ids(await stack.api('GET', `${FRIENDSHIP}/blocked`, { headers: dan.auth }))).toEqual([]);
    expect(await searchAnn(bob)).toEqual([]);
    expect(await searchAnn(eve)).toEqual([]);
    const friendshipDb = await stack.friendshipDb();
    expect(await friendshipDb.collection('gamers').countDocuments({ gamerId: g.ann.id })).toBe(0);
    expect(await friendshipDb.collection('relations').countDocuments({ members: g.ann.id })).toBe(0);
    expect(await friendshipDb.collection('blocks').countDocuments({ $or: [{ blocker: g.ann.id }, { blocked: g.ann.id }] })).toBe(0);
    // the others keep what is theirs
    expect(await friendshipDb.collection('gamers').countDocuments({ applicationId: w.app })).toBe(4);

    // tasks: no gamer task, grant, unlock or idempotency key of Ann; her unlocks uncounted
    const tasksDb = await stack.tasksDb();
    expect(await tasksDb.collection('gamer_tasks').countDocuments({ gamerId: g.ann.id })).toBe(0);
    expect(await tasksDb.collection('inventory_grants').countDocuments({ gamerId: g.ann.id })).toBe(0);
    expect(await tasksDb.collection('achievement_unlocks').countDocuments({ gamerId: g.ann.id })).toBe(0);
    expect(await unlocks(w)).toEqual(new Map([['Claimed ach', [0, 0]], ['Done ach', [0, 0]], ['Open ach', [0, 0]]]));
    // no dead letter of hers (its replay would apply her event again), the one she is only
    // named in included (kept until 2026-11-28); Bob's stays
    expect(await lettersOf()).toEqual([bob.id]);

    // a second erasure of the same gamer is a new job that finds nothing more and completes too
    const second = await erase(w, g.ann.id);
    expect(second.status).toBe(202);
    expect(second.body.jobId).not.toBe(response.body.jobId);
    await eventually(async () => (await job(w, second.body.jobId)).body.status === 'completed', 20_000);
    expect(await unlocks(w)).toEqual(new Map([['Claimed ach', [0, 0]], ['Done ach', [0, 0]], ['Open ach', [0, 0]]]));
  });

  it('an erasure whose publish JetStream may have stored is kept: 503 naming the job, which completes; 202 once published, whatever comes after', async () => {
    const w = world();
    const store = openStore({ db: await stack.tasksDb() } as unknown as Connection);
    const jobs = new ErasureJobRepository(store);
    const real = jetstream(await stack.asTasksStack().nats());
    /** JetStream, but `publish` as `publish` says */
    const jsWith = (publish: (...args: Parameters<JetStreamClient['publish']>) => ReturnType<JetStreamClient['publish']>) =>
      new Proxy(real, { get: (target, prop, receiver) => (prop === 'publish' ? publish : Reflect.get(target, prop, receiver)) });
    const quiet = { warn: () => {}, info: () => {} } as never;
    const service = (js: JetStreamClient, repository: ErasureJobRepository = jobs) =>
      new ErasureService({ jobs: repository, js, names: stack.names, expected: ['tasks', 'friendship', 'notifications'], log: quiet });
    const completed = (jobId: string) => eventually(async () => ((await job(w, jobId)).body.status === 'completed' ? true : undefined), 20_000);
    const jobIdIn = (detail: string) => /job ([0-9a-f-]{36})/.exec(detail)?.[1];

    // JetStream stored the event, then the publish failed (its acknowledgement timed out)
    let startedId: string | undefined;
    let storedAck: Awaited<ReturnType<JetStreamClient['publish']>> | undefined;
    const storedThenFailed = service(jsWith(async (...args) => {
      storedAck = await real.publish(...args);
      startedId = args[2]?.msgID;
      throw new Error('TimeoutError: timeout');
    }));
    const refused = await storedThenFailed.request(w.app, randomUUID()).then(() => undefined, (error: unknown) => error);
    expect(refused).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(startedId).toBeDefined();
    // asserted here, not in the publish: the service turns whatever the publish throws into its 503
    expect(storedAck?.duplicate).toBe(false);
    // the erasure runs in every service, and the job that tells it is there to read
    expect((await job(w, startedId!)).status).toBe(200);
    await completed(startedId!);
    // the answer said so, and named the job
    expect((refused as Error).message).toMatch(/may have started/);
    expect(jobIdIn((refused as Error).message)).toBe(startedId);

    // JetStream did not take it at all: kept too, and the sweep publishes it
    const failed = await service(jsWith(() => Promise.reject(new Error('no responders')))).request(w.app, randomUUID()).then(() => undefined, (error: unknown) => error);
    expect(failed).toMatchObject({ status: 503 });
    const pendingId = jobIdIn((failed as Error).message)!;
    expect((await job(w, pendingId)).body).toMatchObject({ jobId: pendingId, status: 'pending' });
    const tasksDb = await stack.tasksDb();
    expect(await tasksDb.collection('erasure_jobs').findOne({ _id: pendingId as never })).toMatchObject({ published: false });

    // published, then marking the job failed: 202 all the same
    const unmarked = new Proxy(jobs, { get: (target, prop, receiver) => (prop === 'markPublished' ? () => Promise.reject(new Error('store away')) : Reflect.get(target, prop, receiver)) });
    const accepted = await service(real, unmarked).request(w.app, randomUUID());
    expect(accepted).toMatchObject({ applicationId: w.app, status: 'pending' });
    await completed(accepted.jobId);

    // the sweep publishes the jobs not marked published (a repeat JetStream still holds is dropped by its message id)
    await service(real).publishLeftOver(new Date());
    const ours = [startedId!, pendingId, accepted.jobId];
    expect(await tasksDb.collection('erasure_jobs').countDocuments({ _id: { $in: ours as never[] }, published: true })).toBe(3);
    await completed(pendingId);
  });

  it('publishes a job left unpublished that some service reported for the others only, and only marks one every service reported', async () => {
    const store = openStore({ db: await stack.tasksDb() } as unknown as Connection);
    const jobs = new ErasureJobRepository(store);
    const expected = ['tasks', 'friendship', 'notifications'];
    const service = new ErasureService({ jobs, js: jetstream(await stack.asTasksStack().nats()), names: stack.names, expected, log: { warn: () => {}, info: () => {} } as never });
    const app = randomUUID();
    const hourAgo = new Date(Date.now() - 3_600_000);
    // their events were published, but their acknowledgement (or the mark after it) was lost:
    // services have reported since
    const [partly, wholly, unseen] = [randomUUID(), randomUUID(), randomUUID()];
    await jobs.insert({ id: partly, applicationId: app, gamerId: randomUUID(), requestedAt: hourAgo, expected, done: { friendship: new Date() } });
    await jobs.insert({ id: wholly, applicationId: app, gamerId: randomUUID(), requestedAt: hourAgo, expected, done: { tasks: new Date(), friendship: new Date(), notifications: new Date() } });
    await jobs.insert({ id: unseen, applicationId: app, gamerId: randomUUID(), requestedAt: hourAgo, expected, done: {} });
    const nc = await stack.asTasksStack().nats();
    const seen: { jobId: string; services?: string[] }[] = [];
    const sub = nc.subscribe(stack.names.gamerErased, { callback: (_error, msg) => void seen.push(msg.json<{ jobId: string; services?: string[] }>()) });
    await nc.flush();
    expect(await service.publishLeftOver(new Date())).toBe(2);
    await eventually(async () => (seen.length >= 2 ? true : undefined));
    sub.unsubscribe();
    // before: all three published for every service, which erased their gamers again (who may be back)
    expect(seen.map((e) => [e.jobId, e.services]).sort()).toEqual([[partly, ['tasks', 'notifications']], [unseen, undefined]].sort());
    const tasksDb = await stack.tasksDb();
    expect(await tasksDb.collection('erasure_jobs').findOne({ _id: wholly as never })).toMatchObject({ published: true, complete: true });
    expect(await tasksDb.collection('erasure_jobs').countDocuments({ _id: { $in: [partly, unseen] as never[] }, published: true })).toBe(2);
  });

  it('publishes again a job some service has not reported for days, before the stream lets its event go, for that service only; a completed one is only marked so', async () => {
    const w = world();
    await w.createTask({ name: 'Daily kills', family: 'daily', applicationStatsId: 'kills', targetValue: 5 });
    const store = openStore({ db: await stack.tasksDb() } as unknown as Connection);
    const jobs = new ErasureJobRepository(store);
    const quiet = { warn: () => {}, info: () => {} } as never;
    // a job that also waits for a service that is down (never reports)
    const service = new ErasureService({ jobs, js: jetstream(await stack.asTasksStack().nats()), names: stack.names, expected: ['tasks', 'friendship', 'notifications', 'down-for-weeks'], log: quiet });
    const ann = w.gamer('Ann');
    const pending = await service.request(w.app, ann.id);
    const done = await erase(w, randomUUID());
    await eventually(async () => ((await job(w, done.body.jobId)).body.status === 'completed' ? true : undefined), 20_000);
    await eventually(async () => ((await job(w, pending.jobId)).body.services.filter((s) => s.status === 'completed').length === 3 ? true : undefined), 20_000);
    const tasksDb = await stack.tasksDb();
    expect(await tasksDb.collection('erasure_jobs').findOne({ _id: done.body.jobId as never })).toMatchObject({ complete: true });
    // eight days on: the pending job's event would be gone from the stream in 22 more
    const weekAgo = new Date(Date.now() - 8 * 24 * 3600_000);
    await tasksDb.collection('erasure_jobs').updateMany({ _id: { $in: [pending.jobId, done.body.jobId] as never[] } }, { $set: { publishedAt: weekAgo } });
    // Ann came back meanwhile (an erasure does not ban): tasks and a friendship record again
    expect((await w.assign(ann, 'daily', 1)).status).toBe(200);
    expect((await stack.api('GET', FRIENDSHIP, { headers: ann.auth })).status).toBe(200);
    const nc = await stack.asTasksStack().nats();
    const seen: { jobId: string; services?: string[] }[] = [];
    const sub = nc.subscribe(stack.names.gamerErased, { callback: (_error, msg) => void seen.push(msg.json<{ jobId: string; services?: string[] }>()) });
    await nc.flush();
    expect(await service.republishUnfinished(new Date(Date.now() - 7 * 24 * 3600_000))).toBe(1);
    await eventually(async () => (seen.some((e) => e.jobId === pending.jobId) ? true : undefined));
    sub.unsubscribe();
    // published again for the service that has not reported, and due again in another week;
    // the completed one not
    expect(seen).toEqual([expect.objectContaining({ jobId: pending.jobId, services: ['down-for-weeks'] })]);
    // every running service took it (its consumer's ack floor passed it) and left Ann as she is now
    const jsm = await jetstreamManager(nc);
    const republishedSeq = (await jsm.streams.getMessage(stack.names.gamersStream, { last_by_subj: stack.names.gamerErased }))!.seq;
    for (const name of ['tasks', 'friendship', 'notifications']) {
      await eventually(async () => ((await jsm.consumers.info(stack.names.gamersStream, stack.names.gamerErasedConsumer(name))).ack_floor.stream_seq >= republishedSeq ? true : undefined), 20_000);
    }
    expect((await w.tasks(ann)).length).toBe(1);
    expect(await (await stack.friendshipDb()).collection('gamers').countDocuments({ gamerId: ann.id })).toBe(1);
    const republished = await tasksDb.collection('erasure_jobs').findOne({ _id: pending.jobId as never });
    expect((republished?.publishedAt as Date).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(await service.republishUnfinished(new Date(Date.now() - 7 * 24 * 3600_000))).toBe(0);
    // the services that had erased find nothing more and report again: the job stays as it was
    expect((await job(w, pending.jobId)).body.services.map((s) => s.status)).toEqual(['completed', 'completed', 'completed', 'pending']);
  });

  it('a claim counts an erasure of its gamer since it started: tasks not reported yet, or reported since; not a job published again for other services', async () => {
    const jobs = new ErasureJobRepository(openStore({ db: await stack.tasksDb() } as unknown as Connection));
    const app = randomUUID();
    const owner = (gamerId: string) => ({ applicationId: app, gamerId });
    const hourAgo = new Date(Date.now() - 3_600_000);
    const since = new Date(Date.now() - 600_000);
    const job = async (gamerId: string, done: Record<string, Date>) => {
      const id = randomUUID();
      await jobs.insert({ id, applicationId: app, gamerId, requestedAt: hourAgo, expected: ['tasks', 'down-for-weeks'], done });
      await jobs.markPublished(id, new Date());
    };
    const [pending, doneSince, doneBefore] = [randomUUID(), randomUUID(), randomUUID()];
    await job(pending, {});
    await job(doneSince, { tasks: new Date() });
    // tasks reported an hour ago; the job was published again just now for the other service
    await job(doneBefore, { tasks: hourAgo });
    expect(await jobs.erasingSince(owner(pending), since)).toBe(true);
    expect(await jobs.erasingSince(owner(doneSince), since)).toBe(true);
    expect(await jobs.erasingSince(owner(doneBefore), since)).toBe(false);
    expect(await jobs.erasingSince(owner(randomUUID()), since)).toBe(false);
  });

  it('a claim counts a reset of scope all since it started, with a few seconds\' margin for the replicas\' clocks', async () => {
    const store = openStore({ db: await stack.tasksDb() } as unknown as Connection);
    const inventory = new InventoryRepository(store);
    const app = randomUUID();
    const since = new Date();
    const resetAt = async (gamerId: string, at: Date) => (await stack.tasksDb()).collection('inventory_resets').insertOne({ _id: `${app}:${gamerId}` as never, at });
    const [skewed, before, none] = [randomUUID(), randomUUID(), randomUUID()];
    // the claim began on a replica 2 s ahead of the one that reset (until 2026-11-29: missed)
    await resetAt(skewed, new Date(since.getTime() - 2_000));
    // a reset 30 s before the claim began: not this claim's (its grants are the gamer's)
    await resetAt(before, new Date(since.getTime() - 30_000));
    expect(await inventory.resetSince({ applicationId: app, gamerId: skewed }, since)).toBe(true);
    expect(await inventory.resetSince({ applicationId: app, gamerId: before }, since)).toBe(false);
    expect(await inventory.resetSince({ applicationId: app, gamerId: none }, since)).toBe(false);
  });

  it('a job is only its application\'s admins\' to read: 403 for others on its path, 404 from another application, 400 for a malformed id', async () => {
    const w = world();
    const unknownGamer = randomUUID();
    const started = await erase(w, unknownGamer);
    expect(started.status).toBe(202);
    const { jobId } = started.body;
    expect((await job(w, jobId)).status).toBe(200);
    expect((await job(w, jobId, w.gamer())).status).toBe(403);
    expect((await job(w, jobId, gamer(randomUUID(), 'Other', { roles: ['admin'] }))).status).toBe(403);
    const other = world();
    expect((await job(other, jobId)).status).toBe(404);
    expect((await job(w, randomUUID())).status).toBe(404);
    expect((await stack.api('GET', `/api/v1/${w.app}/gamers/erasures/nope`, { headers: w.admin.auth })).status).toBe(400);
    expect((await stack.api('DELETE', `/api/v1/${w.app}/gamers/nope`, { headers: w.admin.auth })).status).toBe(400);
    // erasing a gamer nobody knows completes like any other
    await eventually(async () => (await job(w, jobId)).body.status === 'completed', 20_000);
  });
});
