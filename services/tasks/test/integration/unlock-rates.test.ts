import type { AchievementStat, GamerTaskWithChildren } from '@gfts/contracts';
import { eventually, gamer } from '@gfts/testkit';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTasksStack, type TasksStack } from '../support/stack.ts';
import { byTask, World } from '../support/world.ts';

describe('achievement unlock rates', () => {
  let stack: TasksStack;
  beforeAll(async () => {
    // small batches, so the events of one run spread over many batches and both replicas
    stack = await startTasksStack({ CONSUMER_BATCH: '7' });
  });
  afterAll(async () => stack?.close());

  const statsOf = (world: World, who = world.gamer()) => stack.api<AchievementStat[]>('GET', `/api/v1/${world.app}/achievements/stats`, { headers: who.auth });
  const counts = async (world: World) => new Map((await statsOf(world)).body.map((s) => [s.taskId, [s.completedCount, s.trackedCount]]));

  it('lists every achievement with zero counts before anything happened, to any token of the application; another application is refused (403)', async () => {
    const world = new World(stack);
    const first = await world.createTask({ name: 'First blood', family: 'lifetime', isAchievement: true, applicationStatsId: 'kills', targetValue: 1 });
    await world.createTask({ name: 'A plain task', family: 'daily' });
    const response = await statsOf(world);
    expect(response.status).toBe(200);
    expect(response.body).toEqual([{ taskId: first.id, name: 'First blood', completedCount: 0, trackedCount: 0, completionRate: 0 }]);
    const foreign = gamer(randomUUID(), 'Other', { roles: ['admin'] });
    expect((await statsOf(world, foreign)).status).toBe(403);
    expect((await stack.api('GET', `/api/v1/${world.app}/achievements/stats`)).status).toBe(401);
    expect((await stack.api('GET', '/api/v1/not-a-uuid/achievements/stats', { headers: world.admin.auth })).status).toBe(400);
  });

  it('counts no game server: its token lists the achievements as a new gamer would, and nothing is tracked for it', async () => {
    const world = new World(stack);
    const first = await world.createTask({ name: 'First blood', family: 'lifetime', isAchievement: true, applicationStatsId: 'kills', targetValue: 1 });
    const listed = await stack.api<GamerTaskWithChildren[]>('GET', '/api/v1/achievements', { headers: world.server.auth });
    expect(listed.status).toBe(200);
    expect(listed.body.map((a) => [a.task.id, a.progress, a.completed])).toEqual([[first.id, 0, false]]);
    expect((await counts(world)).get(first.id)).toEqual([0, 0]);
    expect(await (await stack.db()).collection('gamer_tasks').countDocuments({ applicationId: world.app, gamerId: world.server.id })).toBe(0);
    // nor a progress document (its entries would be orphans the stat consumer drops), nor
    // from its task list
    expect((await stack.api('GET', '/api/v1/tasks', { headers: world.server.auth })).status).toBe(200);
    expect(await (await stack.db()).collection('gamer_progress').countDocuments({ _id: `${world.app}:${world.server.id}` } as never)).toBe(0);
    // a gamer's list tracks them, and counts
    await world.achievements(world.gamer());
    expect((await counts(world)).get(first.id)).toEqual([0, 1]);
  });

  it('counts exactly under concurrent completions across gamers, two consumer replicas and redelivered events', async () => {
    const replica = await stack.startReplica({ CONSUMER_BATCH: '5' });
    try {
      const world = new World(stack);
      const easy = await world.createTask({ name: 'Easy', family: 'lifetime', isAchievement: true, applicationStatsId: 'kills', targetValue: 1 });
      const hard = await world.createTask({ name: 'Hard', family: 'lifetime', isAchievement: true, applicationStatsId: 'kills', targetValue: 10 });
      const combo = await world.createTask({
        name: 'Combo', family: 'lifetime', isAchievement: true, applicationStatsId: 'kills', targetValue: 1,
        children: [
          { name: 'Kill', applicationStatsId: 'kills', targetValue: 1, numberOfGames: 0 },
          { name: 'Win', applicationStatsId: 'wins', targetValue: 1, numberOfGames: 0 },
        ],
      });
      const gamers = Array.from({ length: 24 }, (_, i) => world.gamer(`P${i}`));
      // every gamer: 3 games of 1 kill, published at once; the first 8 also one game of 10 kills
      // and a win; every event is also published a second time under another message id
      const events = gamers.flatMap((g, i) => [
        ...Array.from({ length: 3 }, () => world.event(g, { kills: 1 })),
        ...(i < 8 ? [world.event(g, { kills: 10, wins: 1 })] : []),
      ]);
      await Promise.all(events.map((e) => world.publish(e)));
      await Promise.all(events.map((e) => world.publish(e, `again-${e.eventId}`)));

      const expected = new Map([
        [easy.id, [24, 24]],
        [hard.id, [8, 24]],
        [combo.id, [8, 24]],
      ]);
      await eventually(async () => {
        const now = await counts(world);
        return [...expected].every(([id, want]) => JSON.stringify(now.get(id)) === JSON.stringify(want));
      }, 30_000);
      // every event has been applied (each gamer's progress is final) and the counts are still exact
      for (const [i, g] of gamers.entries()) {
        // a completed achievement takes no more progress, so the first 8 end between 10 and 13
        await world.waitFor(g, byTask(hard.id), (t) => (i < 8 ? t.completed : t.progress === 3), 'achievements', 30_000);
        await world.waitFor(g, byTask(combo.id), (t) => t.completed === i < 8 && t.childTasks.every((c) => c.completed || (i >= 8 && c.task.name === 'Win')), 'achievements', 30_000);
      }
      const stats = (await statsOf(world)).body;
      expect(stats.map((s) => [s.name, s.completedCount, s.trackedCount])).toEqual([['Easy', 24, 24], ['Hard', 8, 24], ['Combo', 8, 24]]);
      expect(stats.find((s) => s.name === 'Hard')!.completionRate).toBeCloseTo(8 / 24, 10);
      expect(stats.find((s) => s.name === 'Easy')!.completionRate).toBe(1);
    } finally {
      await replica.close();
    }
  });

  it('tracks a gamer who only read their achievements; a new achievement starts from zero', async () => {
    const world = new World(stack);
    const early = await world.createTask({ name: 'Early', family: 'lifetime', isAchievement: true, applicationStatsId: 'kills', targetValue: 2 });
    const ann = world.gamer();
    const bob = world.gamer();
    await world.achievements(ann);
    await world.achievements(ann);
    await world.play(bob, { kills: 2 });
    await world.waitFor(bob, byTask(early.id), (t) => t.completed, 'achievements');
    // the counters move right after the batch's task write: a reader may see the completion first
    await eventually(async () => JSON.stringify((await counts(world)).get(early.id)) === '[1,2]');
    const late = await world.createTask({ name: 'Late', family: 'lifetime', isAchievement: true, applicationStatsId: 'wins', targetValue: 1 });
    expect((await counts(world)).get(late.id)).toEqual([0, 0]);
    await world.achievements(ann);
    expect((await counts(world)).get(late.id)).toEqual([0, 1]);
  });
});
