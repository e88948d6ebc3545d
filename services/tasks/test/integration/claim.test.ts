import type { ErasureJob, InventoryGrantedEvent, RewardItem, TaskClaimedEvent } from '@gfts/contracts';
import { eventually, gamer } from '@gfts/testkit';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from 'mongoose';
import { Registry } from 'prom-client';
import { ClaimService } from '../../src/claim-service.ts';
import { TaskEvents } from '../../src/events.ts';
import { ErasureJobRepository } from '../../src/repository/erasure-job-repository.ts';
import { GamerProgressRepository } from '../../src/repository/gamer-progress-repository.ts';
import { GamerTaskRepository } from '../../src/repository/gamer-task-repository.ts';
import { InventoryRepository } from '../../src/repository/inventory-repository.ts';
import { openStore } from '../../src/repository/store.ts';
import { claimMetrics } from '../../src/stats/metrics.ts';
import { startTasksStack, type TasksStack } from '../support/stack.ts';
import { byTask, World } from '../support/world.ts';

describe('claims', () => {
  let stack: TasksStack;
  const crashAfterGrant = new Set<string>();
  /** run between the grants and the end of the claim of that gamer task (step 2 and 3) */
  const betweenGrantAndClaimed = new Map<string, () => Promise<void>>();
  /** run between the start of the claim of that gamer task and its grants (step 1 and 2) */
  const betweenStartAndGrant = new Map<string, () => Promise<void>>();
  const claimed: TaskClaimedEvent[] = [];
  const granted: InventoryGrantedEvent[] = [];
  beforeAll(async () => {
    stack = await startTasksStack({}, {
      faults: {
        claim: {
          beforeGrant: async (task) => betweenStartAndGrant.get(task.id)?.(),
          afterGrant: async (task) => {
            if (crashAfterGrant.has(task.id)) throw new Error('injected crash between grant and claimed');
            await betweenGrantAndClaimed.get(task.id)?.();
          },
        },
      },
    });
    const nc = await stack.nats();
    nc.subscribe(stack.names.taskClaimed, { callback: (_e, msg) => void claimed.push(msg.json<TaskClaimedEvent>()) });
    nc.subscribe(stack.names.inventoryGranted, { callback: (_e, msg) => void granted.push(msg.json<InventoryGrantedEvent>()) });
    await nc.flush();
  });
  afterAll(async () => stack?.close());

  /** A gamer holding one completed task with two rewards. */
  async function completedTask(world: World, rewards = [{ inventoryItemId: randomUUID(), quantity: 3 }, { inventoryItemId: randomUUID(), quantity: 1 }]) {
    const task = await world.createTask({ targetValue: 1, applicationStatsId: 'wins', rewards });
    const ann = world.gamer();
    await world.assign(ann, 'daily', 1);
    await world.play(ann, { wins: 1 });
    const done = await world.waitFor(ann, byTask(task.id), (t) => t.completed);
    return { task, ann, gamerTaskId: done.id, rewards };
  }

  const claim = (id: string, who: { auth: Record<string, string> }) => stack.api<RewardItem[]>('POST', `/api/v1/tasks/${id}/claim`, { headers: who.auth });

  /** A counter of the tasks service's /metrics: the first series carrying these labels, 0 when there is none. */
  async function counter(name: string, labels: Record<string, string> = {}): Promise<number> {
    const text = await (await fetch(`${stack.tasksUrl}/metrics`)).text();
    for (const line of text.split('\n')) {
      const sample = /^([\w:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (sample?.[1] !== name) continue;
      const carried = new Map([...(sample[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
      if (Object.entries(labels).every(([label, value]) => carried.get(label) === value)) return Number(sample[3]);
    }
    return 0;
  }

  it('claims a completed task once: rewards into the inventory, then 409 ALREADY_CLAIMED', async () => {
    const world = new World(stack);
    const { ann, gamerTaskId, rewards, task } = await completedTask(world);
    const first = await claim(gamerTaskId, ann);
    expect(first.status).toBe(200);
    expect(first.body).toEqual(rewards);
    const again = await claim(gamerTaskId, ann);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'ALREADY_CLAIMED' });
    expect(await world.inventory(ann)).toEqual([...rewards].sort((a, b) => (a.inventoryItemId < b.inventoryItemId ? -1 : 1)));
    expect((await world.tasks(ann)).find((t) => t.id === gamerTaskId)).toMatchObject({ completed: true, claimed: true });
    await eventually(async () => claimed.some((c) => c.gamerTaskId === gamerTaskId) && granted.some((g) => g.gamerTaskId === gamerTaskId));
    expect(claimed.find((c) => c.gamerTaskId === gamerTaskId)).toMatchObject({ applicationId: world.app, gamerId: ann.id, taskId: task.id, rewards });
    expect(granted.find((g) => g.gamerTaskId === gamerTaskId)).toMatchObject({ gamerId: ann.id, items: rewards });
  });

  it('refuses a game server\'s token to assign or claim (403): it is no gamer, and nothing is written for it', async () => {
    const world = new World(stack);
    const { gamerTaskId } = await completedTask(world);
    const assigned = await stack.api('POST', '/api/v1/tasks/assign', { headers: world.server.auth, body: { family: 'daily', numberOfTasks: 1 } });
    expect(assigned.status).toBe(403);
    expect(assigned.body).toMatchObject({ code: 'FORBIDDEN' });
    expect((await claim(gamerTaskId, world.server)).status).toBe(403);
    const db = await stack.db();
    expect(await db.collection('gamer_tasks').countDocuments({ applicationId: world.app, gamerId: world.server.id })).toBe(0);
    expect(await db.collection('gamer_progress').countDocuments({ _id: `${world.app}:${world.server.id}` as never })).toBe(0);
  });

  it('refuses an incomplete task (409 TASK_NOT_COMPLETED), unknown or foreign ids (404), malformed ids (400)', async () => {
    const world = new World(stack);
    await world.createTask({ targetValue: 5 });
    const ann = world.gamer();
    const [held] = (await world.assign(ann, 'daily', 1)).body;
    const incomplete = await claim(held!.id, ann);
    expect(incomplete.status).toBe(409);
    expect(incomplete.body).toMatchObject({ code: 'TASK_NOT_COMPLETED' });
    expect((await claim(randomUUID(), ann)).status).toBe(404);
    const bob = world.gamer('Bob');
    const foreign = await claim(held!.id, bob);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ code: 'NOT_FOUND' });
    // same gamer id in another application is someone else
    const twin = gamer(randomUUID(), 'Twin');
    expect((await claim(held!.id, twin)).status).toBe(404);
    expect((await claim('not-a-uuid', ann)).status).toBe(400);
    expect((await stack.api('POST', `/api/v1/tasks/${held!.id}/claim`)).status).toBe(401);
    expect(await world.inventory(ann)).toEqual([]);
  });

  it('200 concurrent claims of one task: one 200, 199 ALREADY_CLAIMED, the rewards granted once', async () => {
    const world = new World(stack);
    const { ann, gamerTaskId, rewards } = await completedTask(world, [{ inventoryItemId: randomUUID(), quantity: 7 }]);
    const answers = await Promise.all(Array.from({ length: 200 }, () => claim(gamerTaskId, ann)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(199);
    expect(answers.filter((a) => a.status === 409).every((a) => (a.body as unknown as { code: string }).code === 'ALREADY_CLAIMED')).toBe(true);
    expect(await world.inventory(ann)).toEqual(rewards);
    const metrics = await (await fetch(`${stack.tasksUrl}/metrics`)).text();
    const refused = Number(/gfts_task_claims_total\{[^}]*outcome="already_claimed"[^}]*\} (\d+)/.exec(metrics)?.[1]);
    expect(refused).toBeGreaterThanOrEqual(199);
    expect(metrics).toMatch(/gfts_inventory_grants_total\{[^}]*\} [1-9]/);
  });

  it('labels claims rewarded or not: a reward-less claim writes no grant (GftsClaimsWithoutGrants counts rewarded="true" only)', async () => {
    const world = new World(stack);
    const claims = (outcome: string, rewarded: string) => counter('gfts_task_claims_total', { outcome, rewarded });
    const before = {
      rewarded: await claims('claimed', 'true'), rewardless: await claims('claimed', 'false'),
      rewardlessAgain: await claims('already_claimed', 'false'), notFound: await claims('not_found', 'false'),
      grants: await counter('gfts_inventory_grants_total'),
    };
    const bare = await completedTask(world, []);
    const first = await claim(bare.gamerTaskId, bare.ann);
    expect(first.status).toBe(200);
    expect(first.body).toEqual([]);
    expect((await claim(bare.gamerTaskId, bare.ann)).status).toBe(409);
    expect((await claim(randomUUID(), bare.ann)).status).toBe(404);
    expect(await claims('claimed', 'false')).toBe(before.rewardless + 1);
    expect(await claims('already_claimed', 'false')).toBe(before.rewardlessAgain + 1);
    expect(await claims('not_found', 'false')).toBe(before.notFound + 1);
    expect(await claims('claimed', 'true')).toBe(before.rewarded);
    expect(await counter('gfts_inventory_grants_total')).toBe(before.grants);
    // a task with two rewards (another application, so that the gamer is assigned this one): rewarded, two grants
    const gifted = await completedTask(new World(stack));
    expect((await claim(gifted.gamerTaskId, gifted.ann)).status).toBe(200);
    expect(await claims('claimed', 'true')).toBe(before.rewarded + 1);
    expect(await claims('claimed', 'false')).toBe(before.rewardless + 1);
    expect(await counter('gfts_inventory_grants_total')).toBe(before.grants + 2);
  });

  it('adds up quantities of one item from several tasks', async () => {
    const world = new World(stack);
    const gem = randomUUID();
    await world.createTask({ name: 'a', targetValue: 1, rewards: [{ inventoryItemId: gem, quantity: 2 }] });
    await world.createTask({ name: 'b', targetValue: 1, rewards: [{ inventoryItemId: gem, quantity: 5 }] });
    const ann = world.gamer();
    await world.assign(ann, 'daily', 2);
    await world.play(ann, { wins: 1 });
    const list = await eventually(async () => {
      const l = await world.tasks(ann);
      return l.every((t) => t.completed) ? l : undefined;
    });
    for (const t of list) expect((await claim(t.id, ann)).status).toBe(200);
    expect(await world.inventory(ann)).toEqual([{ inventoryItemId: gem, quantity: 7 }]);
  });

  it('claims a child of a composite for the child\'s rewards', async () => {
    const world = new World(stack);
    const item = randomUUID();
    await world.createTask({
      family: 'weekly', rewards: [],
      children: [
        { name: 'c1', targetValue: 1, numberOfGames: 0, applicationStatsId: 'kills', rewards: [{ inventoryItemId: item, quantity: 4 }] },
        { name: 'c2', targetValue: 9, numberOfGames: 0, applicationStatsId: 'wins' },
      ],
    });
    const ann = world.gamer();
    const [parent] = (await world.assign(ann, 'weekly', 1)).body;
    await world.play(ann, { kills: 1 });
    const listed = await world.waitFor(ann, (l) => l.find((t) => t.id === parent!.id), (t) => t.childTasks[0]!.completed);
    expect((await claim(parent!.id, ann)).status).toBe(409);
    const child = await claim(listed.childTasks[0]!.id, ann);
    expect(child.status).toBe(200);
    expect(child.body).toEqual([{ inventoryItemId: item, quantity: 4 }]);
    expect(await world.inventory(ann)).toEqual([{ inventoryItemId: item, quantity: 4 }]);
  });

  it('a retry of a claim left half-done longer than CLAIM_RECOVERY_AFTER_MS finishes it at once; the list shows it claimed meanwhile', async () => {
    const world = new World(stack);
    const { ann, gamerTaskId, rewards } = await completedTask(world);
    const db = await stack.db();
    // its request failed right after step 1, a minute ago; the sweep has not come by yet
    const claimStartedAt = new Date(Date.now() - 60_000);
    await db.collection('gamer_tasks').updateOne({ _id: gamerTaskId as never }, { $set: { claimState: 'claiming', claimStartedAt } });
    expect((await world.tasks(ann)).find((t) => t.id === gamerTaskId)).toMatchObject({ claimed: true });
    const retried = await claim(gamerTaskId, ann);
    expect(retried.status).toBe(409);
    expect(retried.body).toMatchObject({ code: 'ALREADY_CLAIMED' });
    expect(await world.inventory(ann)).toEqual([...rewards].sort((a, b) => (a.inventoryItemId < b.inventoryItemId ? -1 : 1)));
    // announced with the time the claim started, as any other finish of it would be: copies are alike
    const announced = await eventually(async () => granted.find((g) => g.gamerTaskId === gamerTaskId));
    expect(announced.grantedAt).toBe(claimStartedAt.toISOString());
    // one that started just now is another request's, still running: left to it
    const fresh = await completedTask(new World(stack));
    await db.collection('gamer_tasks').updateOne({ _id: fresh.gamerTaskId as never }, { $set: { claimState: 'claiming', claimStartedAt: new Date() } });
    expect((await claim(fresh.gamerTaskId, fresh.ann)).status).toBe(409);
    expect(await new World(stack).inventory(fresh.ann)).toEqual([]);
  });

  it('a progress reset of scope all while a claim is in flight keeps that claim\'s rewards, and takes the rest of the inventory', async () => {
    const world = new World(stack);
    const [gem, coin] = [randomUUID(), randomUUID()];
    await world.createTask({ name: 'earlier', targetValue: 1, rewards: [{ inventoryItemId: gem, quantity: 2 }] });
    const inFlight = await world.createTask({ name: 'in flight', targetValue: 1, rewards: [{ inventoryItemId: coin, quantity: 5 }] });
    const ann = world.gamer();
    await world.assign(ann, 'daily', 2);
    await world.play(ann, { wins: 1 });
    const list = await eventually(async () => {
      const l = await world.tasks(ann);
      return l.length === 2 && l.every((t) => t.completed) ? l : undefined;
    });
    const earlier = list.find((t) => t.task.id !== inFlight.id)!;
    const claiming = list.find((t) => t.task.id === inFlight.id)!;
    expect((await claim(earlier.id, ann)).status).toBe(200);
    // the admin resets Ann's progress right after the claim wrote its grants (step 2), before it marks the task claimed (step 3)
    let reset: unknown;
    betweenGrantAndClaimed.set(claiming.id, async () => {
      const answer = await stack.api('POST', `/api/v1/${world.app}/gamers/${ann.id}/progress/reset`, { headers: world.admin.auth, body: { scope: 'all' } });
      expect(answer.status).toBe(200);
      reset = answer.body;
    });
    const claimed = await claim(claiming.id, ann);
    expect(claimed.status).toBe(200);
    expect(claimed.body).toEqual([{ inventoryItemId: coin, quantity: 5 }]);
    // the claimed earlier task and its grant went; the claim in flight kept its task and its grant
    expect(reset).toEqual({ gamerId: ann.id, scope: 'all', tasksRemoved: 1, inventoryItemsRemoved: 1 });
    expect(await world.inventory(ann)).toEqual([{ inventoryItemId: coin, quantity: 5 }]);
    expect((await world.tasks(ann)).map((t) => [t.id, t.completed, t.claimed])).toEqual([[claiming.id, true, true]]);
    expect((await claim(claiming.id, ann)).status).toBe(409);
  });

  it('an erasure of the gamer while a claim is in flight leaves no grant behind: the claim answers 404 and announces nothing', async () => {
    const world = new World(stack);
    const { ann, gamerTaskId } = await completedTask(world);
    const db = await stack.db();
    // the admin erases Ann after her claim started (step 1) and before it writes its grants
    // (step 2); the claim goes on only once the tasks service's part of the erasure is done
    betweenStartAndGrant.set(gamerTaskId, async () => {
      const erasure = await stack.api<ErasureJob>('DELETE', `/api/v1/${world.app}/gamers/${ann.id}`, { headers: world.admin.auth });
      expect(erasure.status).toBe(202);
      await eventually(async () => {
        const job = await stack.api<ErasureJob>('GET', `/api/v1/${world.app}/gamers/erasures/${erasure.body.jobId}`, { headers: world.admin.auth });
        return job.body.services.find((s) => s.service === 'tasks')?.status === 'completed' ? true : undefined;
      });
    });
    const answer = await claim(gamerTaskId, ann);
    expect(answer.status).toBe(404);
    expect(await db.collection('inventory_grants').countDocuments({ gamerId: ann.id })).toBe(0);
    expect(await db.collection('gamer_tasks').countDocuments({ gamerId: ann.id })).toBe(0);
    // a later claim's announcements arrive after any this one made (one connection, in order)
    const later = await completedTask(new World(stack));
    expect((await claim(later.gamerTaskId, later.ann)).status).toBe(200);
    await eventually(async () => (granted.some((e) => e.gamerTaskId === later.gamerTaskId) ? true : undefined));
    expect(claimed.filter((e) => e.gamerTaskId === gamerTaskId)).toEqual([]);
    expect(granted.filter((e) => e.gamerTaskId === gamerTaskId)).toEqual([]);
  });

  it('keeps the grants of a claim another finish ended, whose task the expiry sweep removed before this finish ended', async () => {
    const world = new World(stack);
    const { ann, gamerTaskId, rewards } = await completedTask(world);
    const db = await stack.db();
    // after this request's grants (step 2): a recovery (another replica starting, say) ends the
    // claim, and the task, expired at midnight, goes with the sweep; then this request goes on
    let removed = 0;
    betweenGrantAndClaimed.set(gamerTaskId, async () => {
      await db.collection('gamer_tasks').updateOne({ _id: gamerTaskId as never, claimState: 'claiming' }, { $set: { claimState: 'claimed', claimedAt: new Date() } });
      removed = (await db.collection('gamer_tasks').deleteOne({ _id: gamerTaskId as never, claimState: 'claimed' })).deletedCount;
    });
    const answer = await claim(gamerTaskId, ann);
    // the race happened: this finish went on with its task gone
    expect(removed).toBe(1);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(rewards);
    expect(await world.inventory(ann)).toEqual([...rewards].sort((a, b) => (a.inventoryItemId < b.inventoryItemId ? -1 : 1)));
  });

  it('takes back the grants of a claim another finish ended, whose task a reset of scope all removed with the inventory before this finish wrote them', async () => {
    const world = new World(stack);
    const { ann, gamerTaskId, rewards } = await completedTask(world);
    const db = await stack.db();
    // before this request's grants (step 2): another finish (a recovery) ends the claim, then
    // the admin resets everything, the claimed task and the inventory
    betweenStartAndGrant.set(gamerTaskId, async () => {
      await db.collection('inventory_grants').insertMany(rewards.map((r, i) => ({
        _id: `${gamerTaskId}:${i}` as never, applicationId: world.app, gamerId: ann.id, gamerTaskId, inventoryItemId: r.inventoryItemId, quantity: r.quantity, grantedAt: new Date(),
      })));
      await db.collection('gamer_tasks').updateOne({ _id: gamerTaskId as never, claimState: 'claiming' }, { $set: { claimState: 'claimed', claimedAt: new Date() } });
      const reset = await stack.api('POST', `/api/v1/${world.app}/gamers/${ann.id}/progress/reset`, { headers: world.admin.auth, body: { scope: 'all' } });
      expect(reset.status).toBe(200);
    });
    const answer = await claim(gamerTaskId, ann);
    expect(answer.status).toBe(404);
    // the reset took them; this finish does not bring them back
    expect(await world.inventory(ann)).toEqual([]);
  });

  it('counts each failed finish of a started claim as unfinished, its retry\'s too, and the retry past the recovery age finishes it', async () => {
    const world = new World(stack);
    const { ann, gamerTaskId, rewards } = await completedTask(world);
    const unfinished = () => counter('gfts_task_claims_total', { outcome: 'unfinished', rewarded: 'true' });
    const before = await unfinished();
    crashAfterGrant.add(gamerTaskId);
    expect((await claim(gamerTaskId, ann)).status).toBe(500);
    // left half-done for longer than CLAIM_RECOVERY_AFTER_MS: a retry finishes it on the spot
    const db = await stack.db();
    await db.collection('gamer_tasks').updateOne({ _id: gamerTaskId as never }, { $set: { claimStartedAt: new Date(Date.now() - 3_600_000) } });
    expect((await claim(gamerTaskId, ann)).status).toBe(500);
    // before: only the first failure counted (a sweep's recovery between the two, failing too, adds one)
    const counted = await unfinished();
    expect(counted).toBeGreaterThanOrEqual(before + 2);
    crashAfterGrant.delete(gamerTaskId);
    expect((await claim(gamerTaskId, ann)).status).toBe(409);
    const sorted = (items: RewardItem[]) => [...items].sort((a, b) => (a.inventoryItemId < b.inventoryItemId ? -1 : 1));
    expect(await world.inventory(ann)).toEqual(sorted(rewards));
    // the finish that went through counts nothing
    expect(await unfinished()).toBe(counted);
  });

  it('recovers every claim left half-done though one of them keeps failing, and still says the step failed', async () => {
    const [one, other] = [await completedTask(new World(stack)), await completedTask(new World(stack))];
    const db = await stack.db();
    const hourAgo = new Date(Date.now() - 3_600_000);
    // both left half-done an hour ago (step 1 written, nothing granted)
    for (const t of [one, other]) await db.collection('gamer_tasks').updateOne({ _id: t.gamerTaskId as never }, { $set: { claimState: 'claiming', claimStartedAt: hourAgo } });
    const store = openStore({ db } as unknown as Connection);
    const gamerTasks = new GamerTaskRepository(store);
    const quiet = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} } as never;
    // whichever the recovery takes first keeps failing
    let failing: string | undefined;
    const recovery = new ClaimService({
      gamerTasks, progress: new GamerProgressRepository(store, gamerTasks, 0), inventory: new InventoryRepository(store), erasures: new ErasureJobRepository(store),
      events: new TaskEvents(await stack.nats(), stack.names, quiet), metrics: claimMetrics(new Registry()), log: quiet, recoveryAfterMs: 60_000,
      faults: { afterGrant: async (task) => {
        if (![one.gamerTaskId, other.gamerTaskId].includes(task.id)) return;
        failing ??= task.id;
        if (task.id === failing) throw new Error('injected: this claim keeps failing');
      } },
    });
    await expect(recovery.recover(new Date())).rejects.toThrow(/keeps failing/);
    // before: the first failure ended the recovery, and the other claim waited behind it for good
    const states = await Promise.all([one, other].map(async (t) => [t.gamerTaskId === failing, (await db.collection('gamer_tasks').findOne({ _id: t.gamerTaskId as never }))?.claimState]));
    expect(states.sort()).toEqual([[false, 'claimed'], [true, 'claiming']]);
  });

  it('finishes a claim a crash interrupted, granting exactly once', async () => {
    const world = new World(stack);
    const { ann, gamerTaskId, rewards } = await completedTask(world);
    crashAfterGrant.add(gamerTaskId);
    const unfinishedBefore = await counter('gfts_task_claims_total', { outcome: 'unfinished', rewarded: 'true' });
    const crashed = await claim(gamerTaskId, ann);
    expect(crashed.status).toBe(500);
    // counted, so GftsClaimsUnfinished sees claims that keep failing (before: nothing counted)
    expect(await counter('gfts_task_claims_total', { outcome: 'unfinished', rewarded: 'true' })).toBe(unfinishedBefore + 1);
    // the grants were written, the claim was not finished; a retry is still refused
    expect((await claim(gamerTaskId, ann)).status).toBe(409);
    // a second task whose claim a crash stopped right after step 1 (nothing granted yet)
    const secondWorld = new World(stack);
    const second = await completedTask(secondWorld);
    const db = await stack.db();
    await db.collection('gamer_tasks').updateOne({ _id: second.gamerTaskId as never }, { $set: { claimState: 'claiming', claimStartedAt: new Date() } });
    // the service restarts: recovery at start finishes both, once
    await stack.restartTasks();
    const sorted = (items: RewardItem[]) => [...items].sort((a, b) => (a.inventoryItemId < b.inventoryItemId ? -1 : 1));
    expect(await world.inventory(ann)).toEqual(sorted(rewards));
    expect(await secondWorld.inventory(second.ann)).toEqual(sorted(second.rewards));
    expect((await world.tasks(ann)).find((t) => t.id === gamerTaskId)).toMatchObject({ claimed: true });
    expect((await claim(gamerTaskId, ann)).status).toBe(409);
    expect((await claim(second.gamerTaskId, second.ann)).status).toBe(409);
    // and running recovery again changes nothing
    await stack.restartTasks();
    expect(await world.inventory(ann)).toEqual(sorted(rewards));
    expect(await secondWorld.inventory(second.ann)).toEqual(sorted(second.rewards));
  });
});
