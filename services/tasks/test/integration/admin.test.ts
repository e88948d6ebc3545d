import { DEAD_LETTER_REPLAY_ALL_MAX, type AdminGamerProgress, type AdminPipelineHealth, type DeadLetter, type DeadLetterReplayAll, type DeadLetterReplayed, type StatDeadLetter } from '@gfts/contracts';
import { eventually, gamer, type ApiResponse } from '@gfts/testkit';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTasksStack, type TasksStack } from '../support/stack.ts';
import { byTask, World } from '../support/world.ts';

const ADMIN = '/api/v1/admin';

describe('tasks admin routes (the console\'s gamer look-up, dead letters, health)', () => {
  let stack: TasksStack;
  const failing = new Set<string>();
  beforeAll(async () => {
    stack = await startTasksStack(
      { STATS_MAX_DELIVER: '2', STATS_RETRY_BASE_MS: '50' },
      { faults: { processor: { afterApply: (event) => { if (failing.has(event.eventId)) throw new Error('injected failure'); } } } },
    );
  });
  afterAll(async () => stack?.close());

  /**
   * A letter as the consumer writes it, for an event that never reached the tasks (its cause
   * fixed since); by default as a version before 2026-11-27 wrote it, on the one subject of
   * all applications, else on the application's own subject.
   */
  async function deadLetter(world: World, payload: string, subject = stack.names.statsDeadLetter, eventSubject = stack.names.statsSubject(world.app)): Promise<void> {
    const letter: StatDeadLetter = {
      reason: 'processing failed 5 times: database unavailable', subject: eventSubject,
      streamSequence: 1, deliveryCount: 5, deadLetteredAt: new Date().toISOString(), payload,
    };
    await jetstream(await stack.nats()).publish(subject, JSON.stringify(letter));
  }

  /** Letters stored on the application's own subject. */
  async function lettersOnSubjectOf(world: World): Promise<number> {
    const subject = stack.names.statsDeadLetterOf(world.app);
    const info = await (await jetstreamManager(await stack.nats())).streams.info(stack.names.statsDeadLetterStream, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
  }

  const letters = async (world: World) => {
    const response = await stack.api<DeadLetter[]>('GET', `${ADMIN}/dead-letters`, { headers: world.admin.auth });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body;
  };

  it('shows a gamer\'s tasks with progress, achievements and inventory', async () => {
    const world = new World(stack);
    const task = await world.createTask({ targetValue: 3, applicationStatsId: 'wins' });
    const achievement = await world.createTask({ family: 'lifetime', isAchievement: true, targetValue: 100, applicationStatsId: 'wins' });
    const player = world.gamer('Ann');
    await world.assign(player, 'daily', 1);
    await world.play(player, { wins: 2 });
    await world.waitFor(player, byTask(task.id), (t) => t.progress === 2);

    const view = await stack.api<AdminGamerProgress>('GET', `${ADMIN}/gamers/${player.id}`, { headers: world.admin.auth });
    expect(view.status).toBe(200);
    expect(view.body.tasks.map((t) => [t.task.id, t.progress, t.completed])).toEqual([[task.id, 2, false]]);
    expect(view.body.achievements.map((t) => [t.task.id, t.progress])).toEqual([[achievement.id, 2]]);
    expect(view.body.inventory).toEqual([]);

    const strangerId = randomUUID();
    const stranger = await stack.api<AdminGamerProgress>('GET', `${ADMIN}/gamers/${strangerId}`, { headers: world.admin.auth });
    expect(stranger.body).toMatchObject({ tasks: [], achievements: [], inventory: [] });
    // another application's admin sees nothing of this gamer
    const elsewhere = new World(stack);
    const foreign = await stack.api<AdminGamerProgress>('GET', `${ADMIN}/gamers/${player.id}`, { headers: elsewhere.admin.auth });
    expect(foreign.body).toMatchObject({ tasks: [], achievements: [], inventory: [] });
    // a look-up writes nothing: no progress document names a gamer an admin only looked at
    // (one just erased included)
    const progress = (await stack.db()).collection<{ _id: string }>('gamer_progress');
    expect(await progress.countDocuments({ _id: { $in: [`${world.app}:${strangerId}`, `${elsewhere.app}:${player.id}`] } })).toBe(0);
    expect(await progress.countDocuments({ _id: `${world.app}:${player.id}` })).toBe(1);
    expect((await stack.api('GET', `${ADMIN}/gamers/${player.id}`, { headers: player.auth })).status).toBe(403);
  });

  it('lists the application\'s dead letters, replays one with its eventId (counted once) and deletes another', async () => {
    const world = new World(stack);
    const other = new World(stack);
    const task = await world.createTask({ family: 'lifetime', targetValue: 1000, applicationStatsId: 'score' });
    const player = world.gamer('Bob');
    await world.assign(player, 'lifetime', 1);

    // genuinely dead-lettered: its processing fails on every delivery (after its task write)
    // (reported as a game server does, with its request id: the letter keeps it)
    const failed = world.event(player, { score: 7 });
    failing.add(failed.eventId);
    expect((await stack.api('POST', '/api/v1/stats', { headers: { ...world.server.auth, 'x-request-id': 'dlq-req-1' }, body: failed })).status).toBe(202);
    await world.publish('{"not": json');
    // and one that never reached the tasks before it was dead-lettered
    const missed = world.event(player, { score: 5 });
    await deadLetter(world, JSON.stringify(missed));
    await deadLetter(other, JSON.stringify(other.event(randomUUID(), { score: 1 })));

    const listed = await eventually(async () => {
      const list = await letters(world);
      return list.length === 3 ? list : undefined;
    }, 20_000);
    expect(listed.map((l) => l.eventId)).toEqual(expect.arrayContaining([failed.eventId, missed.eventId, null]));
    const poison = listed.find((l) => l.eventId === null)!;
    expect(poison).toMatchObject({ reason: 'payload is not UTF-8 JSON', payload: '{"not": json', errors: [], requestId: null });
    const failedLetter = listed.find((l) => l.eventId === failed.eventId)!;
    expect(failedLetter).toMatchObject({ gamerId: player.id, deliveryCount: 2, reason: expect.stringMatching(/^processing failed 2 times/), requestId: 'dlq-req-1' });
    // a letter of before 2026-11-28 has none
    expect(listed.find((l) => l.eventId === missed.eventId)!.requestId).toBeNull();
    expect((await letters(other)).map((l) => l.subject)).toEqual([stack.names.statsSubject(other.app)]);
    // the consumer wrote its two on the application's own subject; the third is of before
    expect(await lettersOnSubjectOf(world)).toBe(2);
    expect(await lettersOnSubjectOf(other)).toBe(0);

    // pages: one at a time, the next announced in Link, across both subjects to the end
    const paged: DeadLetter[] = [];
    for (let url: string | undefined = `${ADMIN}/dead-letters?limit=1`; url; ) {
      const page: ApiResponse<DeadLetter[]> = await stack.api<DeadLetter[]>('GET', url, { headers: world.admin.auth });
      expect(page.body).toHaveLength(1);
      paged.push(...page.body);
      url = page.headers.get('link')?.match(/<([^>]+)>; rel="next"/)?.[1];
    }
    expect(paged).toEqual(listed);
    expect(listed.map((l) => l.sequence)).toEqual([...listed.map((l) => l.sequence)].sort((a, b) => a - b));

    // another application cannot see, replay or delete them
    expect((await stack.api('POST', `${ADMIN}/dead-letters/${failedLetter.sequence}/replay`, { headers: other.admin.auth })).status).toBe(404);
    expect((await stack.api('DELETE', `${ADMIN}/dead-letters/${failedLetter.sequence}`, { headers: other.admin.auth })).status).toBe(404);
    expect((await stack.api('POST', `${ADMIN}/dead-letters/replay`, { headers: world.gamer().auth })).status).toBe(403);

    // the cause is fixed: replaying the failed event applies nothing twice (its write had landed)
    await world.waitFor(player, byTask(task.id), (t) => t.progress === 7);
    failing.delete(failed.eventId);
    const replayed = await stack.api<DeadLetterReplayed>('POST', `${ADMIN}/dead-letters/${failedLetter.sequence}/replay`, { headers: world.admin.auth });
    expect(replayed.status, JSON.stringify(replayed.body)).toBe(200);
    expect(replayed.body).toMatchObject({ sequence: failedLetter.sequence, eventId: failed.eventId, stream: expect.stringMatching(/_STATS$/), duplicate: false });
    // published again with the request id it first came with
    const republished = await (await jetstreamManager(await stack.nats())).streams.getMessage(replayed.body.stream, { seq: replayed.body.seq });
    expect(republished?.header.get('x-request-id')).toBe('dlq-req-1');
    // replay all: the missed event counts now
    const all = await stack.api<DeadLetterReplayAll>('POST', `${ADMIN}/dead-letters/replay`, { headers: world.admin.auth });
    expect(all.status).toBe(200);
    expect(all.body.replayed.map((r) => r.eventId)).toEqual(expect.arrayContaining([missed.eventId, null]));
    // a letter without a request id goes without one (its lines go by its eventId), not with the replay call's
    const missedCopy = all.body.replayed.find((r) => r.eventId === missed.eventId)!;
    const missedMessage = await (await jetstreamManager(await stack.nats())).streams.getMessage(missedCopy.stream, { seq: missedCopy.seq });
    expect(missedMessage?.header?.get('x-request-id') ?? '').toBe('');
    expect(all.body.failed).toEqual([]);
    await world.waitFor(player, byTask(task.id), (t) => t.progress === 7 + 5 && t.gamesPlayed === 2);
    // the replayed poison is dead-lettered again, as a new letter; delete it
    const again = await eventually(async () => (await letters(world)).find((l) => l.eventId === null), 20_000);
    expect(again.sequence).not.toBe(poison.sequence);
    expect((await stack.api('DELETE', `${ADMIN}/dead-letters/${again.sequence}`, { headers: world.admin.auth })).status).toBe(204);
    expect((await stack.api('DELETE', `${ADMIN}/dead-letters/${again.sequence}`, { headers: world.admin.auth })).status).toBe(404);
    expect((await stack.api('POST', `${ADMIN}/dead-letters/${failedLetter.sequence}/replay`, { headers: world.admin.auth })).status).toBe(404);
    expect(await letters(world)).toEqual([]);
    expect((await world.tasks(player)).find((t) => t.task.id === task.id)!.progress).toBe(12);
  });

  it('replays all in calls of at most DEAD_LETTER_REPLAY_ALL_MAX letters, oldest first, saying when more remain', async () => {
    const world = new World(stack);
    const player = world.gamer('Flood');
    const total = DEAD_LETTER_REPLAY_ALL_MAX + 7;
    const letter = (i: number): StatDeadLetter => ({
      reason: 'processing failed 5 times: database unavailable', subject: stack.names.statsSubject(world.app),
      streamSequence: i, deliveryCount: 5, deadLetteredAt: new Date().toISOString(), payload: JSON.stringify(world.event(player, { score: 1 })),
    });
    const js = jetstream(await stack.nats());
    await Promise.all(Array.from({ length: total }, (_, i) => js.publish(stack.names.statsDeadLetterOf(world.app), JSON.stringify(letter(i)))));
    const replayAll = () => stack.api<DeadLetterReplayAll>('POST', `${ADMIN}/dead-letters/replay`, { headers: world.admin.auth });
    const first = await replayAll();
    expect(first.status, JSON.stringify(first.body).slice(0, 300)).toBe(200);
    expect(first.body.replayed).toHaveLength(DEAD_LETTER_REPLAY_ALL_MAX);
    expect(first.body.failed).toEqual([]);
    expect(first.body.more).toBe(true);
    const sequences = first.body.replayed.map((r) => r.sequence);
    expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
    const second = await replayAll();
    expect(second.body.replayed).toHaveLength(7);
    expect(second.body.more).toBe(false);
    expect(Math.min(...second.body.replayed.map((r) => r.sequence))).toBeGreaterThan(Math.max(...sequences));
    expect(await letters(world)).toEqual([]);
  }, 60_000);

  it('dead-letters on the shared subject of before while an older replica has set the stream back to it', async () => {
    const world = new World(stack);
    const jsm = await jetstreamManager(await stack.nats());
    const stream = stack.names.statsDeadLetterStream;
    const { config } = await jsm.streams.info(stream);
    await jsm.streams.update(stream, { ...config, subjects: [stack.names.statsDeadLetter] });
    try {
      await world.publish('{"not": json');
      const [letter] = await eventually(async () => {
        const list = await letters(world);
        return list.length === 1 ? list : undefined;
      }, 20_000);
      expect(letter).toMatchObject({ reason: 'payload is not UTF-8 JSON', subject: stack.names.statsSubject(world.app) });
      expect(await lettersOnSubjectOf(world)).toBe(0);
    } finally {
      await jsm.streams.update(stream, config);
    }
  });

  it('lists and deletes a letter whose event came with the application id in capitals on its subject', async () => {
    const world = new World(stack);
    // the consumer takes such a subject (it compares ids in lower case) and files the letter on the application's own
    const shouted = stack.names.statsSubject(world.app).replace(world.app, world.app.toUpperCase());
    await deadLetter(world, '{}', stack.names.statsDeadLetterOf(world.app), shouted);
    const listed = await letters(world);
    expect(listed.map((l) => l.subject)).toEqual([shouted]);
    expect((await stack.api('DELETE', `${ADMIN}/dead-letters/${listed[0]!.sequence}`, { headers: world.admin.auth })).status).toBe(204);
    expect(await letters(world)).toEqual([]);
  });

  it('reports readiness, consumer lag and the application\'s dead-letter count', async () => {
    const world = new World(stack);
    await deadLetter(world, '{}');
    await deadLetter(world, '{}', stack.names.statsDeadLetterOf(world.app));
    // another application's letters count nothing here
    const stranger = new World(stack);
    await deadLetter(stranger, '{}', stack.names.statsDeadLetterOf(stranger.app));
    const health = await stack.api<AdminPipelineHealth>('GET', `${ADMIN}/health`, { headers: world.admin.auth });
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      service: 'tasks', status: 'ok', checks: { mongodb: 'ok', nats: 'ok' },
      consumer: { pending: expect.any(Number), ackPending: expect.any(Number) },
      stream: { lastSequence: expect.any(Number) },
      deadLetters: 2,
    });
    expect((await stack.api('GET', `${ADMIN}/health`, { headers: gamer(world.app, 'P').auth })).status).toBe(403);
  });
});

