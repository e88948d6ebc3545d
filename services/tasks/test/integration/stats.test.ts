import type { TaskCompletedEvent } from '@gfts/contracts';
import { eventually, gamer } from '@gfts/testkit';
import { jetstreamManager } from '@nats-io/jetstream';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTasksStack, untilAcknowledged, type TasksStack } from '../support/stack.ts';
import { byId, byTask, World } from '../support/world.ts';

const child = (over: Record<string, unknown> = {}) => ({ name: 'Child', targetValue: 1, numberOfGames: 0, applicationStatsId: 'kills', ...over });

describe('stat events', () => {
  let stack: TasksStack;
  const completions: TaskCompletedEvent[] = [];
  const completionRequestIds = new Map<string, string | undefined>();
  beforeAll(async () => {
    stack = await startTasksStack();
    const nc = await stack.nats();
    nc.subscribe(stack.names.taskCompleted, {
      callback: (_e, msg) => {
        const event = msg.json<TaskCompletedEvent>();
        completions.push(event);
        completionRequestIds.set(event.gamerTaskId, msg.headers?.get('x-request-id'));
      },
    });
    await nc.flush();
  });
  afterAll(async () => stack?.close());

  it('POST /stats answers 202 once JetStream stored the event, and flags a repeated eventId', async () => {
    const world = new World(stack);
    const event = world.event(world.gamer(), { wins: 1 });
    const first = await world.report(event);
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ eventId: event.eventId, duplicate: false, stream: stack.names.statsStream, seq: expect.any(Number) });
    const again = await world.report(event);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ eventId: event.eventId, duplicate: true });
  });

  it('POST /stats needs the server role (403) of the event\'s application (403), and a valid event (400)', async () => {
    const world = new World(stack);
    const ann = world.gamer();
    const event = world.event(ann, { wins: 1 });
    expect((await stack.api('POST', '/api/v1/stats', { headers: ann.auth, body: event })).status).toBe(403);
    expect((await stack.api('POST', '/api/v1/stats', { headers: world.admin.auth, body: event })).status).toBe(403);
    // whatever the body: refused before it is validated (before: 400 with the schema's errors)
    expect((await stack.api('POST', '/api/v1/stats', { headers: ann.auth, body: {} })).status).toBe(403);
    const otherServer = gamer(randomUUID(), 'Server', { roles: ['server'] });
    const foreign = await stack.api('POST', '/api/v1/stats', { headers: otherServer.auth, body: event });
    expect(foreign.status).toBe(403);
    expect((await stack.api('POST', '/api/v1/stats', { body: event })).status).toBe(401);
    const invalid = [
      { ...event, eventId: 'nope' },
      { ...event, gamerId: undefined },
      { ...event, gameId: '' },
      { ...event, occurredAt: 'yesterday' },
      { ...event, stats: [] },
      { ...event, stats: [{ applicationStatsId: 'wins', value: -1 }] },
      { ...event, stats: [{ applicationStatsId: 'wins', value: 1.5 }] },
      { ...event, stats: [{ applicationStatsId: '', value: 1 }] },
      // a lone surrogate: no catalog id holds one, so it could move nothing (202 until 2026-11-28)
      { ...event, stats: [{ applicationStatsId: '\ud83dwins', value: 1 }] },
      { ...event, extra: 1 },
    ];
    for (const body of invalid) {
      const response = await world.report(body as never);
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    // a stat id with a pair (an emoji) is one, and taken
    expect((await world.report({ ...event, eventId: randomUUID(), stats: [{ applicationStatsId: '😀wins', value: 1 }] })).status).toBe(202);
  });

  it('carries the game server\'s request id from POST /stats to the task.completed event', async () => {
    const world = new World(stack);
    const ann = world.gamer();
    await world.createTask({ family: 'daily', applicationStatsId: 'traced', targetValue: 1, numberOfGames: 0 });
    const [assigned] = (await world.assign(ann, 'daily')).body;
    const response = await stack.api('POST', '/api/v1/stats', { headers: { ...world.server.auth, 'x-request-id': 'server-req-9' }, body: world.event(ann, { traced: 1 }) });
    expect(response.status).toBe(202);
    await eventually(async () => completionRequestIds.has(assigned!.id));
    expect(completionRequestIds.get(assigned!.id)).toBe('server-req-9');
  });

  it('moves progress from events posted over HTTP and published on NATS, and completes the task', async () => {
    const world = new World(stack);
    const task = await world.createTask({ targetValue: 10, applicationStatsId: 'kills' });
    const ann = world.gamer();
    const [held] = (await world.assign(ann, 'daily', 1)).body;
    await world.play(ann, { kills: 4, deaths: 2 });
    await world.waitFor(ann, byTask(task.id), (t) => t.progress === 4 && t.gamesPlayed === 1);
    // a game server may publish straight on NATS, with the eventId as message id
    const event = world.event(ann, { kills: 6 });
    await world.publish(event);
    const done = await world.waitFor(ann, byTask(task.id), (t) => t.completed);
    expect(done).toMatchObject({ id: held!.id, progress: 10, gamesPlayed: 2, completed: true, claimed: false });
    await eventually(async () => completions.find((c) => c.gamerTaskId === held!.id));
    expect(completions.find((c) => c.gamerTaskId === held!.id)).toMatchObject({
      applicationId: world.app, gamerId: ann.id, taskId: task.id, eventId: event.eventId, parentGamerTaskId: null, isAchievement: false,
    });
    // a completed task takes no more progress
    await world.play(ann, { kills: 5 });
    await untilAcknowledged(stack);
    expect((await world.tasks(ann)).find((t) => t.task.id === task.id)).toMatchObject({ progress: 10, gamesPlayed: 2 });
  });

  it('applies the numberOfGames window: short on game N starts a fresh window', async () => {
    const world = new World(stack);
    const task = await world.createTask({ targetValue: 10, numberOfGames: 3, applicationStatsId: 'score' });
    const ann = world.gamer();
    await world.assign(ann, 'daily', 1);
    for (const value of [3, 3]) await world.play(ann, { score: value });
    await world.waitFor(ann, byTask(task.id), (t) => t.progress === 6 && t.gamesPlayed === 2);
    await world.play(ann, { score: 3 });
    await world.waitFor(ann, byTask(task.id), (t) => t.progress === 0 && t.gamesPlayed === 0 && !t.completed);
    // a game without the stat is not a game of the window
    await world.play(ann, { other: 50 });
    for (const value of [5, 0]) await world.play(ann, { score: value });
    await world.waitFor(ann, byTask(task.id), (t) => t.progress === 5 && t.gamesPlayed === 2);
    await world.play(ann, { score: 5 });
    await world.waitFor(ann, byTask(task.id), (t) => t.completed && t.progress === 10 && t.gamesPlayed === 3);
  });

  it('counts an event once: repeated over HTTP, and re-published on NATS with a new message id', async () => {
    const world = new World(stack);
    const task = await world.createTask({ targetValue: 1000, applicationStatsId: 'xp' });
    const ann = world.gamer();
    await world.assign(ann, 'daily', 1);
    const event = world.event(ann, { xp: 7 });
    await world.report(event);
    await world.report(event);
    await world.publish(event, randomUUID());
    await world.publish({ ...event, eventId: event.eventId.toUpperCase() }, randomUUID());
    const marker = world.event(ann, { xp: 1 });
    await world.publish(marker);
    await world.waitFor(ann, byTask(task.id), (t) => t.progress === 8);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await world.tasks(ann)).find((t) => t.task.id === task.id)).toMatchObject({ progress: 8, gamesPlayed: 2 });
    const metrics = await (await fetch(`${stack.tasksUrl}/metrics`)).text();
    expect(metrics).toMatch(/gfts_stats_events_processed_total\{[^}]*outcome="duplicate"[^}]*\} [1-9]/);
  });

  it('completes a composite parent when all its children have completed', async () => {
    const world = new World(stack);
    const composite = await world.createTask({ family: 'weekly', targetValue: 1, applicationStatsId: 'any', children: [child({ applicationStatsId: 'kills', targetValue: 3 }), child({ applicationStatsId: 'wins', targetValue: 1 })] });
    const ann = world.gamer();
    const [parent] = (await world.assign(ann, 'weekly', 1)).body;
    await world.play(ann, { kills: 3, any: 100 });
    // the child's write comes first, the parent's count right after it
    const half = await world.waitFor(ann, byId(parent!.id), (t) => t.childTasks[0]!.completed && t.progress === 1);
    expect(half).toMatchObject({ completed: false, progress: 1 });
    expect(half.childTasks.map((c) => c.completed)).toEqual([true, false]);
    expect(half.childTasks.map((c) => c.task.id)).toEqual(composite.children.map((c) => c.id));
    await world.play(ann, { wins: 1 });
    const done = await world.waitFor(ann, byId(parent!.id), (t) => t.completed);
    expect(done).toMatchObject({ progress: 2 });
    expect(done.childTasks.every((c) => c.completed)).toBe(true);
    await eventually(async () => completions.filter((c) => c.gamerId === ann.id).length === 3);
    expect(completions.find((c) => c.gamerTaskId === parent!.id)).toMatchObject({ parentGamerTaskId: null });
    expect(completions.filter((c) => c.parentGamerTaskId === parent!.id)).toHaveLength(2);
  });

  it('tracks every achievement for every gamer without assignment', async () => {
    const world = new World(stack);
    const kills = await world.createTask({ name: '100 kills', family: 'lifetime', isAchievement: true, targetValue: 10, applicationStatsId: 'kills' });
    const combo = await world.createTask({ name: 'Combo', family: 'lifetime', isAchievement: true, applicationStatsId: 'kills', children: [child({ applicationStatsId: 'kills', targetValue: 2 }), child({ applicationStatsId: 'wins', targetValue: 1 })] });
    // Ann has never called the service: her first game is enough
    const ann = world.gamer('Ann');
    await world.play(ann, { kills: 6 });
    await world.play(ann, { kills: 4, wins: 1 });
    const list = await eventually(async () => {
      const l = await world.achievements(ann);
      return l.find((a) => a.task.id === kills.id)?.completed && l.find((a) => a.task.id === combo.id)?.completed ? l : undefined;
    });
    expect(list.find((a) => a.task.id === kills.id)).toMatchObject({ progress: 10, gamesPlayed: 2, expiredAt: null, childTasks: [] });
    expect(list.find((a) => a.task.id === combo.id)!.childTasks.map((c) => c.completed)).toEqual([true, true]);
    expect(await world.tasks(ann)).toEqual([]);
    // Bob, who never played, sees every achievement with no progress
    const bob = world.gamer('Bob');
    const his = await world.achievements(bob);
    expect(his.map((a) => a.task.id).sort()).toEqual([kills.id, combo.id].sort());
    expect(his.every((a) => a.progress === 0 && !a.completed)).toBe(true);
    expect(his.find((a) => a.task.id === combo.id)!.childTasks).toHaveLength(2);
    expect((await world.achievements(ann, '?completed=true')).map((a) => a.task.id).sort()).toEqual([kills.id, combo.id].sort());
    expect(await world.achievements(bob, '?completed=true')).toEqual([]);
    expect(await world.achievements(bob, '?completed=false')).toHaveLength(2);
    // an achievement created later is tracked too
    const late = await world.createTask({ name: 'Late', family: 'lifetime', isAchievement: true, targetValue: 1, applicationStatsId: 'kills' });
    await world.play(ann, { kills: 1 });
    await world.waitFor(ann, byTask(late.id), (a) => a.completed, 'achievements');
  });

  it('ignores the events of other applications and other gamers', async () => {
    const world = new World(stack);
    const task = await world.createTask({ targetValue: 5, applicationStatsId: 'kills' });
    const ann = world.gamer();
    expect((await world.assign(ann, 'daily', 1)).status).toBe(200);
    await world.play(world.gamer(), { kills: 5 });
    // Ann's own id in another application is another gamer
    const other = new World(stack);
    expect((await other.report(other.event(ann.id, { kills: 5 }))).status).toBe(202);
    await world.play(ann, { kills: 1 });
    await untilAcknowledged(stack);
    expect((await world.tasks(ann)).find((t) => t.task.id === task.id)).toMatchObject({ progress: 1, gamesPlayed: 1 });
  });
});

describe('stat events JetStream does not store', () => {
  let stack: TasksStack;
  beforeAll(async () => {
    stack = await startTasksStack();
  });
  afterAll(async () => stack?.close());

  it('POST /stats answers 503 SERVICE_UNAVAILABLE while the stats stream is gone, and takes the same eventId once it is back', async () => {
    const world = new World(stack);
    const event = world.event(world.gamer(), { wins: 1 });
    const jsm = await jetstreamManager(await stack.nats());
    expect(await jsm.streams.delete(stack.names.statsStream)).toBe(true);
    try {
      const refused = await world.report(event);
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(refused.body).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', detail: expect.stringMatching(/may not have been stored; retry with the same eventId/) });
    } finally {
      // a new tasks service puts the stream (and its consumer) back
      await stack.restartTasks();
    }
    const stored = await world.report(event);
    expect(stored.status, JSON.stringify(stored.body)).toBe(202);
    expect(stored.body).toMatchObject({ eventId: event.eventId, duplicate: false, stream: stack.names.statsStream });
  });
});