describe('replay-all within its time budget (DEAD_LETTER_REPLAY_ALL_BUDGET_MS)', () => {
  let stack: TasksStack;
  beforeAll(async () => {
    // 1 ms: the budget runs out at the first letter of every call
    stack = await startTasksStack({ DEAD_LETTER_REPLAY_ALL_BUDGET_MS: '1' });
  });
  afterAll(async () => stack?.close());

  /** A world whose gamer `name` has three dead letters. */
  async function worldWithLetters(name: string): Promise<World> {
    const world = new World(stack);
    const player = world.gamer(name);
    const js = jetstream(await stack.nats());
    for (let i = 0; i < 3; i++) {
      const letter: StatDeadLetter = {
        reason: 'processing failed 5 times', subject: stack.names.statsSubject(world.app), streamSequence: i, deliveryCount: 5,
        deadLetteredAt: new Date().toISOString(), payload: JSON.stringify(world.event(player, { score: 1 })),
      };
      await js.publish(stack.names.statsDeadLetterOf(world.app), JSON.stringify(letter));
    }
    return world;
  }

  it('answers with more: true once the budget is spent, having replayed one letter at least; calls again finish the rest', async () => {
    const world = await worldWithLetters('Slow');
    const replayAll = () => stack.api<DeadLetterReplayAll>('POST', `${ADMIN}/dead-letters/replay`, { headers: world.admin.auth });
    // before the budget, one call replayed all three
    const first = await replayAll();
    expect(first.status).toBe(200);
    expect(first.body.replayed).toHaveLength(1);
    expect(first.body.more).toBe(true);
    const rest: number[] = [];
    for (let call = 0; call < 5; call++) {
      const next = await replayAll();
      rest.push(...next.body.replayed.map((r) => r.sequence));
      if (next.body.replayed.length === 0) break;
    }
    expect(rest).toHaveLength(2);
    expect(new Set([first.body.replayed[0]!.sequence, ...rest]).size).toBe(3);
  });

  it('goes on after ?after= (an earlier call\'s after): letters before it are left as they are', async () => {
    const world = await worldWithLetters('Later');
    const replayAll = (query = '') => stack.api<DeadLetterReplayAll>('POST', `${ADMIN}/dead-letters/replay${query}`, { headers: world.admin.auth });
    const first = await replayAll();
    expect(first.body.replayed).toHaveLength(1);
    expect(first.body.after).toBe(first.body.replayed[0]!.sequence);
    // the second letter skipped on purpose (as one that keeps failing would be): after it
    const list = await stack.api<DeadLetter[]>('GET', `${ADMIN}/dead-letters`, { headers: world.admin.auth });
    const [second, third] = list.body.map((l) => l.sequence);
    const next = await replayAll(`?after=${second}`);
    expect(next.body.replayed.map((r) => r.sequence)).toEqual([third]);
    expect(next.body.after).toBe(third);
    expect((await stack.api<DeadLetter[]>('GET', `${ADMIN}/dead-letters`, { headers: world.admin.auth })).body.map((l) => l.sequence)).toEqual([second]);
    expect((await replayAll('?after=-1')).status).toBe(400);
  });
});
